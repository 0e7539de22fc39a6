//! The database layer, the one module that knows which engine is underneath: the
//! connection every store-side function takes ([`Conn`]), its statements (`Stmt`), rows
//! (`Row`), parameters (`Params`, [`params!`]), values ([`Value`], [`ToValue`],
//! `FromValue`), transactions (`Transaction`), errors (`DbError`) and pools
//! (`Pool`). The API has rusqlite's shape (`prepare_cached`, `query_row`, `query_map`,
//! `optional()`), so each statement keeps one SQL text, but no type of a driver crosses
//! it: the rest of the crate names only these types.
//!
//! Two engines ([`Engine`]) sit behind the same calls:
//! - embedded SQLite (`sqlite`: the pool's connection manager, and what both SQLite
//!   files, `runlens.db` and `logs.db`, share: the busy timeout, switching to WAL, a pool
//!   opened over a prepared file); its connection is reachable only through
//!   `Conn::sqlite`, for SQLite's own settings (`PRAGMA`s, the busy timeout);
//! - PostgreSQL ([`pg`], and its notifications in `pg::notify`): `?N` placeholders are
//!   translated and values coerced to the inferred parameter types.
//!
//! The few SQL constructs that differ between the engines are named in `sql`; the
//! schema migrations of every database runlens keeps run through [`migrate`]; every
//! writer of the server (the store's, the log store's) commits in groups through
//! `group_write`.
//!
//! Nothing else in the crate is imported here but the crate's error type (`crate::Error`,
//! which the SQLite helpers and the migrations answer with) and its clock (`util::now_ms`,
//! when a migration is recorded).

mod error;
pub(crate) mod group_write;
pub mod migrate;
mod params;
pub mod pg;
mod pool;
pub(crate) mod sql;
pub(crate) mod sqlite;
mod stmt;
mod tx;
mod value;

use std::path::Path;

pub(crate) use pool::{Pool, Pooled};

pub(crate) use error::{DbError, Result};
pub use params::params_from_iter;
pub(crate) use params::Params;
pub(crate) use stmt::{Row, Stmt};
pub use tx::Behavior;
pub(crate) use tx::{run_lock_key, Transaction};
pub(crate) use value::FromValue;
pub use value::{ToValue, Value, ValueRef};

/// `params![a, b, c]`: the statement's parameters `?1, ?2, ?3`, each anything that is
/// [`ToValue`] (numbers, strings, bytes, `Option`s of them, [`Value`]).
#[macro_export]
macro_rules! db_params {
    () => { &[] as &[&dyn $crate::db::ToValue] };
    ($($p:expr),+ $(,)?) => { &[$(&$p as &dyn $crate::db::ToValue),+] as &[&dyn $crate::db::ToValue] };
}
pub use crate::db_params as params;

/// Which SQL engine a connection talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Embedded SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

/// A connection to the store's database.
pub struct Conn {
    inner: Inner,
    /// The SQLite pool this connection is lent from, while it is lent ([`Pool::get`]):
    /// where [`Conn::sibling`] finds a second connection.
    lent_from: Option<sqlite::SqlitePool>,
}

enum Inner {
    Sqlite(rusqlite::Connection),
    Pg(pg::PgConn),
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn").field("path", &self.path()).finish()
    }
}

impl Conn {
    /// Opens (creating if needed) the SQLite database file `path`.
    pub fn open_sqlite(path: impl AsRef<Path>) -> Result<Self> {
        Ok(Conn::from_sqlite(rusqlite::Connection::open(
            path.as_ref(),
        )?))
    }

    /// A connection over an SQLite connection the caller opened (the pool's manager).
    pub(crate) fn from_sqlite(inner: rusqlite::Connection) -> Self {
        Conn {
            inner: Inner::Sqlite(inner),
            lent_from: None,
        }
    }

    pub(crate) fn from_pg(inner: pg::PgConn) -> Self {
        Conn {
            inner: Inner::Pg(inner),
            lent_from: None,
        }
    }

    /// The engine this connection talks to.
    pub fn engine(&self) -> Engine {
        match self.inner {
            Inner::Sqlite(_) => Engine::Sqlite,
            Inner::Pg(_) => Engine::Postgres,
        }
    }

