//! The MLflow artifact proxy and `artifacts/list`.

use axum::body::{Body, Bytes};
use serde_json::json;

use super::{files_under, Fx, LIMIT};

#[tokio::test]
async fn upload_download_list_and_delete_round_trip() {
    let fx = Fx::new().await;
    fx.put("hello.txt", "hello world").await;
    fx.put("dir/sub/data.bin", vec![1u8, 2, 3]).await;
    // Replacing a file keeps one file with the new content.
    fx.put("dir/sub/data.bin", vec![9u8; 10]).await;

    let r = fx
        .send(&fx.reader, "GET", &fx.run_uri("hello.txt"), Body::empty())
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.text, "hello world");
    assert_eq!(r.header("content-type"), "text/plain");
    assert_eq!(
        r.header("content-disposition"),
        "attachment; filename=hello.txt"
    );
    assert_eq!(r.header("x-content-type-options"), "nosniff");
    assert!(
        r.header("content-security-policy").starts_with("sandbox"),
        "{:?}",
        r.headers
    );

    let list = |path: String| {
        let fx = &fx;
        async move {
            let uri = format!("/api/2.0/mlflow-artifacts/artifacts?path={path}");
            let r = fx.send(&fx.reader, "GET", &uri, Body::empty()).await;
            assert_eq!(r.status, 200, "{}", r.text);
            r.body
        }
    };
    let root = format!("{}/{}/artifacts", fx.exp, fx.run);
    assert_eq!(
        list(root.clone()).await,
        json!({"files": [{"path": "dir", "is_dir": true},
                         {"path": "hello.txt", "is_dir": false, "file_size": 11}]})
    );
    assert_eq!(
        list(format!("{root}/dir/sub")).await,
        json!({"files": [{"path": "data.bin", "is_dir": false, "file_size": 10}]})
    );
    // A file or a missing path lists as `{}` (the client's "not a folder").
    assert_eq!(list(format!("{root}/hello.txt")).await, json!({}));
    assert_eq!(list(format!("{root}/nope")).await, json!({}));

    // MLflow's run-relative listing.
    let uri = format!("/api/2.0/mlflow/artifacts/list?run_id={}&path=dir", fx.run);
    let r = fx.send(&fx.reader, "GET", &uri, Body::empty()).await;
    assert_eq!(
        r.body,
        json!({"root_uri": format!("mlflow-artifacts:/{root}"),
               "files": [{"path": "dir/sub", "is_dir": true}]})
    );

    let r = fx
        .send(&fx.editor, "DELETE", &fx.run_uri("dir"), Body::empty())
        .await;
    assert_eq!(
        (r.status.as_u16(), r.body.clone()),
        (200, json!({})),
        "{}",
        r.text
    );
    assert_eq!(
        list(root.clone()).await,
        json!({"files": [{"path": "hello.txt", "is_dir": false, "file_size": 11}]})
    );
    // Deleting what is not there is fine, as in MLflow.
    let r = fx
        .send(&fx.editor, "DELETE", &fx.run_uri("dir"), Body::empty())
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(files_under(&fx.root()), [format!("{root}/hello.txt")]);
}

#[tokio::test]
async fn a_missing_file_is_404_and_a_folder_400() {
    let fx = Fx::new().await;
    fx.put("d/x.txt", "x").await;
    let r = fx
        .send(&fx.admin, "GET", &fx.run_uri("nope.txt"), Body::empty())
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
    assert_eq!(r.body["error_code"], "RESOURCE_DOES_NOT_EXIST");
    let r = fx
        .send(&fx.admin, "GET", &fx.run_uri("d"), Body::empty())
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert_eq!(r.body["error_code"], "INVALID_PARAMETER_VALUE");
}

