//! What the two SQLite databases (`store`: `runlens.db`, `logs`: `logs.db`) share: the
//! connection alias, the busy timeout, switching a file to WAL, opening a pool over a
//! prepared file ([`prepared_pool`]), and [`sql`], the named
//! SQLite-only fragments that store-side modules use. A leaf module, so `store` (which
//! opens the log store beside its own file) and `logs` both build on it without a loop.

pub mod sql;

use std::path::Path;
use std::time::{Duration, Instant};

use r2d2::{HandleError, Pool};

use crate::db::DbError;
use crate::Error;

/// The connection domain functions take (`tracking::runs::get(conn, ..)`): the database
/// seam's [`crate::db::Conn`]. Nothing outside `db` and this module names the driver.
pub type Conn = crate::db::Conn;

pub use crate::db::sqlite::{Manager, SqlitePool};

/// How long a statement waits for a lock another connection holds (`PRAGMA busy_timeout`).
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `f` again while SQLite answers `SQLITE_BUSY` at once, for at most `timeout`, with
/// short growing pauses. Some statements get that answer without SQLite calling the busy
/// handler (switching the journal mode while another process opens the same new file,
/// reading a WAL file's index while another connection is still setting it up), so the
/// busy timeout alone does not cover them.
pub(crate) fn retry_busy<T>(
    timeout: Duration,
    mut f: impl FnMut() -> crate::db::Result<T>,
) -> crate::db::Result<T> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        match f() {
            Err(e) if e.is_busy() && Instant::now() < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Switches the file to WAL (persistent in the file: every later connection is in WAL mode
/// too) and returns the journal mode now in force, retrying `SQLITE_BUSY` for as long as
/// the busy timeout allows (see [`retry_busy`]).
pub(crate) fn switch_to_wal(c: &Conn) -> crate::db::Result<String> {
    retry_busy(BUSY_TIMEOUT, || {
        c.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
    })
}

/// A pool's connection errors (a connection that cannot be opened) go to the log, naming
/// the database (the pool's default handler logs a bare `ERROR r2d2: ...`).
#[derive(Debug)]
pub(crate) struct LogPoolErrors(pub &'static str);

impl HandleError<DbError> for LogPoolErrors {
    fn handle_error(&self, error: DbError) {
        tracing::error!("{} connection: {error}", self.0);
    }
}

/// A pool of `size` connections to the database file `path`, each set up by `init`, opened
/// only after `prepare` (WAL, migrations) has run over a connection of its own. That
/// connection stays open until every pooled connection exists, so they attach to a WAL
/// index that is already set up rather than racing to rebuild it for a file whose last
/// connection just checkpointed it and removed its WAL; and each `init` retries an
/// immediate `SQLITE_BUSY` (see [`retry_busy`]) instead of reporting it to `errors`.
/// Returns the pool and what `prepare` returned.
pub(crate) fn prepared_pool<T>(
    path: &Path,
    size: u32,
    init: fn(&Conn) -> crate::db::Result<()>,
    prepare: impl FnOnce(&mut Conn) -> Result<T, Error>,
    errors: Box<dyn HandleError<DbError>>,
) -> Result<(SqlitePool, T), Error> {
    let cannot_open = |e: &dyn std::fmt::Display| {
        Error::Internal(format!("cannot open database {}: {e}", path.display()))
    };
    let mut first = Conn::open_sqlite(path).map_err(|e| cannot_open(&e))?;
    let prepared = prepare(&mut first)?;
    let manager = Manager::file(path, init, |c, init| retry_busy(BUSY_TIMEOUT, || init(c)));
    let pool = Pool::builder()
        .max_size(size)
        .connection_timeout(BUSY_TIMEOUT)
        .error_handler(errors)
        .build(manager)
        .map_err(|e| cannot_open(&e))?;
    drop(first);
    Ok((pool, prepared))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy() -> DbError {
        DbError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            None,
        ))
    }

    #[test]
    fn busy_answers_are_retried_until_the_timeout() {
        let mut calls = 0;
        let got = retry_busy(Duration::from_secs(5), || {
            calls += 1;
            if calls < 4 {
                Err(busy())
            } else {
                Ok(calls)
            }
        });
        assert_eq!(got.unwrap(), 4);
        let started = Instant::now();
        let got: crate::db::Result<()> = retry_busy(Duration::from_millis(100), || Err(busy()));
        assert!(got.is_err());
        assert!(started.elapsed() < Duration::from_secs(2));
        // Other errors are not retried.
        let mut calls = 0;
        let got: crate::db::Result<()> = retry_busy(Duration::from_secs(5), || {
            calls += 1;
            Err(DbError::Sqlite(rusqlite::Error::InvalidQuery))
        });
        assert!(got.is_err());
        assert_eq!(calls, 1);
    }
}
