//! MLflow 3's logged models, dataset inputs and model inputs/outputs of runs: the MLflow
//! endpoints (shapes and error codes, as MLflow 3.17.2 answers), the app API's
//! `/runs/{id}/io` and `/logged-models/{id}`, and who may do what.

mod access;
mod app;
mod inputs;
mod logged;
mod search;

use serde_json::{json, Value};

use crate::helpers::TestApp;

/// Creates a logged model as the administrator with `body` (plus `experiment_id`);
/// returns its `model` object.
pub async fn create(app: &TestApp, experiment_id: &str, body: Value) -> Value {
    let mut body = body;
    body["experiment_id"] = json!(experiment_id);
    app.ok("/logged-models", body).await["model"].clone()
}

/// The id of a `model` object.
pub fn id(model: &Value) -> String {
    model["info"]["model_id"]
        .as_str()
        .expect("model id")
        .to_string()
}

/// `method /api/2.0/mlflow{path}` as the administrator with an optional JSON body.
pub async fn call(app: &TestApp, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let uri = format!("/api/2.0/mlflow{path}");
    app.call_as(&app.admin_token, method, &uri, body).await
}
