//! Sign-in rate limiting, kept in the database so that every replica sees the same
//! attempts (tables `signin_attempts` and `signin_known`, migration 8). Three rules,
//! checked before any password is verified:
//!
//! - per (username, client address): at most [`MAX_FAILURES`] failed attempts in a sliding
//!   `WINDOW`. An attempt is *reserved* (a row in state 0) before the (slow)
//!   verification, in a write transaction, so parallel attempts on any replica cannot all
//!   slip past the check.
//! - per username across addresses, a soft back-off: after `USER_BACKOFF_FAILURES`
//!   failures in the window, addresses that have never signed in as that user are refused;
//!   an address that has signed in as the user before is never locked out by others'
//!   failures (so a proxy-wide or distributed attack cannot lock a user out).
//! - per client address and globally: at most `ADDR_MAX_FAILURES` failures per address
//!   and `GLOBAL_MAX_FAILURES` failures in all per `SPRAY_WINDOW` (password spraying
//!   and floods of random usernames); known (username, address) pairs are exempt.
//!
//! Storage stays bounded: rows older than `WINDOW` are deleted on every reservation, a
//! reservation whose replica died stops counting after `PENDING_FOR`, and attempts that
//! get past the budgets are limited by them. Credentials the replica verified before
//! (the basic-auth cache) are asked `check` too, so a lockout holds for them, but
//! reserve nothing (see `resolve::check_password`).

use std::time::Duration;

use crate::db::{params, Conn};
use crate::Error;

/// Failed attempts allowed per (username, address) within `WINDOW`.
pub const MAX_FAILURES: i64 = 5;
/// How long failures are remembered.
pub(crate) const WINDOW: Duration = Duration::from_secs(5 * 60);
/// Failures for one username (all addresses) after which unknown addresses are refused.
pub(crate) const USER_BACKOFF_FAILURES: i64 = 20;
/// Failures per client address (any usernames) allowed within [`SPRAY_WINDOW`].
pub(crate) const ADDR_MAX_FAILURES: i64 = 100;
/// Failures in all allowed within [`SPRAY_WINDOW`].
pub(crate) const GLOBAL_MAX_FAILURES: i64 = 600;
/// Window of the address and global budgets.
pub(crate) const SPRAY_WINDOW: Duration = Duration::from_secs(60);
/// How long a reservation counts while its verification has not finished (a replica that
/// died mid-verification leaves one behind).
pub(crate) const PENDING_FOR: Duration = Duration::from_secs(60);
/// How long a successful (username, address) pair counts as known.
pub(crate) const KNOWN_FOR: Duration = Duration::from_secs(30 * 24 * 3600);

/// Row states of `signin_attempts` (the queries in [`check`] spell them as 0 and 1).
const RESERVED: i64 = 0;
const FAILED: i64 = 1;
const FORGIVEN: i64 = 2;

/// A reserved attempt: report its outcome with [`finish`].
#[derive(Debug)]
#[must_use]
pub(crate) struct Reservation {
    id: i64,
    user: String,
    addr: String,
}

/// Why an attempt was refused before verification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Limited {
    /// Seconds until another attempt may succeed.
    pub retry_after_secs: u64,
}

fn ms(d: Duration) -> i64 {
    d.as_millis() as i64
}

/// Count and oldest time of the attempts a rule counts.
fn tally(c: &Conn, sql: &str, params: impl crate::db::Params) -> Result<(i64, i64), Error> {
    Ok(c.prepare_cached(sql)?.query_row(params, |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, Option<i64>>(1)?.unwrap_or(0),
        ))
    })?)
}

/// Seconds until the oldest of the counted attempts leaves a window of `window`.
fn retry(oldest: i64, now: i64, window: Duration) -> u64 {
    let left = (oldest + ms(window) - now).max(0) as u64;
    left / 1000 + 1
}