#[tokio::test]
async fn traversal_attempts_are_refused_and_write_nothing_outside() {
    let fx = Fx::new().await;
    let base = format!(
        "/api/2.0/mlflow-artifacts/artifacts/{}/{}/artifacts",
        fx.exp, fx.run
    );
    for uri in [
        format!("{base}/../../../../escape.txt"),
        format!("{base}/%2e%2e/%2e%2e/%2e%2e/escape.txt"),
        format!("{base}/a/..%2f..%2f..%2fescape.txt"),
        format!("{base}/a%5c..%5cescape.txt"),
        "/api/2.0/mlflow-artifacts/artifacts//etc/escape.txt".to_owned(),
        "/api/2.0/mlflow-artifacts/artifacts/%2fetc%2fescape.txt".to_owned(),
        "/api/2.0/mlflow-artifacts/artifacts/.uploads/x".to_owned(),
    ] {
        let r = fx.send(&fx.admin, "PUT", &uri, Body::from("evil")).await;
        assert!(
            r.status == 400 || r.status == 404,
            "PUT {uri} -> {}: {}",
            r.status,
            r.text
        );
        assert!(r.body["error_code"].is_string(), "{uri}: {}", r.text);
        let r = fx.send(&fx.admin, "GET", &uri, Body::empty()).await;
        assert!(
            r.status == 400 || r.status == 404,
            "GET {uri} -> {}",
            r.status
        );
    }
    let r = fx
        .send(
            &fx.admin,
            "GET",
            "/api/2.0/mlflow-artifacts/artifacts?path=../..",
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert_eq!(r.body["message"], "Invalid path");
    // Nothing anywhere but the (empty) uploads folder.
    let everything = files_under(fx.dir.path());
    assert!(
        everything.iter().all(|f| !f.contains("escape")),
        "{everything:?}"
    );
    assert!(!fx.dir.path().parent().unwrap().join("escape.txt").exists());
}

#[tokio::test]
async fn a_symlink_inside_the_root_never_leads_out() {
    let fx = Fx::new().await;
    fx.put("ok.txt", "fine").await;
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("secret.txt"), "outside secret").unwrap();
    let run_dir = fx.root().join(&fx.exp).join(&fx.run).join("artifacts");
    std::os::unix::fs::symlink(outside.path(), run_dir.join("link")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), run_dir.join("file-link"))
        .unwrap();

    for rel in ["link/secret.txt", "file-link"] {
        let r = fx
            .send(&fx.admin, "GET", &fx.run_uri(rel), Body::empty())
            .await;
        assert_eq!(r.status, 404, "{rel}: {}", r.text);
        assert!(!r.text.contains("outside secret"));
    }
    let r = fx
        .send(
            &fx.admin,
            "PUT",
            &fx.run_uri("link/planted.txt"),
            Body::from("x"),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    let r = fx
        .send(
            &fx.admin,
            "PUT",
            &fx.run_uri("link/new/deeper.txt"),
            Body::from("x"),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    // Deleting through the link removes nothing outside.
    let r = fx
        .send(
            &fx.admin,
            "DELETE",
            &fx.run_uri("link/secret.txt"),
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(files_under(outside.path()), ["secret.txt"]);
    // Listings do not show links that lead out.
    let uri = format!(
        "/api/2.0/mlflow-artifacts/artifacts?path={}/{}/artifacts",
        fx.exp, fx.run
    );
    let r = fx.send(&fx.admin, "GET", &uri, Body::empty()).await;
    assert_eq!(
        r.body,
        json!({"files": [{"path": "ok.txt", "is_dir": false, "file_size": 4}]})
    );
    let r = fx
        .send(&fx.admin, "GET", &format!("{uri}/link"), Body::empty())
        .await;
    assert_eq!(r.body, json!({}));
}

#[tokio::test]
async fn an_oversize_upload_is_413_and_stores_nothing() {
    let fx = Fx::new().await;
    let big = vec![0u8; LIMIT as usize + 1];
    // Declared length over the limit: refused before reading.
    let r = fx
        .send(
            &fx.admin,
            "PUT",
            &fx.run_uri("big.bin"),
            Body::from(big.clone()),
        )
        .await;
    assert_eq!(r.status, 413, "{}", r.text);
    assert_eq!(r.body["error_code"], "RESOURCE_EXHAUSTED");
    assert!(r.body["message"].as_str().unwrap().contains("limit"));
    // No declared length (chunked): cut off as it streams.
    let chunks: Vec<Result<Bytes, std::io::Error>> = big
        .chunks(64 * 1024)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    let body = Body::from_stream(futures_util::stream::iter(chunks));
    let r = fx
        .send(&fx.admin, "PUT", &fx.run_uri("big.bin"), body)
        .await;
    assert_eq!(r.status, 413, "{}", r.text);
    assert_eq!(files_under(&fx.root()), Vec::<String>::new());
    // Exactly the limit is fine.
    fx.put("edge.bin", vec![0u8; LIMIT as usize]).await;
}

#[tokio::test]
async fn a_truncated_upload_leaves_nothing() {
    let fx = Fx::new().await;
    fx.put("data.bin", "old content").await;
    let r = fx
        .send(&fx.admin, "PUT", &fx.run_uri("fresh.bin"), failing_body())
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    let r = fx
        .send(&fx.admin, "PUT", &fx.run_uri("data.bin"), failing_body())
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    // Into a new folder: not even the folder appears.
    let r = fx
        .send(
            &fx.admin,
            "PUT",
            &fx.run_uri("new/dir/x.bin"),
            failing_body(),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    let run_dir = fx.root().join(&fx.exp).join(&fx.run).join("artifacts");
    assert!(!run_dir.join("new").exists());
    // The old file is intact, the new one absent, no temp file left.
    let root = format!("{}/{}/artifacts", fx.exp, fx.run);
    assert_eq!(files_under(&fx.root()), [format!("{root}/data.bin")]);
    let r = fx
        .send(&fx.admin, "GET", &fx.run_uri("data.bin"), Body::empty())
        .await;
    assert_eq!(r.text, "old content");
}

/// A body that fails after some bytes.
fn failing_body() -> Body {
    let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
        Ok(Bytes::from(vec![1u8; 100_000])),
        Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "client went away",
        )),
    ];
    Body::from_stream(futures_util::stream::iter(chunks))
}

