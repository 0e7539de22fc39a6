//! Artifact paths the storage cannot hold (a segment over 255 bytes, a path over 1024) are
//! a 400 on every artifact route, MLflow's `INVALID_PARAMETER_VALUE` on its dialect, never
//! the storage's 500.

use axum::body::Body;

use super::Fx;
use crate::helpers::Resp;

/// A segment one byte over the limit of one file name.
fn long_segment() -> String {
    "n".repeat(256)
}

/// Asserts a 400 that names the limit (and MLflow's error code when `mlflow`).
fn assert_refused(what: &str, r: &Resp, mlflow: bool, limit: &str) {
    assert_eq!(r.status, 400, "{what}: {}", r.text);
    if mlflow {
        assert_eq!(r.body["error_code"], "INVALID_PARAMETER_VALUE", "{what}");
    }
    let message = r.body["message"].as_str().unwrap_or("");
    assert!(message.contains(limit), "{what}: {message:?}");
}

#[tokio::test]
async fn a_segment_over_255_bytes_is_a_400_on_every_route() {
    let fx = Fx::new().await;
    fx.put("ok.txt", "x").await;
    let model = fx
        .json(
            "POST",
            "/api/2.0/mlflow/logged-models",
            &format!(r#"{{"experiment_id": "{}"}}"#, fx.exp),
        )
        .await["model"]["info"]["model_id"]
        .as_str()
        .expect("model id")
        .to_owned();
    // A file in the model's folder too: under a missing folder, the file system answers
    // "no such file" before it measures the name.
    let model_dir = format!("{}/models/{model}/artifacts", fx.exp);
    let put = format!("/api/2.0/mlflow-artifacts/artifacts/{model_dir}/ok.txt");
    let r = fx.send(&fx.admin, "PUT", &put, Body::from("m")).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let long = long_segment();
    let run_dir = format!("{}/{}/artifacts", fx.exp, fx.run);
    let proxy = [
        ("PUT", fx.run_uri(&format!("{long}/f.txt"))),
        ("PUT", fx.run_uri(&long)),
        ("GET", fx.run_uri(&long)),
        ("DELETE", fx.run_uri(&long)),
        (
            "GET",
            format!("/api/2.0/mlflow-artifacts/artifacts?path={run_dir}/{long}"),
        ),
        (
            "GET",
            format!(
                "/api/2.0/mlflow/artifacts/list?run_id={}&path={long}",
                fx.run
            ),
        ),
        (
            "GET",
            format!(
                "/api/2.0/mlflow/logged-models/{model}/artifacts/directories\
                 ?artifact_directory_path={long}"
            ),
        ),
    ];
    for (method, uri) in &proxy {
        let r = fx.send(&fx.admin, method, uri, Body::from("x")).await;
        assert_refused(&format!("{method} {uri}"), &r, true, "255");
    }
    let mut app = Vec::new();
    for owner in [format!("runs/{}", fx.run), format!("logged-models/{model}")] {
        for route in ["", "/file", "/zip", "/mlmodel"] {
            app.push(format!(
                "/api/v1/{owner}/artifacts{route}?path={long}/f.txt"
            ));
        }
    }
    for uri in &app {
        let r = fx.send(&fx.reader, "GET", uri, Body::empty()).await;
        assert_refused(&format!("GET {uri}"), &r, false, "255");
    }
    // Nothing was written, and what was there is still served.
    let mut kept = [format!("{model_dir}/ok.txt"), format!("{run_dir}/ok.txt")];
    kept.sort();
    assert_eq!(super::files_under(&fx.root()), kept);
    let r = fx
        .send(&fx.reader, "GET", &fx.run_uri("ok.txt"), Body::empty())
        .await;
    assert_eq!((r.status.as_u16(), r.text.as_str()), (200, "x"));
}

#[tokio::test]
async fn a_path_over_1024_bytes_is_a_400() {
    let fx = Fx::new().await;
    // Every segment is short enough; together they are not.
    let deep = vec!["d".repeat(200); 6].join("/");
    for method in ["PUT", "GET", "DELETE"] {
        let r = fx
            .send(&fx.admin, method, &fx.run_uri(&deep), Body::from("x"))
            .await;
        assert_refused(method, &r, true, "1024");
    }
    // Short enough alone, too long under the run's artifact folder.
    let near = vec!["d".repeat(200); 5].join("/");
    let uri = format!("/api/v1/runs/{}/artifacts/file?path={near}", fx.run);
    let r = fx.send(&fx.reader, "GET", &uri, Body::empty()).await;
    assert_refused("app file", &r, false, "1024");
    assert!(super::files_under(&fx.root()).is_empty());
}
