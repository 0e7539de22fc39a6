//! Serves the built app: real files from `dist/`, and `index.html` for any other path
//! outside the APIs so deep links reload. Unknown API paths stay 404.

use axum::http::StatusCode;
use axum::routing::any;
use axum::Router;
use tower_http::services::{ServeDir, ServeFile};

use crate::StaticConfig;

/// Path prefixes that belong to an API and must never fall back to `index.html`.
const API_PREFIXES: [&str; 4] = ["/api/", "/ajax-api/", "/health", "/version"];

/// Adds the app (when configured) and the 404 handling for unknown API paths.
pub fn with_app(api: Router, statics: &StaticConfig) -> Router {
    let not_found = || async { (StatusCode::NOT_FOUND, "no such API route") };
    let api = API_PREFIXES
        .iter()
        .filter(|p| p.ends_with('/'))
        .fold(api, |r, p| {
            r.route(&format!("{p}{{*rest}}"), any(not_found))
        });
    match &statics.dist_dir {
        Some(dist) => {
            let index = ServeFile::new(dist.join("index.html"));
            api.fallback_service(ServeDir::new(dist).fallback(index))
        }
        None => api.fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                "the app is not built; run `make run` to build and serve it",
            )
        }),
    }
}
