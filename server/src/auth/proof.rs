//! The credential a request was authenticated with, by reference (no secret in it): the
//! auth layer puts it in the request's extensions beside the [`super::Caller`], and a stream that
//! stays open keeps it to check, as it goes, that a new request with the same credential
//! would still be let in ([`super::resolve::recheck`]).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::{sessions, tokens, AuthMethod};
use crate::Error;

/// A resolved credential, by reference: see the module docs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Proof {
    pub(crate) held: Held,
    pub(crate) method: AuthMethod,
}

/// What a credential is checked again by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Held {
    /// An API token, by its stored key (Bearer, or Basic with a token as the password).
    Token(String),
    /// A session, by its stored key; the trusted proxy's user, if the header came too
    /// (a request whose session ended falls back to it).
    Session(String, Option<String>),
    /// A password (Basic), by the stored hash it was verified against: it holds while the
    /// user's password is unchanged.
    Password { username: String, phc: String },
    /// The trusted proxy header's user.
    Proxy(i64),
}

impl Proof {
    /// An API token `token` presented with `method`.
    pub(crate) fn token(token: &str, method: AuthMethod) -> Self {
        Self::of(Held::Token(tokens::token_key(token)), method)
    }

    /// The session behind cookie value `id` (with the proxy user sent beside it).
    pub(crate) fn session(id: &str, proxy: Option<String>) -> Self {
        Self::of(
            Held::Session(sessions::session_key(id), proxy),
            AuthMethod::Session,
        )
    }

    /// `username`'s password, verified against the stored hash `phc` (Basic).
    pub(crate) fn password(username: &str, phc: String) -> Self {
        let held = Held::Password {
            username: username.to_owned(),
            phc,
        };
        Self::of(held, AuthMethod::Basic)
    }

    /// The trusted proxy header naming user `user_id`.
    pub(crate) fn proxy(user_id: i64) -> Self {
        Self::of(Held::Proxy(user_id), AuthMethod::Proxy)
    }

    fn of(held: Held, method: AuthMethod) -> Self {
        Proof { held, method }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Proof {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Proof>()
            .cloned()
            .ok_or_else(|| Error::Unauthenticated("Sign in to continue.".into()))
    }
}
