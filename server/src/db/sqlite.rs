//! The SQLite side of the seam: the pool's connection manager, handing out [`Conn`]s.

use r2d2::ManageConnection;
use r2d2_sqlite::SqliteConnectionManager;

use super::{Conn, DbError, Result};

/// Sets up a new connection.
pub type Init = fn(&Conn) -> Result<()>;

/// Runs an [`Init`] on a connection (the caller's busy-retry policy).
pub type Retry = fn(&Conn, Init) -> Result<()>;

/// A pool of SQLite connections handed out as [`Conn`]s.
pub type SqlitePool = r2d2::Pool<Manager>;

/// The pool's connection manager: r2d2_sqlite's, each new connection wrapped as a [`Conn`]
/// and set up by `init` (retried while SQLite answers busy at once).
#[derive(Debug)]
pub struct Manager {
    inner: SqliteConnectionManager,
    init: Init,
    retry: Retry,
}

impl Manager {
    /// A manager for the database file `path`; `init` sets up each new connection and
    /// `retry` runs it (the caller's busy-retry policy).
    pub fn file(path: &std::path::Path, init: Init, retry: Retry) -> Self {
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
