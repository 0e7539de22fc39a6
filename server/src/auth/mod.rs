//! Identity: who is calling. The auth middleware resolves a [`Caller`] from a session
//! cookie, an API token (`Authorization: Bearer`), HTTP basic, or a trusted proxy header,
//! and stores it in the request's extensions with the credential by reference
//! (`proof::Proof`, which open streams check again); handlers take `caller: Caller`.
//!
//! Offers [`Caller`] and [`AuthMethod`], [`AuthSettings`], [`basic_header`], the table
//! modules ([`users`], [`groups`], [`tokens`], [`node_credentials`]), [`bootstrap`] (the
//! first admin), [`password`] and [`limiter`]; and to the crate the auth layer
//! (`middleware`), credential resolution (`resolve`), an open stream's caller
//! (`stream_caller::StreamCaller`) and the session and token routes. Secrets and their
//! hashing stay inside.

pub mod bootstrap;
pub(crate) mod credentials;
pub mod groups;
pub mod limiter;
pub(crate) mod middleware;
pub mod node_credentials;
pub mod password;
pub(crate) mod proof;
pub(crate) mod resolve;
pub(crate) mod secret;
pub(crate) mod session_routes;
pub(crate) mod sessions;
pub(crate) mod settings;
pub(crate) mod stream_caller;
pub(crate) mod token_routes;
pub mod tokens;
pub mod users;

pub use settings::AuthSettings;
pub(crate) use settings::AuthState;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use crate::Error;

/// How the caller proved who they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    /// Browser session cookie (writes also need the CSRF header).
    Session,
    /// `Authorization: Bearer <api token>`.
    Token,
    /// `Authorization: Basic` with username and password (or token as password).
    Basic,
    /// Trusted reverse-proxy header (SSO), when configured.
    Proxy,
}

/// The authenticated user making a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// `users.user_id`.
    pub user_id: i64,
    /// Username.
    pub username: String,
    /// Administrators may read and manage everything.
    pub is_admin: bool,
    /// `groups.group_id` of every group the user is in.
    pub group_ids: Vec<i64>,
    /// How they authenticated.
    pub method: AuthMethod,
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| Error::Unauthenticated("Sign in to continue.".into()))
    }
}

/// An `Authorization` header value for HTTP basic: `Basic base64(username:password)`.
pub fn basic_header(username: &str, password: &str) -> String {
    use base64::Engine;
    let raw = format!("{username}:{password}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    )
}
