//! Retention: the server purges log lines older than `--log-retention-days` (default 60)
//! once at start and then every hour, and logs what it removed. Purged job runs remember
//! the newest purged timestamp (`super::store::expired_through`), so readers are told
//! that older lines expired.
//!
//! Replicas on one PostgreSQL database purge once between them: each purge claims its cut
//! in the `meta` table ([`purge_once`]), and a replica whose cut is at most half [`EVERY`]
//! past the claimed one skips it (another replica has just purged that far). A server
//! restarted with fewer days of retention has a later cut, so it purges at once.

use std::time::Duration;

use super::store::{self, Purged};
use super::LogStore;
use crate::db::{params, Conn, Engine};
use crate::util::now_ms;
use crate::Error;

/// The `meta` key holding the cut of the last purge a replica claimed (ms since the epoch:
/// lines older than it went).
const CLAIM_KEY: &str = "log_retention_claimed_cut_ms";

/// Days lines are kept when the server is not told otherwise.
pub const DEFAULT_DAYS: u32 = 60;

/// How often the background task purges.
pub const EVERY: Duration = Duration::from_secs(3600);

const DAY_MS: i64 = 86_400_000;

/// The time before which lines are purged: `days` days before `now_ms`.
fn cut(days: u32, now_ms: i64) -> i64 {
    now_ms.saturating_sub(i64::from(days).saturating_mul(DAY_MS))
}

/// Deletes the lines older than `days` days before `now_ms` (whole chunks whose newest line
/// is older than the cut).
pub fn purge(logs: &LogStore, days: u32, now_ms: i64) -> Result<Purged, Error> {
    logs.write(|c| store::purge_older_than(c, cut(days, now_ms)))
}

/// The purge of lines older than `cut` (ms since the epoch), unless another replica on the
/// same PostgreSQL database claimed a purge to a cut at most half [`EVERY`] before this one
/// (`None`: skipped). On SQLite, where one server owns the files, it always runs.
pub fn purge_once(c: &mut Conn, cut: i64) -> Result<Option<Purged>, Error> {
    if c.engine() == Engine::Postgres && !claim(c, cut)? {
        return Ok(None);
    }
    store::purge_older_than(c, cut).map(Some)
}

/// Claims the purge to `cut` unless one to a cut less than half [`EVERY`] before it was
/// claimed.
fn claim(c: &Conn, cut: i64) -> Result<bool, Error> {
    let covered = cut - EVERY.as_millis() as i64 / 2;
    let mut stmt = c.prepare(
        "INSERT INTO meta (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value
         WHERE CAST(meta.value AS BIGINT) <= ?3
         RETURNING value",
    )?;
    let mut rows = stmt.query(params![CLAIM_KEY, cut.to_string(), covered])?;
    Ok(rows.next()?.is_some())
}

/// Purges now and then every [`EVERY`], forever; `days == 0` keeps every line (returns at
/// once). A failed purge is logged and retried at the next tick.
pub async fn run(logs: LogStore, days: u32) {
    if days == 0 {
        tracing::info!("log retention disabled: log lines are kept forever");
        return;
    }
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let now = now_ms();
        let cut = cut(days, now);
        match logs.call_write(move |c| purge_once(c, cut)).await {
            Ok(None) => tracing::debug!("log retention: another replica purges this hour"),
            Ok(Some(p)) if p.chunks > 0 => tracing::info!(
                chunks = p.chunks,
                lines = p.lines,
                "log retention: purged {} lines older than {days} days",
                p.lines
            ),
            Ok(_) => tracing::debug!("log retention: no line older than {days} days"),
            Err(e) => tracing::error!("log retention: purge failed: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::testing::{batch, store};

    #[test]
    fn purges_only_lines_older_than_the_retention() {
        let (_d, logs) = store();
        let now = 100 * DAY_MS;
        logs.ingest(batch(1, "n0", 0, now - 61 * DAY_MS, &["old"]))
            .unwrap();
        logs.ingest(batch(1, "n0", 1, now - 59 * DAY_MS, &["kept"]))
            .unwrap();
        let p = purge(&logs, 60, now).unwrap();
        assert_eq!((p.chunks, p.lines), (1, 1));
        assert_eq!(
            logs.read(|c| store::expired_through(c, 1)).unwrap(),
            Some(now - 61 * DAY_MS)
        );
        assert_eq!(purge(&logs, 60, now).unwrap(), Purged::default());
    }
}
