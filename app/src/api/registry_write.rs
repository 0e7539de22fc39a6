//! Model registry writes through MLflow's own endpoints under `/ajax-api/2.0/mlflow/`:
//! a registered model's description, tags and aliases, and a version's description, tags
//! and stage. The server enforces the registry grants as MLflow's auth does (CAN_EDIT;
//! deleting an alias or a version's tag needs CAN_MANAGE); a failure carries MLflow's
//! message.

use gloo_net::http::Method;
use serde_json::json as body;

use super::http::{mlflow_write, ApiError};

/// Sets a registered model's description (`PATCH registered-models/update`).
pub async fn set_model_description(name: String, description: String) -> Result<(), ApiError> {
    mlflow_write(
        Method::PATCH,
        "registered-models/update",
        &body!({ "name": name, "description": description }),
    )
    .await
}

/// Sets a registered model's tag (`POST registered-models/set-tag`).
pub async fn set_model_tag(name: String, key: String, value: String) -> Result<(), ApiError> {
    mlflow_write(
        Method::POST,
        "registered-models/set-tag",
        &body!({ "name": name, "key": key, "value": value }),
    )
    .await
}

/// Deletes a registered model's tag (`DELETE registered-models/delete-tag`).
pub async fn delete_model_tag(name: String, key: String) -> Result<(), ApiError> {
    mlflow_write(
        Method::DELETE,
        "registered-models/delete-tag",
        &body!({ "name": name, "key": key }),
    )
    .await
}

/// Points `alias` at `version` (`POST registered-models/alias`).
pub async fn set_alias(name: String, alias: String, version: String) -> Result<(), ApiError> {
    mlflow_write(
        Method::POST,
        "registered-models/alias",
        &body!({ "name": name, "alias": alias, "version": version }),
    )
    .await
}

/// Deletes `alias` (`DELETE registered-models/alias`).
pub async fn delete_alias(name: String, alias: String) -> Result<(), ApiError> {
    mlflow_write(
        Method::DELETE,
        "registered-models/alias",
        &body!({ "name": name, "alias": alias }),
    )
    .await
}

/// Sets a version's description (`PATCH model-versions/update`).
pub async fn set_version_description(
    name: String,
    version: String,
    description: String,
) -> Result<(), ApiError> {
    mlflow_write(
        Method::PATCH,
        "model-versions/update",
        &body!({ "name": name, "version": version, "description": description }),
    )
    .await
}

/// Sets a version's tag (`POST model-versions/set-tag`).
pub async fn set_version_tag(
    name: String,
    version: String,
    key: String,
    value: String,
) -> Result<(), ApiError> {
    mlflow_write(
        Method::POST,
        "model-versions/set-tag",
        &body!({ "name": name, "version": version, "key": key, "value": value }),
    )
    .await
}

/// Deletes a version's tag (`DELETE model-versions/delete-tag`).
pub async fn delete_version_tag(
    name: String,
    version: String,
    key: String,
) -> Result<(), ApiError> {
    mlflow_write(
        Method::DELETE,
        "model-versions/delete-tag",
        &body!({ "name": name, "version": version, "key": key }),
    )
    .await
}

/// Moves a version to `stage` (`POST model-versions/transition-stage`).
pub async fn transition_stage(
    name: String,
    version: String,
    stage: String,
    archive_existing_versions: bool,
) -> Result<(), ApiError> {
    mlflow_write(
        Method::POST,
        "model-versions/transition-stage",
        &body!({
            "name": name,
            "version": version,
            "stage": stage,
            "archive_existing_versions": archive_existing_versions,
        }),
    )
    .await
}
