//! The SQLite side of the seam, and what both SQLite files (`runlens.db`, `logs.db`)
//! share: the pool's connection manager handing out [`Conn`]s, the busy timeout and its
//! retry ([`retry_busy`]), switching a file to WAL ([`switch_to_wal`]), and opening a pool
//! over a prepared file ([`prepared_pool`]).

use std::path::Path;
use std::time::{Duration, Instant};

use r2d2::{HandleError, ManageConnection, Pool};
use r2d2_sqlite::SqliteConnectionManager;

use super::{Conn, DbError, Result};
use crate::Error;

/// Sets up a new connection.
pub(crate) type Init = fn(&Conn) -> Result<()>;

/// Runs an [`Init`] on a connection (the caller's busy-retry policy).
pub(crate) type Retry = fn(&Conn, Init) -> Result<()>;

/// A pool of SQLite connections handed out as [`Conn`]s.
pub(crate) type SqlitePool = r2d2::Pool<Manager>;

/// The pool's connection manager: r2d2_sqlite's, each new connection wrapped as a [`Conn`]
/// and set up by `init` (retried while SQLite answers busy at once).
#[derive(Debug)]
pub(crate) struct Manager {
    inner: SqliteConnectionManager,
    init: Init,
    retry: Retry,
}

impl Manager {
    /// A manager for the database file `path`; `init` sets up each new connection and
    /// `retry` runs it (the caller's busy-retry policy).
    pub(crate) fn file(path: &std::path::Path, init: Init, retry: Retry) -> Self {
        Manager {
            inner: SqliteConnectionManager::file(path),
            init,
            retry,
        }
    }
}

impl ManageConnection for Manager {
    type Connection = Conn;
    type Error = DbError;

    fn connect(&self) -> Result<Conn> {
        let conn = Conn::from_sqlite(self.inner.connect()?);
        (self.retry)(&conn, self.init)?;
        Ok(conn)
    }

    fn is_valid(&self, conn: &mut Conn) -> Result<()> {
        match conn.sqlite_mut() {
            Some(c) => Ok(self.inner.is_valid(c)?),
            None => Ok(()),
        }
    }

    fn has_broken(&self, conn: &mut Conn) -> bool {
        conn.sqlite_mut().is_some_and(|c| self.inner.has_broken(c))
    }
}

/// How long a statement waits for a lock another connection holds (`PRAGMA busy_timeout`).
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `f` again while SQLite answers `SQLITE_BUSY` at once, for at most `timeout`, with
/// short growing pauses. Some statements get that answer without SQLite calling the busy
/// handler (switching the journal mode while another process opens the same new file,
/// reading a WAL file's index while another connection is still setting it up), so the
/// busy timeout alone does not cover them.
pub(crate) fn retry_busy<T>(timeout: Duration, mut f: impl FnMut() -> Result<T>) -> Result<T> {
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
pub(crate) fn switch_to_wal(c: &Conn) -> Result<String> {
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
    init: Init,
    prepare: impl FnOnce(&mut Conn) -> std::result::Result<T, Error>,
    errors: Box<dyn HandleError<DbError>>,
) -> std::result::Result<(SqlitePool, T), Error> {
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
        let got: Result<()> = retry_busy(Duration::from_millis(100), || Err(busy()));
        assert!(got.is_err());
        assert!(started.elapsed() < Duration::from_secs(2));
        // Other errors are not retried.
        let mut calls = 0;
        let got: Result<()> = retry_busy(Duration::from_secs(5), || {
            calls += 1;
            Err(DbError::Sqlite(rusqlite::Error::InvalidQuery))
        });
        assert!(got.is_err());
        assert_eq!(calls, 1);
    }
}
