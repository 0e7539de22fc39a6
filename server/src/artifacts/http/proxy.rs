//! MLflow's artifact proxy (`mlflow server --serve-artifacts`), wire-compatible with
//! mlflow 3.17.2, under `/api/2.0/mlflow-artifacts` and `/ajax-api/2.0/mlflow-artifacts`:
//! upload (PUT, streamed), download (GET, streamed, `Range`), list, delete, and the
//! multipart-upload endpoints, which answer 501 `NOT_IMPLEMENTED` with MLflow's message as
//! MLflow's server does over a local artifact root, so the stock client falls back to a
//! streamed PUT. Every route names its path's experiment ([`super::access`]).

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::TryStreamExt;
use serde_json::{json, Value};

use super::access::{ArtifactGuard, EDIT, READ};
use super::download::{attachment, mlflow_mime_type, requested_range, respond, unsatisfiable};
use crate::artifacts::{Listing, StoreError};
use crate::error::MlflowError;
use crate::routes::{mlflow_method_not_allowed, Access, Dialect, Route};
use crate::{AppState, Error};

/// Body limit of the JSON requests of the multipart endpoints (uploads are limited by
/// `AppState::max_artifact_bytes` as they stream).
pub(crate) const BODY_LIMIT: usize = 1024 * 1024;

/// MLflow's message when the artifact repository has no multipart upload; the client
/// falls back to a plain PUT when the message starts with it.
pub(crate) const MPU_UNSUPPORTED: &str =
    "Multipart upload is not supported for the current artifact repository";

/// The artifact proxy's routes.
pub(crate) fn dialect() -> Dialect {
    use api_types::Level::{CanEdit as Edit, CanRead as Read};
    let a = Access::Artifact;
    Dialect {
        prefixes: &[
            "/api/2.0/mlflow-artifacts",
            "/ajax-api/2.0/mlflow-artifacts",
        ],
        routes: vec![
            Route::get("/artifacts", a(Read), list),
            Route::get("/artifacts/{*path}", a(Read), download),
            Route::put("/artifacts/{*path}", a(Edit), upload),
            Route::delete("/artifacts/{*path}", a(Edit), delete),
            Route::post("/mpu/create/{*path}", a(Edit), multipart),
            Route::post("/mpu/complete/{*path}", a(Edit), multipart),
            Route::post("/mpu/abort/{*path}", a(Edit), multipart),
        ],
        body_limit: BODY_LIMIT,
        finish: mlflow_method_not_allowed,
    }
}

/// A storage error as the MLflow dialect answers it: 413 over the size limit, 416 for a
/// bad range, else MLflow's `{error_code, message}` with the error's status.
pub(crate) fn store_error(e: StoreError) -> Response {
    match e {
        StoreError::TooLarge { .. } => too_large(&e.to_string()),
        StoreError::BadRange { size } => unsatisfiable(size),
        other => MlflowError(other.into()).into_response(),
    }
}

fn too_large(message: &str) -> Response {
    let body = json!({"error_code": "RESOURCE_EXHAUSTED", "message": message});
    (StatusCode::PAYLOAD_TOO_LARGE, Json(body)).into_response()
}

/// `GET /artifacts?path=`: one folder level, MLflow's way: basenames, folders without
/// `file_size`; a file or a missing path lists as `{}`.
async fn list(State(s): State<AppState>, g: ArtifactGuard<READ>) -> Response {
    let entries = match s.artifacts.list(&g.path).await {
        Ok(Listing::Dir(entries)) => entries,
        Ok(Listing::File { .. } | Listing::Missing) => Vec::new(),
        Err(e) => return store_error(e),
    };
    if entries.is_empty() {
        return Json(json!({})).into_response();
    }
    let files: Vec<Value> = entries
        .into_iter()
        .map(|e| match e.size {
            Some(size) if !e.is_dir => json!({"path": e.name, "is_dir": false, "file_size": size}),
            _ => json!({"path": e.name, "is_dir": true}),
        })
        .collect();
    Json(json!({ "files": files })).into_response()
}

/// `GET /artifacts/{path}`: the file as an attachment, streamed (`Range` honoured).
async fn download(State(s): State<AppState>, g: ArtifactGuard<READ>, h: HeaderMap) -> Response {
    let name = g.path.file_name().unwrap_or("artifact").to_owned();
    match s.artifacts.get(&g.path, requested_range(&h)).await {
        Ok(obj) => respond(obj, &mlflow_mime_type(&name), Some(attachment(&name))),
        Err(e) => store_error(e),
    }
}

/// `PUT /artifacts/{path}`: stores the body, streamed and atomically.
async fn upload(
    State(s): State<AppState>,
    g: ArtifactGuard<EDIT>,
    h: HeaderMap,
    body: Body,
) -> Response {
    // A file needs a folder of an experiment: `<experiment id>/<name>` at least.
    if g.path.segments().count() < 2 {
        return MlflowError(Error::InvalidParameter("Invalid path".into())).into_response();
    }
    let limit = s.max_artifact_bytes;
    let declared = h
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit) {
        return store_error(StoreError::TooLarge { limit });
    }
    let stream = body.into_data_stream().map_err(std::io::Error::other);
    match s.artifacts.put(&g.path, Box::pin(stream), limit).await {
        Ok(_) => Json(json!({})).into_response(),
        Err(e) => store_error(e),
    }
}

/// `DELETE /artifacts/{path}`: the file or folder (nothing there is fine).
async fn delete(State(s): State<AppState>, g: ArtifactGuard<EDIT>) -> Response {
    match s.artifacts.delete(&g.path).await {
        Ok(()) => Json(json!({})).into_response(),
        Err(e) => store_error(e),
    }
}

/// `POST /mpu/{create,complete,abort}/{path}`: MLflow checks the message (`path` is
/// required), then answers that the repository has no multipart upload.
async fn multipart(_g: ArtifactGuard<EDIT>, body: Body) -> Response {
    let bytes = match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(b) => b,
        Err(_) => {
            let e = Error::BadRequest("Request body too large for this endpoint.".into());
            return MlflowError(e).into_response();
        }
    };
    let msg: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if !msg.get("path").is_some_and(Value::is_string) {
        let e = Error::InvalidParameter(
            "Missing value for required parameter 'path'. See the API docs for more \
             information about request parameters."
                .into(),
        );
        return MlflowError(e).into_response();
    }
    let body = json!({"error_code": "NOT_IMPLEMENTED", "message": MPU_UNSUPPORTED});
    (StatusCode::NOT_IMPLEMENTED, Json(body)).into_response()
}
