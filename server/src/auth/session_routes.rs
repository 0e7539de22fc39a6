//! `/api/v1/session`: sign in (POST), who am I (GET), sign out (DELETE).

use api_types::{LoginRequest, Me};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};

use super::credentials::session_cookie;
use super::middleware::{client_addr, is_json, refuse_cross_site, CsrfToken, CSRF_HEADER};
use super::resolve::{check_password, load_caller};
use super::secret::constant_time_eq;
use super::sessions::{self, ABSOLUTE_TIMEOUT_MS, COOKIE_NAME};
use super::{groups, AuthMethod, AuthSettings, Caller};
use crate::db::Conn;
use crate::{AppState, Error};

/// `POST /api/v1/session`: checks the password and starts a session. Only JSON from
/// runlens' own pages: a cross-site form cannot sign a browser in (login CSRF).
pub(crate) async fn create_session(
    State(state): State<AppState>,
    headers: HeaderMap,
    ext: axum::http::Extensions,
    body: Bytes,
) -> Result<Response, Error> {
    refuse_cross_site(&headers)?;
    if !is_json(&headers) {
        return Err(Error::BadRequest(
            "Sign in with JSON (Content-Type: application/json).".into(),
        ));
    }
    let login: LoginRequest = serde_json::from_slice(&body).map_err(|_| {
        Error::BadRequest("Send JSON {\"username\": ..., \"password\": ...}.".into())
    })?;
    let addr = client_addr(&state.auth.settings, &headers, &ext);
    let (user_id, _) = check_password(&state, &login.username, &login.password, &addr).await?;
    let (me, id) = state
        .store
        .call(move |conn| {
            let caller = load_caller(conn, user_id, AuthMethod::Session)?;
            let now = crate::util::now_ms();
            sessions::purge_expired(conn, now)?;
            let session = sessions::create_session(conn, user_id, now)?;
            Ok((me_for(conn, &caller, session.csrf_token)?, session.id))
        })
        .await?;
    let cookie =
        session_cookie_header(&id, ABSOLUTE_TIMEOUT_MS / 1000, is_secure(&state, &headers));
    Ok(([(header::SET_COOKIE, cookie)], Json(me)).into_response())
}

/// `GET /api/v1/session`: the signed-in user (401 from the auth layer when signed out).
pub(crate) async fn get_session(
    State(state): State<AppState>,
    caller: Caller,
    csrf: Option<Extension<CsrfToken>>,
) -> Result<Json<Me>, Error> {
    let csrf = csrf.map(|Extension(CsrfToken(t))| t).unwrap_or_default();
    let me = state
        .store
        .call(move |conn| me_for(conn, &caller, csrf))
        .await?;
    Ok(Json(me))
}

/// `DELETE /api/v1/session`: signs out (204) and clears the cookie. A live session must
/// come with its CSRF token, so other sites cannot sign the user out.
pub(crate) async fn delete_session(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, Error> {
    if let Some(id) = session_cookie(&headers) {
        let sent = headers
            .get(CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        state
            .store
            .call(move |conn| {
                let now = crate::util::now_ms();
                if let Some(s) = sessions::resolve_session(conn, &id, now)? {
                    if !sent.is_some_and(|t| constant_time_eq(&t, &s.csrf_token)) {
                        return Err(Error::PermissionDenied {
                            message: "Missing or invalid CSRF token (X-CSRF-Token); reload the page and try again.".into(),
                            grantors: Vec::new(),
                        });
                    }
                    sessions::delete_session(conn, &id)?;
                }
                Ok(())
            })
            .await?;
    }
    let cookie = session_cookie_header("", 0, is_secure(&state, &headers));
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, cookie)]).into_response())
}

fn me_for(conn: &Conn, caller: &Caller, csrf_token: String) -> Result<Me, Error> {
    let groups = groups::groups_of(conn, caller.user_id)?
        .into_iter()
        .map(|(_, name)| name)
        .collect();
    Ok(Me {
        username: caller.username.clone(),
        is_admin: caller.is_admin,
        groups,
        csrf_token,
    })
}

/// `Secure` when configured, or when a proxy says the request came over https (the
/// header can only add the flag, never remove it, so honouring it is safe).
fn is_secure(state: &AppState, headers: &HeaderMap) -> bool {
    secure_for(&state.auth.settings, headers)
}

fn secure_for(settings: &AuthSettings, headers: &HeaderMap) -> bool {
    settings.secure_cookies
        || headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|p| p.trim().eq_ignore_ascii_case("https"))
}

/// The `Set-Cookie` value for the session cookie (`max_age_s` 0 clears it).
pub(crate) fn session_cookie_header(id: &str, max_age_s: i64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    let value =
        format!("{COOKIE_NAME}={id}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age_s}{secure}");
    // Ids are alphanumeric, so the value is always a valid header.
    HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// Name of the cookie that tells the app's code, which cannot read the `HttpOnly` session
/// cookie, whether the page came with a browser credential. It holds no secret: the app
/// asks `GET /api/v1/session` only when it is set, so a signed-out visit makes no request
/// that must fail, and a signed-in one can load its data while that check runs.
pub(crate) const SIGNED_IN_HINT: &str = "runlens_signed_in";

/// What the [`SIGNED_IN_HINT`] cookie of a page load says, read from its request headers
/// ([`SignedInHint::of`]); [`SignedInHint::cookie`] builds the `Set-Cookie` value, so a
/// request that turns out not to be a page load builds none.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SignedInHint {
    /// The request carries a session cookie or the trusted proxy's user header.
    present: bool,
    /// The cookie is marked `Secure` (the settings say so, or the request came over HTTPS).
    secure: bool,
}

impl SignedInHint {
    /// The hint for a request with these headers: set when they carry a session cookie or
    /// the trusted proxy's user header, cleared otherwise. Whether that credential is still
    /// valid is the session check's to say.
    pub(crate) fn of(settings: &AuthSettings, headers: &HeaderMap) -> Self {
        let present = session_cookie(headers).is_some()
            || settings
                .trusted_user_header
                .as_ref()
                .is_some_and(|h| headers.get(h).is_some_and(|v| !v.is_empty()));
        SignedInHint {
            present,
            secure: secure_for(settings, headers),
        }
    }

    /// The `Set-Cookie` value: the hint set (`1`) or cleared.
    pub(crate) fn cookie(self) -> HeaderValue {
        let (value, max_age_s) = if self.present {
            ("1", ABSOLUTE_TIMEOUT_MS / 1000)
        } else {
            ("", 0)
        };
        let secure = if self.secure { "; Secure" } else { "" };
        HeaderValue::from_str(&format!(
            "{SIGNED_IN_HINT}={value}; Path=/; SameSite=Lax; Max-Age={max_age_s}{secure}"
        ))
        .unwrap_or_else(|_| HeaderValue::from_static(""))
    }
}
