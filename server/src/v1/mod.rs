//! The app's JSON API (`/api/v1/...`): pages' data in one round trip, downsampled series.

use axum::Router;

use crate::AppState;

/// Routes of the app API, relative to `/api/v1`.
pub fn routes() -> Router<AppState> {
    Router::new()
}