    /// A second connection to the same database for reads that run beside this
    /// connection's on another core (each in its own snapshot): from the pool this one is
    /// lent from, when that pool can give one without waiting; `None` otherwise (and for
    /// a connection opened outside a pool).
    pub fn sibling(&self) -> Option<Pooled> {
        match &self.inner {
            Inner::Sqlite(_) => self
                .lent_from
                .as_ref()?
                .try_get()
                .map(|c| Pooled::Sqlite(pool::Lent(c))),
            Inner::Pg(c) => c.sibling().map(|c| Pooled::Pg(Conn::from_pg(c))),
        }
    }

    /// The SQLite connection underneath, for SQLite's own settings; `None` on PostgreSQL.
    pub(crate) fn sqlite(&self) -> Option<&rusqlite::Connection> {
        match &self.inner {
            Inner::Sqlite(c) => Some(c),
            Inner::Pg(_) => None,
        }
    }

    /// The SQLite connection underneath, mutably (the pool's health check).
    pub(crate) fn sqlite_mut(&mut self) -> Option<&mut rusqlite::Connection> {
        match &mut self.inner {
            Inner::Sqlite(c) => Some(c),
            Inner::Pg(_) => None,
        }
    }

    /// Prepares `sql` through the connection's statement cache: the way to run a
    /// statement whose text is fixed (or drawn from a small set).
    pub(crate) fn prepare_cached(&self, sql: &str) -> Result<Stmt<'_>> {
        match &self.inner {
            Inner::Sqlite(c) => Ok(Stmt::cached(c.prepare_cached(sql)?)),
            Inner::Pg(c) => Ok(Stmt::pg(c, c.prepare(sql, true)?)),
        }
    }

    /// Prepares `sql` without caching it: for text built per request (search filters, id
    /// lists), which would only crowd the cache.
    pub fn prepare(&self, sql: &str) -> Result<Stmt<'_>> {
        match &self.inner {
            Inner::Sqlite(c) => Ok(Stmt::plain(c.prepare(sql)?)),
            Inner::Pg(c) => Ok(Stmt::pg(c, c.prepare(sql, false)?)),
        }
    }

    /// Runs one statement and returns how many rows it changed.
    pub fn execute<P: Params>(&self, sql: &str, params: P) -> Result<usize> {
        self.prepare(sql)?.execute(params)
    }

    /// Runs `sql`, one or more statements without parameters (DDL, migrations).
    pub fn execute_batch(&self, sql: &str) -> Result<()> {
        match &self.inner {
            Inner::Sqlite(c) => Ok(c.execute_batch(sql)?),
            Inner::Pg(c) => c.batch(sql),
        }
    }

    /// The first row of one statement, decoded by `f`; `DbError::is_no_rows` when there
    /// is none (see `OptionalExtension::optional`).
    pub fn query_row<T, P, F>(&self, sql: &str, params: P, f: F) -> Result<T>
    where
        P: Params,
        F: FnOnce(&Row<'_>) -> Result<T>,
    {
        self.prepare(sql)?.query_row(params, f)
    }

    /// Starts a transaction (see [`Behavior`]); it rolls back when dropped uncommitted.
    pub fn transaction(&self, behavior: Behavior) -> Result<Transaction<'_>> {
        Transaction::begin(self, behavior)
    }

    /// Starts a write transaction that changes only the rows of the runs whose
    /// [`run_lock_key`]s are `keys` (see [`Transaction::begin_for_runs`]).
    pub(crate) fn transaction_for_runs(&self, keys: &[i32]) -> Result<Transaction<'_>> {
        Transaction::begin_for_runs(self, keys)
    }

    /// The database file, for a file-backed database.
    pub(crate) fn path(&self) -> Option<&str> {
        self.sqlite()?.path().filter(|p| !p.is_empty())
    }
}

/// `.optional()` on a single-row answer: `Ok(None)` instead of the no-rows error.
pub(crate) trait OptionalExtension<T> {
    /// `Ok(Some(v))` for a row, `Ok(None)` for none, other errors unchanged.
    fn optional(self) -> Result<Option<T>>;
}

impl<T> OptionalExtension<T> for Result<T> {
    fn optional(self) -> Result<Option<T>> {
        match self {
            Ok(v) => Ok(Some(v)),
            Err(e) if e.is_no_rows() => Ok(None),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests;
