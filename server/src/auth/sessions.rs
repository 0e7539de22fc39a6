//! Browser sessions: create, resolve (with idle and absolute expiry), delete.

use crate::db::{Conn, OptionalExtension};

use super::secret::{random_alphanumeric, sha256_hex};
use crate::Error;

/// Name of the session cookie.
pub(crate) const COOKIE_NAME: &str = "runlens_session";
/// A session ends after this long without a request (12 h).
pub(crate) const IDLE_TIMEOUT_MS: i64 = 12 * 3600 * 1000;
/// A session ends this long after sign-in, however active (7 days).
pub(crate) const ABSOLUTE_TIMEOUT_MS: i64 = 7 * 24 * 3600 * 1000;

/// A new session: the cookie value (shown once, to the browser) and its CSRF token.
#[derive(Debug, Clone)]
pub(crate) struct NewSession {
    /// Value of the `runlens_session` cookie.
    pub id: String,
    /// Value the app sends as `X-CSRF-Token`.
    pub csrf_token: String,
}

/// A live session found from its cookie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Session {
    /// The signed-in user.
    pub user_id: i64,
    /// Its CSRF token.
    pub csrf_token: String,
}

/// Starts a session for `user_id` at time `now` (ms).
pub(crate) fn create_session(conn: &Conn, user_id: i64, now: i64) -> Result<NewSession, Error> {
    let session = NewSession {
        id: random_alphanumeric(43),
        csrf_token: random_alphanumeric(32),
    };
    conn.execute(
        "INSERT INTO sessions (session_hash, user_id, csrf_token, created, last_seen)
         VALUES (?1, ?2, ?3, ?4, ?4)",
        crate::db::params![session_key(&session.id), user_id, session.csrf_token, now],
    )?;
    Ok(session)
}

/// The key the session behind cookie value `id` is stored under (its SHA-256 digest): what
/// [`resolve_session`] looks up, and what an open stream keeps to check the session again
/// ([`session_user`]).
pub(crate) fn session_key(id: &str) -> String {
    sha256_hex(id)
}

/// A stored session: `(user_id, csrf_token, created, last_seen)`.
type Row = (i64, String, i64, i64);

/// The session stored under `key` and whether it has expired at `now`.
fn stored(conn: &Conn, key: &str, now: i64) -> Result<Option<(Row, bool)>, Error> {
    // Cached: every signed-in browser request runs it.
    let row: Option<Row> = conn
        .prepare_cached(
            "SELECT user_id, csrf_token, created, last_seen FROM sessions WHERE session_hash = ?1",
        )?
        .query_row([key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .optional()?;
    Ok(row.map(|row @ (_, _, created, last_seen)| {
        let expired = now - last_seen > IDLE_TIMEOUT_MS || now - created > ABSOLUTE_TIMEOUT_MS;
        (row, expired)
    }))
}

/// The live session behind cookie value `id` at time `now`, refreshing its idle timer;
/// an expired session is deleted and `None` returned.
pub(crate) fn resolve_session(conn: &Conn, id: &str, now: i64) -> Result<Option<Session>, Error> {
    let key = session_key(id);
    let Some(((user_id, csrf_token, _, last_seen), expired)) = stored(conn, &key, now)? else {
        return Ok(None);
    };
    if expired {
        conn.execute("DELETE FROM sessions WHERE session_hash = ?1", [&key])?;
        return Ok(None);
    }
    // Refresh at most once a minute: keeps reads from turning into a write each.
    if now - last_seen > 60_000 {
        conn.execute(
            "UPDATE sessions SET last_seen = ?2 WHERE session_hash = ?1",
            crate::db::params![key, now],
        )?;
    }
    Ok(Some(Session {
        user_id,
        csrf_token,
    }))
}

/// The user of the session stored under `key` ([`session_key`]) while it is live at `now`:
/// the lookup of [`resolve_session`], read-only (an open stream checking its session
/// again neither refreshes its idle timer nor deletes it).
pub(crate) fn session_user(conn: &Conn, key: &str, now: i64) -> Result<Option<i64>, Error> {
    Ok(stored(conn, key, now)?
        .filter(|(_, expired)| !expired)
        .map(|((user_id, ..), _)| user_id))
}

/// Ends the session behind cookie value `id` (no error if it is already gone).
pub(crate) fn delete_session(conn: &Conn, id: &str) -> Result<(), Error> {
    conn.execute(
        "DELETE FROM sessions WHERE session_hash = ?1",
        [session_key(id)],
    )?;
    Ok(())
}

/// Ends every session of `user_id` (password change, disabling).
pub(crate) fn delete_user_sessions(conn: &Conn, user_id: i64) -> Result<(), Error> {
    conn.execute("DELETE FROM sessions WHERE user_id = ?1", [user_id])?;
    Ok(())
}

/// Removes sessions that expired before `now` (called now and then at sign-in).
pub(crate) fn purge_expired(conn: &Conn, now: i64) -> Result<(), Error> {
    conn.execute(
        "DELETE FROM sessions WHERE last_seen < ?1 OR created < ?2",
        [now - IDLE_TIMEOUT_MS, now - ABSOLUTE_TIMEOUT_MS],
    )?;
    Ok(())
}
