//! runlens server: the MLflow tracking REST dialect, the app's JSON API, and the built app
//! served with an SPA fallback. [`app`] builds the real router over an [`AppState`] and a
//! [`StaticConfig`] (tests use it too); [`Store`] and [`Error`] are re-exported here.

pub(crate) mod app_api;
pub mod artifacts;
pub mod auth;
mod bus;
pub mod db;
pub mod demo;
pub mod downloads;
pub(crate) mod error;
pub(crate) mod grants;
pub mod headers;
pub mod jobs;
pub mod live;
pub mod logs;
pub(crate) mod mlflow;
pub mod models;
pub mod nodes;
pub mod permissions;
pub mod registry;
pub mod routes;
pub mod serve;
mod server_timing;
pub(crate) mod spa;
pub mod store;
pub mod tracking;
pub mod util;

use std::path::PathBuf;
use std::sync::Arc;

use std::time::Duration;

use axum::middleware::from_fn_with_state;
use axum::Router;
use tower_http::compression::predicate::{Predicate, SizeAbove};
use tower_http::compression::CompressionLayer;
use tower_http::timeout::RequestBodyTimeoutLayer;

pub use error::Error;
pub use store::Store;

/// Shared state of every handler.
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub store: Store,
    /// Authentication settings and the credential cache.
    pub auth: Arc<auth::AuthState>,
    /// GPU nodes: the agents' poller and caches, the embed links' secret.
    pub nodes: Arc<nodes::NodeService>,
    /// Where artifacts are stored (by default the folder `artifacts` beside the database).
    pub artifacts: Arc<dyn artifacts::ArtifactStore>,
    /// Largest artifact upload accepted, in bytes.
    pub max_artifact_bytes: u64,
    /// What the MLflow write endpoints commit, for the experiment pages' live streams.
    pub live: live::LiveBus,
    /// The streamed downloads each user has in progress (zips, logs), capped per user.
    pub downloads: Arc<downloads::Downloads>,
    /// The origin allowed to frame `/embed/...` pages, as [`app`] was given it in
    /// [`StaticConfig::embed_origin`] (embed links say whether they can be framed).
    pub embed_origin: Option<Arc<str>>,
}

impl AppState {
    /// State over `store` with default settings (tests and start-up both build it this way,
    /// so new fields need no change at every call site).
    ///
    /// Artifacts go to the folder `artifacts` beside the database file (made by the first
    /// upload); panics if leftover uploads there cannot be cleared (start-up uses
    /// [`AppState::with_artifacts`] and reports errors instead).
    pub fn new(store: Store) -> Self {
        let root = store
            .files_dir()
            .map(|dir| dir.join("artifacts"))
            .unwrap_or_else(|| std::env::temp_dir().join("runlens-artifacts"));
        let local = artifacts::LocalStore::at(&root)
            .unwrap_or_else(|e| panic!("artifact folder {}: {e}", root.display()));
        let live = live::LiveBus::for_store(&store);
        AppState {
            store,
            auth: Arc::new(auth::AuthState::default()),
            nodes: Arc::new(nodes::NodeService::default()),
            artifacts: Arc::new(local),
            max_artifact_bytes: artifacts::DEFAULT_MAX_UPLOAD,
            live,
            downloads: Arc::default(),
            embed_origin: None,
        }
    }

    /// The same state with this artifact store and upload cap (bytes).
    pub fn with_artifacts(self, store: Arc<dyn artifacts::ArtifactStore>, max_bytes: u64) -> Self {
        AppState {
            artifacts: store,
            max_artifact_bytes: max_bytes,
            ..self
        }
    }

    /// The same state with this GPU-node service (e.g. a poller trusting a private CA).
    pub fn with_nodes(self, nodes: nodes::NodeService) -> Self {
        AppState {
            nodes: Arc::new(nodes),
            ..self
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

/// Every dialect of the server, in mounting order: the route table.
pub(crate) fn dialects() -> Vec<routes::Dialect> {
    vec![
        mlflow::dialect(),
        mlflow::dialect_v3(),
        artifacts::http::proxy::dialect(),
        app_api::dialect(),
        routes::root_dialect(),
    ]
}

/// How long a client may take to send a request body once its headers have arrived.
pub(crate) const BODY_TIMEOUT: Duration = Duration::from_secs(60);

/// Smallest answer body worth compressing, in bytes: one below this fits in a packet or
/// two either way, and gzip's set-up (its window and tables, allocated and cleared per
/// answer) cost more CPU than the bytes it saved. Most MLflow write answers are this small.
const MIN_COMPRESSED: u64 = 1024;

/// The whole router: the route table of every dialect (each non-public route behind the
/// authentication layer) and the app; every response with the security headers, the
/// server's time (`Server-Timing`), and compressed when the client accepts gzip (the app's
/// files precompressed, see `spa`).
pub fn app(state: AppState, statics: &StaticConfig) -> Router {
    let state = AppState {
        embed_origin: statics.embed_origin.as_deref().map(Arc::from),
        ..state
    };
    let auth = state.auth.clone();
    let api = routes::mount(dialects(), &state).with_state(state);
    let index = statics.dist_dir.as_ref().map(|d| d.join("index.html"));
    let security = Arc::new(headers::SecurityHeaders::new(
        index,
        statics.embed_origin.as_deref(),
    ));
    spa::with_app(api, statics, auth)
        .layer(RequestBodyTimeoutLayer::new(BODY_TIMEOUT))
        .layer(from_fn_with_state(security, headers::add_security_headers))
        // Artifact downloads get a sandboxing CSP instead of the app's.
        .layer(axum::middleware::map_response(
            artifacts::http::download::apply_sandbox,
        ))
        // gzip for JSON (the runs page and series are mostly numbers); tower-http skips
        // images, event streams and answers already encoded, such as the app's files sent
        // from the build's brotli/gzip copies (spa.rs); bodies under MIN_COMPRESSED go as
        // they are.
        // Artifact downloads go out as stored (Range, and no gzip of a 1 GB model).
        .layer(
            CompressionLayer::new().compress_when(
                artifacts::http::download::CompressUnlessRaw::default()
                    .and(SizeAbove::new(MIN_COMPRESSED)),
            ),
        )
        // Outermost: the server's time to each response's headers, all layers included.
        .layer(axum::middleware::from_fn(server_timing::add))
}
