//! What the two SQLite databases (`store`: `runlens.db`, `logs`: `logs.db`) share: the
//! connection alias, the busy timeout, switching a file to WAL, and [`sql`], the named
//! SQLite-only fragments that store-side modules use. A leaf module, so `store` (which
//! opens the log store beside its own file) and `logs` both build on it without a loop.

pub mod sql;

use std::time::{Duration, Instant};

use rusqlite::Connection;

/// The connection domain functions take (`tracking::runs::get(conn, ..)`). Handlers, the
/// CLI and the demo name only this alias, never the driver, so a PostgreSQL store can
/// replace it without touching them.
pub type Conn = rusqlite::Connection;

/// How long a statement waits for a lock another connection holds (`PRAGMA busy_timeout`).
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Switches the file to WAL (persistent in the file: every later connection is in WAL mode
/// too) and returns the journal mode now in force. SQLite answers this PRAGMA with
/// `SQLITE_BUSY` at once, without the busy handler, while another process opening the same
/// new file holds a lock, so it is retried here for as long as the busy timeout allows.
pub(crate) fn switch_to_wal(c: &Connection) -> rusqlite::Result<String> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    let mut pause = Duration::from_millis(1);
    loop {
        match c.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)) {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy && Instant::now() < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}
