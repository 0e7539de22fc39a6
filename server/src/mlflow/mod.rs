//! The MLflow tracking REST dialect (`/api/2.0/mlflow/...`, mirrored under `/ajax-api/`):
//! MLflow's paths, JSON shapes, error codes and limits over the `tracking` domain.

mod experiments;
mod fields;
mod logging;
mod metrics;
mod permissions;
mod policy;
pub mod request;
mod runs;
mod wire;

use axum::http::StatusCode;
use axum::routing::{any, get, post};
use axum::{Json, Router};
use rusqlite::Connection;
use serde_json::json;

use crate::{tracking, AppState, Error};
use fields::Fields;

/// Routes of the MLflow dialect, relative to `/api/2.0/mlflow`.
pub fn routes() -> Router<AppState> {
    use experiments as e;
    use runs as r;
    Router::new()
        .route("/experiments/create", post(e::create_experiment))
        .route("/experiments/get", get(e::get_experiment))
        .route("/experiments/get-by-name", get(e::get_experiment_by_name))
        .route("/experiments/search", get(e::search_experiments).post(e::search_experiments))
        .route("/experiments/update", post(e::update_experiment))
        .route("/experiments/delete", post(e::delete_experiment))
        .route("/experiments/restore", post(e::restore_experiment))
        .route("/experiments/set-experiment-tag", post(e::set_experiment_tag))
        .route("/experiments/delete-experiment-tag", post(e::delete_experiment_tag))
        .route("/runs/create", post(r::create_run))
        .route("/runs/get", get(r::get_run))
        .route("/runs/update", post(r::update_run))
        .route("/runs/delete", post(r::delete_run))
        .route("/runs/restore", post(r::restore_run))
        .route("/runs/search", post(r::search_runs))
        .route("/runs/log-metric", post(logging::log_metric))
        .route("/runs/log-parameter", post(logging::log_param))
        .route("/runs/set-tag", post(logging::set_tag))
        .route("/runs/delete-tag", post(logging::delete_tag))
        .route("/runs/log-batch", post(logging::log_batch))
        .route("/runs/log-inputs", post(logging::log_inputs))
        .route("/metrics/get-history", get(metrics::get_metric_history))
        .route(
            "/metrics/get-history-bulk-interval",
            get(metrics::get_metric_history_bulk_interval),
        )
        .route("/logged-models/search", post(search_logged_models))
        .method_not_allowed_fallback(|| async {
            let body = json!({"error_code": "BAD_REQUEST", "message": "Method not allowed for this endpoint."});
            (StatusCode::METHOD_NOT_ALLOWED, Json(body))
        })
        // A route rather than a fallback: nested fallbacks lose to the app's `/api/{*rest}`.
        .route("/{*rest}", any(endpoint_not_found))
}

/// Any path under the MLflow prefix that names no endpoint.
async fn endpoint_not_found() -> (StatusCode, Json<serde_json::Value>) {
    let body = json!({"error_code": "ENDPOINT_NOT_FOUND", "message": "No such MLflow endpoint."});
    (StatusCode::NOT_FOUND, Json(body))
}

/// Routes of MLflow 3's per-user permission endpoints, relative to `/api/3.0/mlflow` (and
/// `/ajax-api/3.0/mlflow`), as `mlflow.server.auth.client.AuthServiceClient` calls them.
pub fn routes_v3() -> Router<AppState> {
    use permissions as p;
    Router::new()
        .route("/users/permissions/grant", post(p::grant_user_permission))
        .route("/users/permissions/revoke", post(p::revoke_user_permission))
        .route("/users/permissions/get", get(p::get_user_permission))
}

/// `POST logged-models/search`: logged models are not supported, so there are none.
async fn search_logged_models(request::Msg(_f): request::Msg) -> Json<serde_json::Value> {
    Json(json!({}))
}

/// Reads `max_results` (absent or 0 = `default`); must be 1..=`max`.
fn max_results(f: &Fields, default: usize, max: usize) -> Result<usize, Error> {
    match f.opt_i64("max_results")? {
        None | Some(0) => Ok(default),
        Some(n) if n < 0 => Err(Error::InvalidParameter(format!(
            "Invalid value {n} for parameter 'max_results' supplied. It must be a positive integer"
        ))),
        Some(n) if n as u64 > max as u64 => Err(Error::InvalidParameter(format!(
            "Invalid value {n} for parameter 'max_results' supplied. It must be at most {max}"
        ))),
        Some(n) => Ok(n as usize),
    }
}

/// Runs `f` in one write transaction on the blocking pool.
async fn write<T, F>(s: &AppState, f: F) -> Result<T, Error>
where
    T: Send + 'static,
    F: FnOnce(&Connection) -> Result<T, Error> + Send + 'static,
{
    s.store.call(move |c| tracking::write(c, f)).await
}

/// Runs `f` in one read transaction on the blocking pool.
async fn read<T, F>(s: &AppState, f: F) -> Result<T, Error>
where
    T: Send + 'static,
    F: FnOnce(&Connection) -> Result<T, Error> + Send + 'static,
{
    s.store.call(move |c| tracking::read(c, f)).await
}
