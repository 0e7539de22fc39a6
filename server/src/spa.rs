//! Serves the built app: real files from `dist/`, and `index.html` for any other path
//! outside the APIs so deep links reload. Unknown API paths stay 404 (the route table's
//! `/api/{*rest}` and `/ajax-api/{*rest}` catch-alls).

use axum::http::StatusCode;
use axum::Router;
use tower_http::services::{ServeDir, ServeFile};

use crate::StaticConfig;

/// Adds the app (when configured) as the fallback of `api`.
pub fn with_app(api: Router, statics: &StaticConfig) -> Router {
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
