//! Artifacts of the matrix fixture: in the fixture run, `secret-dir/secret.txt` and
//! `model/MLmodel`; a logged model `{amodel}` of the fixture experiment with an `MLmodel`.

use axum::http::StatusCode;
use axum::Router;

use super::fixture::{send, Template};

/// An `MLmodel` with one flavor.
pub const MLMODEL: &str =
    "flavors:\n  python_function:\n    loader_module: secret_module\nmlflow_version: 3.17.2\n";

/// Uploads the fixture's artifacts as `admin` and records their ids in `t.extra`.
pub async fn seed(t: &mut Template, app: &Router, admin: &str) {
    let put = |path: String, body: &'static str| {
        let app = app.clone();
        async move {
            let uri = format!("/api/2.0/mlflow-artifacts/artifacts/{path}");
            let (status, v) = send(&app, "PUT", &uri, Some(body.to_owned()), Some(admin)).await;
            assert_eq!(status, StatusCode::OK, "PUT {uri}: {v}");
        }
    };
    let run_root = format!("{}/{}/artifacts", t.exp, t.run);
    put(format!("{run_root}/secret-dir/secret.txt"), "secret text").await;
    put(format!("{run_root}/model/MLmodel"), MLMODEL).await;
    let body = serde_json::json!({"experiment_id": t.exp, "name": "secret-model"});
    let (status, v) = send(
        app,
        "POST",
        "/api/2.0/mlflow/logged-models",
        Some(body.to_string()),
        Some(admin),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "create logged model: {v}");
    let model = v["model"]["info"]["model_id"]
        .as_str()
        .expect("model id")
        .to_owned();
    let uri = v["model"]["info"]["artifact_uri"].as_str().expect("uri");
    let path = uri.strip_prefix("mlflow-artifacts:/").expect("proxied uri");
    put(format!("{path}/MLmodel"), MLMODEL).await;
    t.extra.push(("amodel", model));
}
