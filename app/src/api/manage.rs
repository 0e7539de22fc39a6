//! Run and experiment management through MLflow's own endpoints under
//! `/ajax-api/2.0/mlflow/` (as MLflow's UI calls them): rename, tags, the description (tag
//! `mlflow.note.content`), delete and restore. The session cookie authenticates, the CSRF
//! header goes with every write, and the server enforces CAN_EDIT. A failure comes back in
//! MLflow's `{"error_code", "message"}` shape, read by [`super::mlflow_error`].

use gloo_net::http::Method;
use serde_json::json as body;

use super::http::{mlflow_write, ApiError};

/// The tag holding a run's or an experiment's Markdown description.
pub const NOTE_TAG: &str = "mlflow.note.content";

async fn post(endpoint: &str, b: serde_json::Value) -> Result<(), ApiError> {
    mlflow_write(Method::POST, endpoint, &b).await
}

/// Renames a run (`runs/update`).
pub async fn rename_run(run_id: String, name: String) -> Result<(), ApiError> {
    post("runs/update", body!({ "run_id": run_id, "run_name": name })).await
}

/// Sets a run's tag (`runs/set-tag`).
pub async fn set_run_tag(run_id: String, key: String, value: String) -> Result<(), ApiError> {
    post(
        "runs/set-tag",
        body!({ "run_id": run_id, "key": key, "value": value }),
    )
    .await
}

/// Deletes a run's tag (`runs/delete-tag`).
pub async fn delete_run_tag(run_id: String, key: String) -> Result<(), ApiError> {
    post("runs/delete-tag", body!({ "run_id": run_id, "key": key })).await
}

/// Marks a run deleted (`runs/delete`).
pub async fn delete_run(run_id: String) -> Result<(), ApiError> {
    post("runs/delete", body!({ "run_id": run_id })).await
}

/// Restores a deleted run (`runs/restore`).
pub async fn restore_run(run_id: String) -> Result<(), ApiError> {
    post("runs/restore", body!({ "run_id": run_id })).await
}

/// Renames an experiment (`experiments/update`).
pub async fn rename_experiment(experiment_id: String, name: String) -> Result<(), ApiError> {
    post(
        "experiments/update",
        body!({ "experiment_id": experiment_id, "new_name": name }),
    )
    .await
}

/// Sets an experiment's tag (`experiments/set-experiment-tag`).
pub async fn set_experiment_tag(
    experiment_id: String,
    key: String,
    value: String,
) -> Result<(), ApiError> {
    post(
        "experiments/set-experiment-tag",
        body!({ "experiment_id": experiment_id, "key": key, "value": value }),
    )
    .await
}
