//! The app API's Artifacts tab routes: listing, file (headers, Range), zip, MLmodel.

use std::io::Read;

use axum::body::Body;
use serde_json::json;

use super::Fx;

#[tokio::test]
async fn lists_a_folder_level_with_run_relative_paths() {
    let fx = Fx::new().await;
    fx.put("b.txt", "bb").await;
    fx.put("a/x.txt", "x").await;
    let uri = format!("/api/v1/runs/{}/artifacts", fx.run);
    let r = fx.send(&fx.reader, "GET", &uri, Body::empty()).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.body,
        json!({"root_uri": format!("mlflow-artifacts:/{}/{}/artifacts", fx.exp, fx.run),
               "path": "",
               "entries": [{"path": "a", "is_dir": true, "size": null},
                           {"path": "b.txt", "is_dir": false, "size": 2}],
               "next_page_token": null})
    );
    let r = fx
        .send(&fx.reader, "GET", &format!("{uri}?path=a"), Body::empty())
        .await;
    assert_eq!(
        r.body["entries"],
        json!([{"path": "a/x.txt", "is_dir": false, "size": 1}])
    );
    let r = fx
        .send(
            &fx.reader,
            "GET",
            &format!("{uri}?path=b.txt"),
            Body::empty(),
        )
        .await;
    assert_eq!(
        r.body["entries"],
        json!([{"path": "b.txt", "is_dir": false, "size": 2}])
    );
    let r = fx
        .send(
            &fx.reader,
            "GET",
            &format!("{uri}?path=nope"),
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 404);
    let r = fx
        .send(
            &fx.reader,
            "GET",
            &format!("{uri}?path=../x"),
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 400);
    let r = fx.send(&fx.stranger, "GET", &uri, Body::empty()).await;
    assert_eq!(r.status, 403);
}

#[tokio::test]
async fn a_big_folder_lists_in_pages() {
    let fx = Fx::new().await;
    let dir = fx.root().join(&fx.exp).join(&fx.run).join("artifacts/many");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..1_205 {
        std::fs::write(dir.join(format!("f{i:05}.txt")), "x").unwrap();
    }
    let uri = format!("/api/v1/runs/{}/artifacts?path=many", fx.run);
    let r = fx.send(&fx.reader, "GET", &uri, Body::empty()).await;
    assert_eq!(r.body["entries"].as_array().unwrap().len(), 1_000);
    let token = r.body["next_page_token"]
        .as_str()
        .expect("token")
        .to_owned();
    let r = fx
        .send(
            &fx.reader,
            "GET",
            &format!("{uri}&page_token={token}"),
            Body::empty(),
        )
        .await;
    let entries = r.body["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 205);
    assert_eq!(entries[204]["path"], "many/f01204.txt");
    assert!(r.body["next_page_token"].is_null());
}

#[tokio::test]
async fn files_are_served_safely_with_ranges() {
    let fx = Fx::new().await;
    let svg = r#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#;
    fx.put("img/evil.svg", svg).await;
    fx.put("page.html", "<script>alert(1)</script>").await;
    fx.put("log.txt", "0123456789").await;
    let file = |p: &str| format!("/api/v1/runs/{}/artifacts/file?path={p}", fx.run);

    let r = fx
        .send(&fx.reader, "GET", &file("img/evil.svg"), Body::empty())
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), "image/svg+xml");
    assert_eq!(r.header("x-content-type-options"), "nosniff");
    let csp = r.header("content-security-policy");
    assert!(
        csp.starts_with("sandbox") && csp.contains("default-src 'none'"),
        "{csp}"
    );
    assert!(!csp.contains("script-src"), "{csp}");
    assert_eq!(r.header("content-disposition"), "");

    let r = fx
        .send(&fx.reader, "GET", &file("page.html"), Body::empty())
        .await;
    assert_eq!(r.header("content-type"), "text/plain; charset=utf-8");
    assert!(r.header("content-security-policy").starts_with("sandbox"));

    let r = fx
        .send(
            &fx.reader,
            "GET",
            &format!("{}&download=1", file("log.txt")),
            Body::empty(),
        )
        .await;
    assert_eq!(
        r.header("content-disposition"),
        "attachment; filename=log.txt"
    );

    let r = fx
        .send_with(
            &fx.reader,
            "GET",
            &file("log.txt"),
            &[("range", "bytes=2-5")],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 206);
    assert_eq!(r.text, "2345");
    assert_eq!(r.header("content-range"), "bytes 2-5/10");
    let r = fx
        .send_with(
            &fx.reader,
            "GET",
            &file("log.txt"),
            &[("range", "bytes=-3")],
            Body::empty(),
        )
        .await;
    assert_eq!((r.status.as_u16(), r.text.as_str()), (206, "789"));
    let r = fx
        .send_with(
            &fx.reader,
            "GET",
            &file("log.txt"),
            &[("range", "bytes=50-")],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 416);
    assert_eq!(r.header("content-range"), "bytes */10");
    // Gzip is never applied to stored bytes (ranges must address the file itself).
    fx.put("big.txt", "a".repeat(10_000)).await;
    let r = fx
        .send_with(
            &fx.reader,
            "GET",
            &file("big.txt"),
            &[("accept-encoding", "gzip")],
            Body::empty(),
        )
        .await;
    assert_eq!(r.header("content-encoding"), "");
    assert_eq!(r.text.len(), 10_000);

    let r = fx
        .send(&fx.reader, "GET", &file("nope.txt"), Body::empty())
        .await;
    assert_eq!(r.status, 404);
    let r = fx
        .send(&fx.stranger, "GET", &file("log.txt"), Body::empty())
        .await;
    assert_eq!(r.status, 403);
}

