//! The authentication layer of every non-public route (the route table attaches it):
//! resolves the [`Caller`](super::Caller) (Bearer, Basic, session cookie, proxy header), refuses
//! cross-site writes made with credentials a browser sends by itself, answers 401 in the
//! dialect of the path, and marks every answer `Cache-Control: no-store`.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use api_types::nodes::looks_like_node_credential;

use super::credentials::{read_credential, Credential};
use super::node_credentials::{AcceptsNodeCredential, NodeAgent};
use super::resolve::{resolve, Resolved};
use super::secret::constant_time_eq;
use super::settings::AuthSettings;
use super::AuthMethod;
use crate::error::MlflowError;
use crate::{AppState, Error};

/// Header carrying the session's CSRF token on non-GET cookie-authenticated requests.
pub(crate) const CSRF_HEADER: &str = "x-csrf-token";

/// The session's CSRF token, put in request extensions for session callers.
#[derive(Debug, Clone)]
pub(crate) struct CsrfToken(pub String);

/// The client's address as text (`"local"` when unknown, e.g. in-process tests): the last
/// `X-Forwarded-For` entry when `--trusted-forwarded-for` is on, else the peer address.
pub(crate) fn client_addr(
    settings: &AuthSettings,
    headers: &HeaderMap,
    ext: &axum::http::Extensions,
) -> String {
    if settings.trusted_forwarded_for {
        let forwarded = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .rfind(|v| !v.is_empty());
        if let Some(addr) = forwarded {
            return addr.to_string();
        }
    }
    ext.get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip().to_string())
        .unwrap_or_else(|| "local".into())
}

/// Whether the request comes from a browser (Fetch metadata, or a browser user agent): it
/// gets no `WWW-Authenticate: Basic` challenge, so no password box pops up.
pub(crate) fn is_browser(headers: &HeaderMap) -> bool {
    headers.contains_key("sec-fetch-mode")
        || headers.contains_key("sec-fetch-site")
        || headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ua| ua.contains("Mozilla/"))
}

