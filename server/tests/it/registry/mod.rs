//! The model registry: registered models and versions over the MLflow dialect (CRUD,
//! rename, aliases, stages, search and pages, MLflow's error codes), registered-model
//! grants, and the app API's Models routes.

mod app_api;
mod grants;
mod models;
mod search;
mod versions;

use serde_json::{json, Value};

use crate::helpers::TestApp;

/// `method /api/2.0/mlflow{path}` as the administrator; (status, body).
pub async fn admin(app: &TestApp, method: &str, path: &str, body: Value) -> (u16, Value) {
    let uri = format!("/api/2.0/mlflow{path}");
    let body = (method != "GET").then_some(body);
    app.call_as(&app.admin_token, method, &uri, body).await
}

/// `method /api/2.0/mlflow{path}` as the administrator; must answer 200.
pub async fn ok(app: &TestApp, method: &str, path: &str, body: Value) -> Value {
    let (status, v) = admin(app, method, path, body).await;
    assert_eq!(status, 200, "{method} {path}: {v}");
    v
}

/// Asserts an MLflow error: status, `error_code` and a part of the message.
pub fn err(got: &(u16, Value), status: u16, code: &str, part: &str) {
    assert_eq!(got.0, status, "{}", got.1);
    assert_eq!(got.1["error_code"], code, "{}", got.1);
    let message = got.1["message"].as_str().unwrap_or("");
    assert!(message.contains(part), "{message:?} lacks {part:?}");
}

/// Creates registered model `name` as the administrator.
pub async fn model(app: &TestApp, name: &str) {
    ok(
        app,
        "POST",
        "/registered-models/create",
        json!({"name": name}),
    )
    .await;
}

/// A run in a fresh experiment `exp`; returns (experiment id, run id).
pub async fn run_in(app: &TestApp, exp: &str) -> (String, String) {
    let e = app.experiment(exp).await;
    let r = app.run(&e, "trainer").await;
    (e, r)
}

/// Registers `runs:/<run>/model` as the next version of `name`; returns its version.
pub async fn version_of_run(app: &TestApp, name: &str, run: &str) -> String {
    let body = json!({"name": name, "source": format!("runs:/{run}/model"), "run_id": run});
    let v = ok(app, "POST", "/model-versions/create", body).await;
    v["model_version"]["version"]
        .as_str()
        .expect("version")
        .to_string()
}
