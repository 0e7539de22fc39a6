//! runlens server: the MLflow tracking REST dialect, the app's JSON API, and the built app
//! served with an SPA fallback. `app(state)` builds the real router (tests use it too).

pub mod auth;
pub mod demo;
pub mod error;
pub mod headers;
pub mod mlflow;
pub mod permissions;
pub mod spa;
pub mod store;
pub mod tracking;
pub mod util;
pub mod v1;

use std::path::PathBuf;
use std::sync::Arc;

use axum::middleware::from_fn_with_state;
use axum::routing::get;
use axum::Router;
use tower_http::compression::CompressionLayer;

pub use error::Error;
pub use store::Store;

/// Shared state of every handler.
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub store: Store,
    /// Authentication settings, sign-in rate limiter and credential cache.
    pub auth: Arc<auth::AuthState>,
}

impl AppState {
    /// State over `store` with default settings (tests and start-up both build it this way,
    /// so new fields need no change at every call site).
    pub fn new(store: Store) -> Self {
        AppState {
            store,
            auth: Arc::new(auth::AuthState::default()),
        }
    }

    /// The same state with these authentication settings.
    pub fn with_auth_settings(self, settings: auth::AuthSettings) -> Self {
        AppState {
            auth: Arc::new(auth::AuthState::new(settings)),
            ..self
        }
    }
}

/// Where the built app (Trunk's `dist/`) lives; `None` serves the APIs only.
#[derive(Clone, Debug, Default)]
pub struct StaticConfig {
    /// Directory holding `index.html` and the wasm bundle.
    pub dist_dir: Option<PathBuf>,
    /// Origin allowed to frame `/embed/...` pages (`--embed-origin`); none by default.
    pub embed_origin: Option<String>,
}

/// The whole router: both API dialects, health, and the app; every `/api/` and
/// `/ajax-api/` route behind the authentication layer, every response with the security
/// headers and compressed when the client accepts gzip.
pub fn app(state: AppState, statics: &StaticConfig) -> Router {
    let mlflow = mlflow::routes().merge(auth::mlflow_users::routes());
    let api = Router::new()
        .nest("/api/2.0/mlflow", mlflow.clone())
        .nest("/ajax-api/2.0/mlflow", mlflow)
        .nest("/api/3.0/mlflow", mlflow::routes_v3())
        .nest("/ajax-api/3.0/mlflow", mlflow::routes_v3())
        .nest("/api/v1", v1::routes().merge(auth::routes()))
        .route("/health", get(|| async { "OK" }))
        .route("/version", get(|| async { env!("CARGO_PKG_VERSION") }))
        .with_state(state.clone());
    let index = statics.dist_dir.as_ref().map(|d| d.join("index.html"));
    let security = Arc::new(headers::SecurityHeaders::new(
        index,
        statics.embed_origin.as_deref(),
    ));
    spa::with_app(api, statics)
        .layer(from_fn_with_state(state, auth::middleware::authenticate))
        .layer(from_fn_with_state(security, headers::add_security_headers))
        // gzip for the wasm bundle and JSON (the runs page and series are mostly numbers);
        // tower-http skips tiny bodies, images and event streams by default.
        .layer(CompressionLayer::new())
}
