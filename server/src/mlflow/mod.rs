//! The MLflow tracking REST dialect (`/api/2.0/mlflow/...`, mirrored under `/ajax-api/`).

use axum::Router;

use crate::AppState;

/// Routes of the MLflow dialect, relative to `/api/2.0/mlflow`.
pub fn routes() -> Router<AppState> {
    Router::new()
}
