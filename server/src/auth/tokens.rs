//! API tokens for programs: `rl_<40 alphanumerics>`, stored as SHA-256 digests, listed by
//! name and prefix, revoked (never deleted, so lists can say when).

use crate::db::{Conn, OptionalExtension};
use api_types::{CreatedToken, TokenInfo};

use super::secret::{random_alphanumeric, sha256_hex};
use crate::Error;

/// Every token starts with this, so leaked tokens are easy to grep for.
pub(crate) const TOKEN_PREFIX: &str = "rl_";
/// Characters of the token kept in clear to recognise it (`rl_` + 6).
const SHOWN_PREFIX_LEN: usize = 9;

/// Whether `s` looks like a runlens token (cheap check before any lookup).
pub fn looks_like_token(s: &str) -> bool {
    s.len() == TOKEN_PREFIX.len() + 40
        && s.starts_with(TOKEN_PREFIX)
        && s[TOKEN_PREFIX.len()..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric())
}

/// Creates a token named `name` for `user_id`; the secret is in the answer only.
pub fn create_token(conn: &Conn, user_id: i64, name: &str) -> Result<CreatedToken, Error> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(Error::InvalidParameter(
            "A token needs a name of 1-100 characters, e.g. \"laptop\" or \"ci\".".into(),
        ));
    }
    let token = format!("{TOKEN_PREFIX}{}", random_alphanumeric(40));
    let prefix = token[..SHOWN_PREFIX_LEN].to_string();
    let created = crate::util::now_ms();
    let id = conn.query_row(
        "INSERT INTO api_tokens (user_id, name, prefix, token_hash, created)
         VALUES (?1, ?2, ?3, ?4, ?5) RETURNING token_id",
        crate::db::params![user_id, name, prefix, token_key(&token), created],
        |r| r.get(0),
    )?;
    let info = TokenInfo {
        id,
        name: name.to_string(),
        prefix,
        created,
        last_used: None,
    };
    Ok(CreatedToken { info, token })
}

/// The active (not revoked) tokens of `user_id`, newest first.
pub fn list_tokens(conn: &Conn, user_id: i64) -> Result<Vec<TokenInfo>, Error> {
    let mut stmt = conn.prepare(
        "SELECT token_id, name, prefix, created, last_used FROM api_tokens
         WHERE user_id = ?1 AND revoked IS NULL ORDER BY created DESC, token_id DESC",
    )?;
    let rows = stmt.query_map([user_id], |r| {
        Ok(TokenInfo {
            id: r.get(0)?,
            name: r.get(1)?,
            prefix: r.get(2)?,
            created: r.get(3)?,
            last_used: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Revokes token `token_id` of `user_id`; `NotFound` if it is not theirs or already revoked.
pub fn revoke_token(conn: &Conn, user_id: i64, token_id: i64) -> Result<(), Error> {
    let n = conn.execute(
        "UPDATE api_tokens SET revoked = ?3
         WHERE token_id = ?1 AND user_id = ?2 AND revoked IS NULL",
        crate::db::params![token_id, user_id, crate::util::now_ms()],
    )?;
    if n == 0 {
        return Err(Error::NotFound(format!("Token {token_id} does not exist.")));
    }
    Ok(())
}

/// The key `token` is stored under (its SHA-256 digest): what [`resolve_token`] looks up,
/// and what an open stream keeps to check the token again ([`token_user`]).
pub(crate) fn token_key(token: &str) -> String {
    sha256_hex(token)
}

/// `(token_id, user_id, last_used)` of the active token stored under `key`.
fn active_token(conn: &Conn, key: &str) -> Result<Option<(i64, i64, Option<i64>)>, Error> {
    // Cached: every request with a token runs it (uncached, PostgreSQL would parse it
    // again each time, a round trip of its own).
    Ok(conn
        .prepare_cached(
            "SELECT token_id, user_id, last_used FROM api_tokens
             WHERE token_hash = ?1 AND revoked IS NULL",
        )?
        .query_row([key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?)
}

/// The user owning the active token `token` at time `now`, recording its use (at most
/// once a minute, so reads do not each turn into a write).
pub fn resolve_token(conn: &Conn, token: &str, now: i64) -> Result<Option<i64>, Error> {
    if !looks_like_token(token) {
        return Ok(None);
    }
    let Some((token_id, user_id, last_used)) = active_token(conn, &token_key(token))? else {
        return Ok(None);
    };
    if last_used.is_none_or(|t| now - t > 60_000) {
        conn.execute(
            "UPDATE api_tokens SET last_used = ?2 WHERE token_id = ?1",
            [token_id, now],
        )?;
    }
    Ok(Some(user_id))
}

/// The user owning the token stored under `key` ([`token_key`]) while it is active: the
/// lookup of [`resolve_token`], read-only (an open stream checking its token again).
pub(crate) fn token_user(conn: &Conn, key: &str) -> Result<Option<i64>, Error> {
    Ok(active_token(conn, key)?.map(|(_, user_id, _)| user_id))
}
