//! Serves the built app: real files from `dist/`, and `index.html` for any other path
//! outside the APIs so deep links reload. Unknown API paths stay 404 (the route table's
//! `/api/{*rest}` and `/ajax-api/{*rest}` catch-alls).
//!
//! Files go out precompressed when the build left `<file>.br` / `<file>.gz` beside them
//! (`scripts/precompress.mjs`, Trunk's post-build hook), chosen by `Accept-Encoding`.
//! Trunk's content-hashed files are cached for a year; everything else (`index.html`,
//! deep links, `public/`) is revalidated on each load so a new build is picked up.
//!
//! Offers [`with_app`] (the API router with the app's files and the fallback); the
//! encoding choice and cache rules stay inside.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use tower_http::services::{ServeDir, ServeFile};

use crate::auth::session_routes::SignedInHint;
use crate::auth::AuthState;
use crate::StaticConfig;

/// `Cache-Control` of a file whose name carries its content hash.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// `Cache-Control` of everything else the app serves: cache, but revalidate every time.
const REVALIDATE: &str = "no-cache";

/// Set to `0` to serve `dist/` as before precompression and caching (benchmark baseline).
const PLAIN_ENV: &str = "RUNLENS_STATIC_PRECOMPRESSED";

/// Adds the app (when configured) as the fallback of `api`. Each page load (an HTML answer)
/// carries the signed-in hint cookie ([`SignedInHint`]) for the app's session check.
pub(crate) fn with_app(api: Router, statics: &StaticConfig, auth: Arc<AuthState>) -> Router {
    match &statics.dist_dir {
        Some(dist) if std::env::var(PLAIN_ENV).is_ok_and(|v| v == "0") => {
            let index = ServeFile::new(dist.join("index.html"));
            let app = Router::new()
                .fallback_service(ServeDir::new(dist).fallback(index))
                .layer(axum::middleware::from_fn_with_state(auth, page_hint));
            api.fallback_service(app)
        }
        Some(dist) => {
            let index = ServeFile::new(dist.join("index.html"))
                .precompressed_br()
                .precompressed_gzip();
            let files = ServeDir::new(dist)
                .precompressed_br()
                .precompressed_gzip()
                .fallback(index);
            let app = Router::new()
                .fallback_service(files)
                .layer(axum::middleware::from_fn(cache_control))
                .layer(axum::middleware::from_fn_with_state(auth, page_hint));
            api.fallback_service(app)
        }
        None => api.fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                "the app is not built; run `make run` to build and serve it",
            )
        }),
    }
}

/// Adds the signed-in hint cookie to a page load: an HTML answer, or a `304` to a request
/// that asked for HTML (the browser revalidating `index.html`). The cookie is built only
/// for those; other files (wasm, CSS) get none.
async fn page_hint(State(auth): State<Arc<AuthState>>, req: Request, next: Next) -> Response {
    let hint = SignedInHint::of(&auth.settings, req.headers());
    let wants_html = is_html(req.headers().get(header::ACCEPT));
    let mut res = next.run(req).await;
    let page = is_html(res.headers().get(header::CONTENT_TYPE))
        || (wants_html && res.status() == StatusCode::NOT_MODIFIED);
    if page {
        res.headers_mut().append(header::SET_COOKIE, hint.cookie());
    }
    res
}

fn is_html(value: Option<&HeaderValue>) -> bool {
    value
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/html"))
}

/// Marks a hashed file immutable and anything else (the `index.html` fallback included,
/// whatever path it answered) to be revalidated.
async fn cache_control(req: Request, next: Next) -> Response {
    let hashed = is_hashed(req.uri().path());
    let mut res = next.run(req).await;
    let is_html = is_html(res.headers().get(header::CONTENT_TYPE));
    let ok = res.status().is_success() || res.status() == StatusCode::NOT_MODIFIED;
    let value = if hashed && ok && !is_html {
        IMMUTABLE
    } else {
        REVALIDATE
    };
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static(value));
    res
}

/// Whether `path` names one of Trunk's hashed files: `<stem>-<16 hex digits>` then an
/// optional `_bg` and the extension (`app-9d00…cc0b_bg.wasm`, `main-efca…6edb0.css`).
fn is_hashed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((stem, _ext)) = name.rsplit_once('.') else {
        return false;
    };
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    match stem.rsplit_once('-') {
        Some((base, hash)) => {
            !base.is_empty() && hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::is_hashed;

    #[test]
    fn trunk_names_are_hashed() {
        assert!(is_hashed("/app-9d001b666176cc0b_bg.wasm"));
        assert!(is_hashed("/app-9d001b666176cc0b.js"));
        assert!(is_hashed("/runs-table-ab73d473a57259bb.css"));
    }

    #[test]
    fn other_names_are_not() {
        for p in [
            "/",
            "/index.html",
            "/public/favicon.svg",
            "/experiments/3",
            "/app-9d001b666176cc0.js",
            "/app-9d001b666176cc0z.js",
            "/-9d001b666176cc0b.js",
            "/experiments/9d001b666176cc0b",
        ] {
            assert!(!is_hashed(p), "{p}");
        }
    }
}
