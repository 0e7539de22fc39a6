//! The authentication layer over `/api/...` and `/ajax-api/...`: resolves the [`Caller`]
//! (Bearer, Basic, session cookie, proxy header), enforces CSRF for cookie-authenticated
//! writes, and answers 401 in the dialect of the path.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::credentials::read_credential;
use super::resolve::{resolve, Resolved};
use super::secret::constant_time_eq;
use super::AuthMethod;
use crate::error::MlflowError;
use crate::{AppState, Error};

/// Header carrying the session's CSRF token on non-GET cookie-authenticated requests.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The session's CSRF token, put in request extensions for session callers.
#[derive(Debug, Clone)]
pub struct CsrfToken(pub String);

/// Whether `path` answers without a credential (`method`-specific).
pub fn is_public(method: &Method, path: &str) -> bool {
    let protected = path.starts_with("/api/") || path.starts_with("/ajax-api/");
    let sign_in_out =
        path == "/api/v1/session" && (method == Method::POST || method == Method::DELETE);
    !protected || sign_in_out
}

/// The client's address as text (`"local"` when unknown, e.g. in-process tests).
pub fn client_addr(req_ext: &axum::http::Extensions) -> String {
    req_ext
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip().to_string())
        .unwrap_or_else(|| "local".into())
}

/// The layer: see the module docs.
pub async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    if is_public(req.method(), &path) {
        return next.run(req).await;
    }
    let pending = identify(&state, req.headers(), client_addr(req.extensions()));
    let resolved = match pending.await {
        Ok(r) => r,
        Err(e) => return render(&path, e),
    };
    let is_read = matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if resolved.caller.method == AuthMethod::Session && !is_read {
        let sent = req.headers().get(CSRF_HEADER).and_then(|v| v.to_str().ok());
        let expected = resolved.csrf_token.as_deref().unwrap_or_default();
        if !sent.is_some_and(|s| constant_time_eq(s, expected)) {
            let e = Error::PermissionDenied {
                message:
                    "Missing or invalid CSRF token (X-CSRF-Token); reload the page and try again."
                        .into(),
                grantors: Vec::new(),
            };
            return render(&path, e);
        }
    }
    if let Some(t) = resolved.csrf_token {
        req.extensions_mut().insert(CsrfToken(t));
    }
    req.extensions_mut().insert(resolved.caller);
    next.run(req).await
}

fn identify(
    state: &AppState,
    headers: &HeaderMap,
    addr: String,
) -> impl std::future::Future<Output = Result<Resolved, Error>> + Send + 'static {
    let auth = state.auth.clone();
    let store = state.store.clone();
    let cred = read_credential(headers, &auth.settings).and_then(|c| {
        c.ok_or_else(|| {
            Error::Unauthenticated(
                "Authentication required: sign in, or send an API token (Authorization: Bearer, \
             e.g. MLFLOW_TRACKING_TOKEN) or a username and password (HTTP basic, \
             MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD)."
                    .into(),
            )
        })
    });
    async move {
        let cred = cred?;
        let now = crate::util::now_ms();
        store
            .call(move |conn| resolve(conn, &auth, cred, &addr, now))
            .await
    }
}

/// Renders `e` in the dialect of `path`: the app's `ApiError` under `/api/v1/`, MLflow's
/// `{"error_code", "message"}` elsewhere (with a basic challenge on `/api/` 401s, which
/// scripts understand; browsers' `/ajax-api/` gets none so no login box pops up).
pub fn render(path: &str, e: Error) -> Response {
    if path.starts_with("/api/v1/") {
        return e.into_response();
    }
    let challenge = matches!(e, Error::Unauthenticated(_)) && path.starts_with("/api/");
    let mut resp = MlflowError(e).into_response();
    if challenge {
        resp.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"runlens\""),
        );
    }
    resp
}
