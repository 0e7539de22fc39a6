//! runlens server: the MLflow tracking REST dialect, the app's JSON API, and the built app
//! served with an SPA fallback. `app(state)` builds the real router (tests use it too).

pub mod auth;
pub mod demo;
pub mod error;
pub mod mlflow;
pub mod permissions;
pub mod spa;
pub mod store;
pub mod tracking;
pub mod util;
pub mod v1;

use std::path::PathBuf;

use axum::routing::get;
use axum::Router;

pub use error::Error;
pub use store::Store;

/// Shared state of every handler.
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub store: Store,
}

impl AppState {
    /// State over `store` with default settings (tests and start-up both build it this way,
    /// so new fields need no change at every call site).
    pub fn new(store: Store) -> Self {
        AppState { store }
    }
}

/// Where the built app (Trunk's `dist/`) lives; `None` serves the APIs only.
#[derive(Clone, Debug, Default)]
pub struct StaticConfig {
    /// Directory holding `index.html` and the wasm bundle.
    pub dist_dir: Option<PathBuf>,
}

/// The whole router: both API dialects, health, and the app.
pub fn app(state: AppState, statics: &StaticConfig) -> Router {
    let mlflow = mlflow::routes();
    let api = Router::new()
        .nest("/api/2.0/mlflow", mlflow.clone())
        .nest("/ajax-api/2.0/mlflow", mlflow)
        .nest("/api/v1", v1::routes())
        .route("/health", get(|| async { "OK" }))
        .route("/version", get(|| async { env!("CARGO_PKG_VERSION") }))
        .with_state(state);
    spa::with_app(api, statics)
}