/// Whether `username` from `addr` may try a password at `now` (ms since the epoch): the
/// rules of the module docs over what every replica recorded. Read-only.
pub(crate) fn check(
    c: &Conn,
    username: &str,
    addr: &str,
    now: i64,
) -> Result<Option<Limited>, Error> {
    let user = username.to_lowercase();
    let since = now - ms(WINDOW);
    let live = now - ms(PENDING_FOR);
    let (pair, oldest) = tally(
        c,
        "SELECT count(*), min(at_ms) FROM signin_attempts
         WHERE username = ?1 AND addr = ?2 AND at_ms > ?3
           AND (state = 1 OR (state = 0 AND at_ms > ?4))",
        params![user, addr, since, live],
    )?;
    if pair >= MAX_FAILURES {
        return Ok(Some(Limited {
            retry_after_secs: retry(oldest, now, WINDOW),
        }));
    }
    let known =
        c.prepare_cached(
            "SELECT count(*) FROM signin_known WHERE username = ?1 AND addr = ?2 AND at_ms > ?3",
        )?
        .query_row(params![user, addr, now - ms(KNOWN_FOR)], |r| {
            r.get::<_, i64>(0)
        })? > 0;
    if known {
        return Ok(None);
    }
    let (failures, oldest) = tally(
        c,
        "SELECT count(*), min(at_ms) FROM signin_attempts
         WHERE username = ?1 AND state <> 0 AND at_ms > ?2",
        params![user, since],
    )?;
    if failures >= USER_BACKOFF_FAILURES {
        return Ok(Some(Limited {
            retry_after_secs: retry(oldest, now, WINDOW),
        }));
    }
    let spray = now - ms(SPRAY_WINDOW);
    let (from_addr, oldest) = tally(
        c,
        "SELECT count(*), min(at_ms) FROM signin_attempts
         WHERE addr = ?1 AND at_ms > ?2 AND (state <> 0 OR at_ms > ?3)",
        params![addr, spray, live],
    )?;
    if from_addr >= ADDR_MAX_FAILURES {
        return Ok(Some(Limited {
            retry_after_secs: retry(oldest, now, SPRAY_WINDOW),
        }));
    }
    let (all, oldest) = tally(
        c,
        "SELECT count(*), min(at_ms) FROM signin_attempts
         WHERE at_ms > ?1 AND (state <> 0 OR at_ms > ?2)",
        params![spray, live],
    )?;
    if all >= GLOBAL_MAX_FAILURES {
        return Ok(Some(Limited {
            retry_after_secs: retry(oldest, now, SPRAY_WINDOW),
        }));
    }
    Ok(None)
}

/// Reserves an attempt for `username` from `addr` at `now`, or says why not. Call it in a
/// write transaction (`Store::call_write`): the check and the reservation are one step for
/// every replica. Prunes attempts older than [`WINDOW`].
pub(crate) fn reserve(
    c: &Conn,
    username: &str,
    addr: &str,
    now: i64,
) -> Result<Result<Reservation, Limited>, Error> {
    c.prepare_cached("DELETE FROM signin_attempts WHERE at_ms <= ?1")?
        .execute(params![now - ms(WINDOW)])?;
    if let Some(limited) = check(c, username, addr, now)? {
        return Ok(Err(limited));
    }
    let user = username.to_lowercase();
    let id = c
        .prepare_cached(
            "INSERT INTO signin_attempts (username, addr, at_ms, state)
             VALUES (?1, ?2, ?3, ?4) RETURNING attempt_id",
        )?
        .query_row(params![user, addr, now, RESERVED], |r| r.get::<_, i64>(0))?;
    Ok(Ok(Reservation {
        id,
        user,
        addr: addr.to_owned(),
    }))
}

/// Records the outcome of a reserved attempt (in a write transaction). A success forgives
/// the pair's failures (they still count for the username and the address) and makes the
/// pair known; a failure counts from `now`.
pub(crate) fn finish(c: &Conn, r: Reservation, success: bool, now: i64) -> Result<(), Error> {
    if !success {
        c.prepare_cached(
            "UPDATE signin_attempts SET state = ?2, at_ms = ?3 WHERE attempt_id = ?1",
        )?
        .execute(params![r.id, FAILED, now])?;
        return Ok(());
    }
    c.prepare_cached("DELETE FROM signin_attempts WHERE attempt_id = ?1")?
        .execute(params![r.id])?;
    c.prepare_cached(
        "UPDATE signin_attempts SET state = ?3 WHERE username = ?1 AND addr = ?2 AND state = ?4",
    )?
    .execute(params![r.user, r.addr, FORGIVEN, FAILED])?;
    c.prepare_cached("DELETE FROM signin_known WHERE at_ms <= ?1")?
        .execute(params![now - ms(KNOWN_FOR)])?;
    c.prepare_cached(
        "INSERT INTO signin_known (username, addr, at_ms) VALUES (?1, ?2, ?3)
         ON CONFLICT (username, addr) DO UPDATE SET at_ms = excluded.at_ms",
    )?
    .execute(params![r.user, r.addr, now])?;
    Ok(())
}

#[cfg(test)]
mod tests;