#[tokio::test]
async fn uploads_need_edit_and_downloads_read() {
    let fx = Fx::new().await;
    fx.put("a.txt", "secret a").await;
    // Reader: may read, may not write.
    let r = fx
        .send(&fx.reader, "PUT", &fx.run_uri("b.txt"), Body::from("x"))
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    assert_eq!(r.body["error_code"], "PERMISSION_DENIED");
    let r = fx
        .send(&fx.reader, "DELETE", &fx.run_uri("a.txt"), Body::empty())
        .await;
    assert_eq!(r.status, 403);
    // Stranger: may not even read or list.
    let r = fx
        .send(&fx.stranger, "GET", &fx.run_uri("a.txt"), Body::empty())
        .await;
    assert_eq!(r.status, 403);
    assert!(!r.text.contains("secret a"));
    let uri = format!("/api/2.0/mlflow-artifacts/artifacts?path={}", fx.exp);
    let r = fx.send(&fx.stranger, "GET", &uri, Body::empty()).await;
    assert_eq!(r.status, 403);
    // Editor writes.
    let r = fx
        .send(&fx.editor, "PUT", &fx.run_uri("b.txt"), Body::from("x"))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    // No experiment (unknown, not a number, the root): 404, admins too.
    for uri in [
        "/api/2.0/mlflow-artifacts/artifacts/999/x.txt",
        "/api/2.0/mlflow-artifacts/artifacts/abc/x.txt",
        "/api/2.0/mlflow-artifacts/artifacts",
    ] {
        let r = fx.send(&fx.admin, "GET", uri, Body::empty()).await;
        assert_eq!(r.status, 404, "{uri}: {}", r.text);
        assert_eq!(r.body["error_code"], "RESOURCE_DOES_NOT_EXIST");
        let r = fx.send(&fx.admin, "PUT", uri, Body::from("x")).await;
        assert!(r.status == 404 || r.status == 405, "{uri}: {}", r.status);
    }
    // Signed out: 401.
    let r = crate::helpers::oneshot(
        &fx.router,
        axum::http::Request::get(fx.run_uri("a.txt"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 401);
}

#[tokio::test]
async fn multipart_upload_answers_mlflows_501() {
    let fx = Fx::new().await;
    let uri = format!(
        "/api/2.0/mlflow-artifacts/mpu/create/{}/{}/artifacts/big.bin",
        fx.exp, fx.run
    );
    let r = fx
        .send_with(
            &fx.editor,
            "POST",
            &uri,
            &[("content-type", "application/json")],
            Body::from(r#"{"path": "/tmp/big.bin", "num_parts": 3}"#),
        )
        .await;
    assert_eq!(r.status, 501, "{}", r.text);
    assert_eq!(
        r.body,
        json!({"error_code": "NOT_IMPLEMENTED",
               "message": "Multipart upload is not supported for the current artifact repository"})
    );
    let r = fx.send(&fx.editor, "POST", &uri, Body::from("{}")).await;
    assert_eq!(r.status, 400, "{}", r.text);
    let r = fx.send(&fx.reader, "POST", &uri, Body::from("{}")).await;
    assert_eq!(r.status, 403);
}