/// Refuses a request that another site made: `Sec-Fetch-Site` other than `same-origin`
/// or `none`, or an `Origin` (also `null`) whose host differs from `Host`.
pub(crate) fn refuse_cross_site(headers: &HeaderMap) -> Result<(), Error> {
    let refused = || Error::PermissionDenied {
        message: "Cross-site request refused: this request did not come from runlens' own pages."
            .into(),
        grantors: Vec::new(),
    };
    if let Some(site) = headers.get("sec-fetch-site") {
        let site = site.to_str().unwrap_or("");
        if !(site.eq_ignore_ascii_case("same-origin") || site.eq_ignore_ascii_case("none")) {
            return Err(refused());
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("null");
        let origin_host = origin
            .split_once("://")
            .map(|(_, rest)| rest.trim_end_matches('/'))
            .unwrap_or("");
        // The host the browser addressed: `Host`, or the one a reverse proxy forwards (a
        // page cannot set either on a cross-site form or fetch).
        let matches = |name: header::HeaderName| {
            headers
                .get(name)
                .and_then(|h| h.to_str().ok())
                .is_some_and(|h| !origin_host.is_empty() && origin_host.eq_ignore_ascii_case(h))
        };
        if !matches(header::HOST) && !matches(header::HeaderName::from_static("x-forwarded-host")) {
            return Err(refused());
        }
    }
    Ok(())
}

/// Whether the request says its body is JSON.
pub(crate) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

fn is_read(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Writes with a credential the browser attaches on its own (cookie, proxy header, cached
/// Basic) must come from runlens' own pages: same origin, and a POST must be JSON or carry
/// the CSRF header (neither can be sent cross-site without a CORS preflight, which runlens
/// never grants). Session writes must also echo the session's CSRF token.
fn check_browser_write(req: &Request, resolved: &Resolved) -> Result<(), Error> {
    let ambient = matches!(
        resolved.caller.method,
        AuthMethod::Session | AuthMethod::Proxy | AuthMethod::Basic
    );
    if is_read(req.method()) || !ambient {
        return Ok(());
    }
    let headers = req.headers();
    refuse_cross_site(headers)?;
    let sent = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok());
    if req.method() == Method::POST && !is_json(headers) && sent.is_none() {
        return Err(Error::PermissionDenied {
            message: "Refused: write requests must send JSON (Content-Type: application/json)."
                .into(),
            grantors: Vec::new(),
        });
    }
    if resolved.caller.method == AuthMethod::Session {
        let expected = resolved.csrf_token.as_deref().unwrap_or_default();
        if !sent.is_some_and(|s| constant_time_eq(s, expected)) {
            return Err(Error::PermissionDenied {
                message:
                    "Missing or invalid CSRF token (X-CSRF-Token); reload the page and try again."
                        .into(),
                grantors: Vec::new(),
            });
        }
    }
    Ok(())
}

/// The layer: see the module docs.
pub(crate) async fn authenticate(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Response {
    let path = req.uri().path().to_string();
    let browser = is_browser(req.headers());
    let addr = client_addr(&state.auth.settings, req.headers(), req.extensions());
    // No borrow of `req` may live across an await (its body is not `Sync`).
    let node_route = req.extensions().get::<AcceptsNodeCredential>().is_some();
    let cred = read_credential(req.headers(), &state.auth.settings)
        .and_then(|c| c.ok_or_else(|| Error::Unauthenticated(MISSING_CREDENTIAL.into())));
    let now = crate::util::now_ms();
    let outcome = match cred {
        Ok(Credential::Bearer(secret)) if looks_like_node_credential(&secret) => {
            node_agent(&state, &secret, node_route, now)
                .await
                .map(Identity::Node)
        }
        Ok(cred) => resolve(&state, cred, &addr, now)
            .await
            .and_then(|resolved| check_browser_write(&req, &resolved).map(|()| resolved))
            .map(Identity::User),
        Err(e) => Err(e),
    };
    let mut resp = match outcome {
        Ok(Identity::User(resolved)) => {
            if let Some(t) = resolved.csrf_token {
                req.extensions_mut().insert(CsrfToken(t));
            }
            req.extensions_mut().insert(resolved.caller);
            req.extensions_mut().insert(resolved.proof);
            next.run(req).await
        }
        Ok(Identity::Node(agent)) => {
            req.extensions_mut().insert(agent);
            next.run(req).await
        }
        Err(e) => render(&path, e, browser),
    };
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// Who a request's credential speaks for.
enum Identity {
    /// A user (token, password, session or proxy header).
    User(Resolved),
    /// A node's agent (its node credential).
    Node(NodeAgent),
}

/// The node agent behind node credential `secret`: 401 when it is not an active credential,
/// 403 on any route but a node's own registration ([`AcceptsNodeCredential`]).
async fn node_agent(
    state: &AppState,
    secret: &str,
    node_route: bool,
    now: i64,
) -> Result<NodeAgent, Error> {
    let secret = secret.to_string();
    let agent = state
        .store
        .call(move |c| super::node_credentials::resolve(c, &secret, now))
        .await?
        .ok_or_else(|| Error::Unauthenticated("Invalid or revoked node credential.".into()))?;
    if !node_route {
        return Err(Error::PermissionDenied {
            message: format!(
                "A node credential can only register and heartbeat its own node (PUT \
                 /api/v1/nodes/{}); use a user's API token for anything else.",
                agent.node
            ),
            grantors: Vec::new(),
        });
    }
    Ok(agent)
}

const MISSING_CREDENTIAL: &str = "Authentication required: sign in, or send an API token \
    (Authorization: Bearer, e.g. MLFLOW_TRACKING_TOKEN) or a username and password (HTTP \
    basic, MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD).";

/// Renders `e` in the dialect of `path`: the app's `ApiError` under `/api/v1/`, MLflow's
/// `{"error_code", "message"}` elsewhere, with a basic challenge on `/api/` 401s for
/// programs (scripts understand it) but never for browsers (no login box pops up).
pub(crate) fn render(path: &str, e: Error, browser: bool) -> Response {
    if path.starts_with("/api/v1/") {
        return e.into_response();
    }
    let challenge = matches!(e, Error::Unauthenticated(_)) && path.starts_with("/api/") && !browser;
    let mut resp = MlflowError(e).into_response();
    if challenge {
        resp.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"runlens\""),
        );
    }
    resp
}
