//! Turning a credential into a [`Caller`]: token, password and session lookups, the
//! proxy user created on first sight. Runs on the blocking pool (argon2, SQLite).

use std::time::Instant;

use rusqlite::{Connection, OptionalExtension};

use super::credentials::Credential;
use super::password::{dummy_hash, verify_password};
use super::settings::AuthState;
use super::{groups, sessions, tokens, users, AuthMethod, Caller};
use crate::Error;

/// A resolved caller and, for session callers, the session's CSRF token.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// Who is calling.
    pub caller: Caller,
    /// The CSRF token non-GET requests must echo (sessions only).
    pub csrf_token: Option<String>,
}

/// The same text for an unknown user and a wrong password.
pub const BAD_LOGIN: &str = "Invalid username or password.";

/// Resolves `cred` at time `now_ms`; `addr` is the client address (rate limiting).
pub fn resolve(
    conn: &Connection,
    auth: &AuthState,
    cred: Credential,
    addr: &str,
    now_ms: i64,
) -> Result<Resolved, Error> {
    match cred {
        Credential::Bearer(token) => by_token(conn, &token, None, AuthMethod::Token, now_ms),
        Credential::Basic { username, secret } if tokens::looks_like_token(&secret) => {
            by_token(conn, &secret, Some(&username), AuthMethod::Basic, now_ms)
        }
        Credential::Basic { username, secret } => {
            // A locked-out program gets 401, not 429: the mlflow client retries 429 with
            // back-off for minutes, while 401 fails at once with the lockout message.
            let user_id =
                check_password(conn, auth, &username, &secret, addr).map_err(|e| match e {
                    Error::TooManyRequests(message) => Error::Unauthenticated(message),
                    other => other,
                })?;
            plain(load_caller(conn, user_id, AuthMethod::Basic)?)
        }
        Credential::Session(id, proxy) => match sessions::resolve_session(conn, &id, now_ms)? {
            Some(s) => Ok(Resolved {
                caller: load_caller(conn, s.user_id, AuthMethod::Session)?,
                csrf_token: Some(s.csrf_token),
            }),
            None => match proxy {
                Some(name) => by_proxy(conn, &name),
                None => Err(Error::Unauthenticated(
                    "Your session has expired. Sign in again.".into(),
                )),
            },
        },
        Credential::Proxy(name) => by_proxy(conn, &name),
    }
}

fn plain(caller: Caller) -> Result<Resolved, Error> {
    Ok(Resolved {
        caller,
        csrf_token: None,
    })
}

fn by_token(
    conn: &Connection,
    token: &str,
    username: Option<&str>,
    method: AuthMethod,
    now_ms: i64,
) -> Result<Resolved, Error> {
    let invalid = || Error::Unauthenticated("Invalid or revoked API token.".into());
    let user_id = tokens::resolve_token(conn, token, now_ms)?.ok_or_else(invalid)?;
    let caller = load_caller(conn, user_id, method).map_err(|_| invalid())?;
    if username.is_some_and(|u| u != caller.username) {
        return Err(invalid());
    }
    plain(caller)
}

/// Verifies a password (rate limited per username and address); returns the user id.
pub fn check_password(
    conn: &Connection,
    auth: &AuthState,
    username: &str,
    password: &str,
    addr: &str,
) -> Result<i64, Error> {
    let now = Instant::now();
    if auth.limiter.is_limited(username, addr, now) {
        let secs = auth.limiter.retry_after(username, addr, now);
        return Err(Error::TooManyRequests(format!(
            "Too many failed sign-in attempts. Try again in {secs} seconds."
        )));
    }
    let row: Option<(i64, Option<String>)> = conn
        .query_row(
            "SELECT user_id, password_hash FROM users WHERE username = ?1",
            [username],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let phc = row.as_ref().and_then(|(_, h)| h.clone());
    let ok = match &phc {
        Some(h) if auth.basic_cache.verified(username, password, h) => true,
        Some(h) => verify_password(password, h),
        // Same work as a real check, so timing does not reveal unknown usernames.
        None => {
            verify_password(password, dummy_hash());
            false
        }
    };
    match (ok, row, phc) {
        (true, Some((user_id, _)), Some(h)) => {
            auth.limiter.record_success(username, addr);
            auth.basic_cache.remember(username, password, &h);
            Ok(user_id)
        }
        _ => {
            auth.limiter.record_failure(username, addr, now);
            Err(Error::Unauthenticated(BAD_LOGIN.into()))
        }
    }
}

fn by_proxy(conn: &Connection, username: &str) -> Result<Resolved, Error> {
    let user_id = match users::find_user_id(conn, username)? {
        Some(id) => id,
        None => users::create_user(conn, username, None, false).map_err(|e| match e {
            Error::InvalidParameter(m) => Error::Unauthenticated(m),
            other => other,
        })?,
    };
    plain(load_caller(conn, user_id, AuthMethod::Proxy)?)
}

/// The caller for `user_id`; `Unauthenticated` if the user is gone or disabled.
pub fn load_caller(conn: &Connection, user_id: i64, method: AuthMethod) -> Result<Caller, Error> {
    let user = users::get_user_by_id(conn, user_id)?
        .ok_or_else(|| Error::Unauthenticated("This account no longer exists.".into()))?;
    if user.disabled {
        return Err(Error::Unauthenticated(
            "This account is disabled; ask an administrator.".into(),
        ));
    }
    let group_ids = groups::groups_of(conn, user_id)?
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    Ok(Caller {
        user_id,
        username: user.username,
        is_admin: user.is_admin,
        group_ids,
        method,
    })
}
