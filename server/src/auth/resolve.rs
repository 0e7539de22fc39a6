//! Turning a credential into a [`Caller`]: token, password and session lookups, the
//! proxy user created on first sight. Database work runs on the blocking pool; argon2 too, but without a pooled connection.

use std::sync::OnceLock;

use crate::db::Conn;
use tokio::sync::Semaphore;

use super::credentials::Credential;
use super::password::{dummy_hash, verify_password};
use super::proof::{Held, Proof};
use super::{limiter, sessions, tokens, users, AuthMethod, Caller};
use crate::util::now_ms;
use crate::{AppState, Error};

/// A resolved caller, the credential by reference and, for session callers, the
/// session's CSRF token.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// Who is calling.
    pub caller: Caller,
    /// The credential, to check again while a stream stays open.
    pub proof: Proof,
    /// The CSRF token non-GET requests must echo (sessions only).
    pub csrf_token: Option<String>,
}

/// The same text for an unknown user and a wrong password.
pub(crate) const BAD_LOGIN: &str = "Invalid username or password.";
/// The answer to an unknown or revoked API token.
pub(crate) const TOKEN_INVALID: &str = "Invalid or revoked API token.";
/// The answer to a session cookie whose session ended.
pub(crate) const SESSION_ENDED: &str = "Your session has expired. Sign in again.";

/// Resolves `cred` at time `now_ms`; `addr` is the client address (rate limiting).
/// Passwords are verified off the database pool (see [`check_password`]).
pub(crate) async fn resolve(
    state: &AppState,
    cred: Credential,
    addr: &str,
    now_ms: i64,
) -> Result<Resolved, Error> {
    match cred {
        Credential::Basic { username, secret } if !tokens::looks_like_token(&secret) => {
            // A locked-out program gets 401, not 429: the mlflow client retries 429 with
            // back-off for minutes, while 401 fails at once with the lockout message.
            let (user_id, phc) = check_password(state, &username, &secret, addr)
                .await
                .map_err(|e| match e {
                    Error::TooManyRequests(message) => Error::Unauthenticated(message),
                    other => other,
                })?;
            let proof = Proof::password(&username, phc);
            state
                .store
                .call(move |c| plain(load_caller(c, user_id, AuthMethod::Basic)?, proof))
                .await
        }
        other => {
            let store = state.store.clone();
            store.call(move |c| resolve_other(c, other, now_ms)).await
        }
    }
}

/// Every credential but a Basic password: token, session, proxy user.
fn resolve_other(conn: &Conn, cred: Credential, now_ms: i64) -> Result<Resolved, Error> {
    match cred {
        Credential::Bearer(token) => by_token(conn, &token, None, AuthMethod::Token, now_ms),
        Credential::Basic { username, secret } => {
            by_token(conn, &secret, Some(&username), AuthMethod::Basic, now_ms)
        }
        Credential::Session(id, proxy) => match sessions::resolve_session(conn, &id, now_ms)? {
            Some(s) => Ok(Resolved {
                caller: load_caller(conn, s.user_id, AuthMethod::Session)?,
                proof: Proof::session(&id, proxy),
                csrf_token: Some(s.csrf_token),
            }),
            None => match proxy {
                Some(name) => by_proxy(conn, &name),
                None => Err(Error::Unauthenticated(SESSION_ENDED.into())),
            },
        },
        Credential::Proxy(name) => by_proxy(conn, &name),
    }
}

fn plain(caller: Caller, proof: Proof) -> Result<Resolved, Error> {
    Ok(Resolved {
        caller,
        proof,
        csrf_token: None,
    })
}

fn by_token(
    conn: &Conn,
    token: &str,
    username: Option<&str>,
    method: AuthMethod,
    now_ms: i64,
) -> Result<Resolved, Error> {
    let invalid = || Error::Unauthenticated(TOKEN_INVALID.into());
    let user_id = tokens::resolve_token(conn, token, now_ms)?.ok_or_else(invalid)?;
    let caller = load_caller(conn, user_id, method).map_err(|_| invalid())?;
    if username.is_some_and(|u| u != caller.username) {
        return Err(invalid());
    }
    plain(caller, Proof::token(token, method))
}

/// Most password verifications (argon2, CPU-bound) running at once: half the cores (at
/// least one); the rest wait, so a flood of sign-in attempts cannot starve token and
/// session requests of CPU.
fn verify_slots() -> &'static Semaphore {
    static SLOTS: OnceLock<Semaphore> = OnceLock::new();
    SLOTS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Semaphore::new((cores / 2).max(1))
    })
}

