//! Model calls: a run's inputs and outputs, a logged model, and the model registry.

use api_types::models::{LoggedModelDetail, RegisteredModelDetail, RegisteredModelList, RunIo};

use super::http::{get, url, ApiError};
use crate::query::encode_component;

/// `GET /api/v1/runs/{id}/io`: the run's dataset inputs and logged models.
pub async fn get_run_io(run_id: String) -> Result<RunIo, ApiError> {
    get(&format!("/api/v1/runs/{}/io", encode_component(&run_id))).await
}

/// `GET /api/v1/logged-models/{id}`.
pub async fn get_logged_model(model_id: String) -> Result<LoggedModelDetail, ApiError> {
    get(&format!(
        "/api/v1/logged-models/{}",
        encode_component(&model_id)
    ))
    .await
}

/// `GET /api/v1/registered-models?q=&page_token=`: the registered models the caller may
/// read whose name contains `q`.
pub async fn list_registered_models(
    q: String,
    page_token: Option<String>,
) -> Result<RegisteredModelList, ApiError> {
    let mut pairs = Vec::new();
    if !q.is_empty() {
        pairs.push(("q", q));
    }
    pairs.extend(page_token.map(|t| ("page_token", t)));
    get(&url("/api/v1/registered-models", pairs)).await
}

/// `GET /api/v1/registered-models/{name}`: the model and its versions, newest first.
pub async fn get_registered_model(name: String) -> Result<RegisteredModelDetail, ApiError> {
    get(&format!(
        "/api/v1/registered-models/{}",
        encode_component(&name)
    ))
    .await
}