#[tokio::test]
async fn a_folder_downloads_as_a_streamed_zip() {
    let fx = Fx::new().await;
    fx.put("model/MLmodel", "flavors: {}\n").await;
    fx.put("model/data/weights.bin", vec![3u8; 200_000]).await;
    fx.put("other.txt", "not in the zip").await;
    let uri = format!("/api/v1/runs/{}/artifacts/zip?path=model", fx.run);
    let r = fx.send(&fx.reader, "GET", &uri, Body::empty()).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), "application/zip");
    assert_eq!(
        r.header("content-disposition"),
        "attachment; filename=model.zip"
    );
    assert_eq!(
        r.header("content-length"),
        "",
        "streamed, not built in memory"
    );
    let bytes = {
        let req = axum::http::Request::get(&uri)
            .header("authorization", format!("Bearer {}", fx.reader))
            .header("accept-encoding", "gzip")
            .body(Body::empty())
            .unwrap();
        let resp = tower::ServiceExt::oneshot(fx.router.clone(), req)
            .await
            .unwrap();
        assert!(resp.headers().get("content-encoding").is_none());
        http_body_util::BodyExt::collect(resp.into_body())
            .await
            .unwrap()
            .to_bytes()
    };
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).expect("a zip");
    let mut names: Vec<String> = zip.file_names().map(|n| n.unwrap().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["MLmodel", "data/weights.bin"]);
    let mut w = Vec::new();
    zip.by_name("data/weights.bin")
        .unwrap()
        .read_to_end(&mut w)
        .unwrap();
    assert_eq!(w, vec![3u8; 200_000]);
    let r = fx
        .send(
            &fx.reader,
            "GET",
            &format!("/api/v1/runs/{}/artifacts/zip?path=nope", fx.run),
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn mlmodel_summary() {
    let fx = Fx::new().await;
    let mlmodel =
        "flavors:\n  python_function:\n    loader_module: mlflow.sklearn\n  sklearn: {}\n\
                   mlflow_version: 3.17.2\nrun_id: r1\n\
                   signature:\n  inputs: '[{\"type\": \"double\", \"name\": \"x\"}]'\n";
    fx.put("model/MLmodel", mlmodel).await;
    fx.put(
        "model/requirements.txt",
        "mlflow==3.17.2\n# comment\nscikit-learn\n",
    )
    .await;
    for p in ["model", "model/MLmodel"] {
        let uri = format!("/api/v1/runs/{}/artifacts/mlmodel?path={p}", fx.run);
        let r = fx.send(&fx.reader, "GET", &uri, Body::empty()).await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert_eq!(r.body["path"], "model/MLmodel");
        assert_eq!(r.body["flavors"], json!(["python_function", "sklearn"]));
        assert_eq!(r.body["signature_inputs"], json!(["x: double"]));
        assert_eq!(
            r.body["requirements"],
            json!(["mlflow==3.17.2", "scikit-learn"])
        );
    }
    let uri = format!("/api/v1/runs/{}/artifacts/mlmodel?path=nope", fx.run);
    let r = fx.send(&fx.reader, "GET", &uri, Body::empty()).await;
    assert_eq!(r.status, 404);
}