/// Verifies a password; returns the user id and the stored hash it was verified against
/// (an open stream checks that it is still the user's). One short pooled query reads the
/// user row and asks the sign-in limiter (read-only) whether `username` may try from
/// `addr`: a refused attempt is refused whatever its password, even one this replica
/// verified before (else the right guess would pass a lockout at once, and tell the
/// guesser so). Credentials verified before against the same stored hash (the basic-auth
/// cache; the mlflow client sends them on every request) then succeed without more work.
/// Any other attempt is reserved with the limiter, in the database, before the password
/// is checked (parallel attempts on any replica cannot overrun it); argon2 runs on the
/// blocking pool without holding a database connection, on at most half the cores at a
/// time. Unknown users, wrong passwords and disabled accounts get the same answer after
/// the same work.
pub(crate) async fn check_password(
    state: &AppState,
    username: &str,
    password: &str,
    addr: &str,
) -> Result<(i64, String), Error> {
    let auth = state.auth.clone();
    let limited = |l: limiter::Limited| {
        Error::TooManyRequests(format!(
            "Too many failed sign-in attempts. Try again in {} seconds.",
            l.retry_after_secs
        ))
    };
    // Reads first, so a flood of refused attempts costs no write.
    let (user, from) = (username.to_string(), addr.to_string());
    let (row, refused) = state
        .store
        .call(move |c| {
            let row = users::login_row(c, &user)?;
            Ok((row, limiter::check(c, &user, &from, now_ms())?))
        })
        .await?;
    if let Some(l) = refused {
        return Err(limited(l));
    }
    if let Some((user_id, Some(h), false)) = &row {
        if auth.basic_cache.verified(username, password, h) {
            return Ok((*user_id, h.clone()));
        }
    }
    let (user, from) = (username.to_string(), addr.to_string());
    let reservation = state
        .store
        .call_write(move |c| limiter::reserve(c, &user, &from, now_ms()))
        .await?
        .map_err(limited)?;
    let phc = row.as_ref().and_then(|(_, h, _)| h.clone());
    let ok = {
        let _slot = verify_slots().acquire().await;
        let (pw, hash) = (password.to_string(), phc);
        // Unknown users (and proxy users without a password) are checked against a dummy
        // hash, so timing does not reveal which usernames exist.
        tokio::task::spawn_blocking(move || match hash {
            Some(h) => verify_password(&pw, &h),
            None => {
                verify_password(&pw, dummy_hash());
                false
            }
        })
        .await
        .unwrap_or(false)
    };
    let outcome = match (ok, row) {
        (true, Some((user_id, Some(h), false))) => {
            auth.basic_cache.remember(username, password, &h);
            Ok((user_id, h))
        }
        _ => Err(Error::Unauthenticated(BAD_LOGIN.into())),
    };
    let success = outcome.is_ok();
    state
        .store
        .call_write(move |c| limiter::finish(c, reservation, success, now_ms()))
        .await?;
    outcome
}

/// The caller `proof` stands for at `now`, as a new request with its credential would be
/// resolved (the same lookups, read-only: nothing refreshed or recorded);
/// `Unauthenticated` once the token is revoked, the session ended (signed out,
/// expired, ended by a password change or by disabling), the password changed, or
/// the account is disabled or deleted.
pub(crate) fn recheck(conn: &Conn, proof: &Proof, now: i64) -> Result<Caller, Error> {
    let refused = |message: &str| Error::Unauthenticated(message.into());
    let user_id = match &proof.held {
        Held::Token(key) => tokens::token_user(conn, key)?.ok_or_else(|| refused(TOKEN_INVALID))?,
        Held::Session(key, proxy) => match sessions::session_user(conn, key, now)? {
            Some(id) => id,
            None => {
                // The fallback of a new request: the proxy's user (created then, so
                // only looked up here).
                let name = proxy.as_deref().ok_or_else(|| refused(SESSION_ENDED))?;
                let id = users::find_user_id(conn, name)?.ok_or_else(|| refused(SESSION_ENDED))?;
                return load_caller(conn, id, AuthMethod::Proxy);
            }
        },
        Held::Password { username, phc } => match users::login_row(conn, username)? {
            Some((id, Some(stored), false)) if stored == *phc => id,
            _ => return Err(refused(BAD_LOGIN)),
        },
        Held::Proxy(id) => *id,
    };
    load_caller(conn, user_id, proof.method)
}

fn by_proxy(conn: &Conn, username: &str) -> Result<Resolved, Error> {
    let user_id = match users::find_user_id(conn, username)? {
        Some(id) => id,
        None => users::create_user(conn, username, None, false).map_err(|e| match e {
            Error::InvalidParameter(m) => Error::Unauthenticated(m),
            other => other,
        })?,
    };
    plain(
        load_caller(conn, user_id, AuthMethod::Proxy)?,
        Proof::proxy(user_id),
    )
}

/// The caller for `user_id`; `Unauthenticated` if the user is gone or disabled.
pub(crate) fn load_caller(conn: &Conn, user_id: i64, method: AuthMethod) -> Result<Caller, Error> {
    let (user, group_ids) = users::get_user_and_groups(conn, user_id)?
        .ok_or_else(|| Error::Unauthenticated("This account no longer exists.".into()))?;
    if user.disabled {
        return Err(Error::Unauthenticated(
            "This account is disabled; ask an administrator.".into(),
        ));
    }
    Ok(Caller {
        user_id,
        username: user.username,
        is_admin: user.is_admin,
        group_ids,
        method,
    })
}

#[cfg(test)]
mod tests;
