//! A pool of either backend's connections.

use std::ops::{Deref, DerefMut};

use super::pg::PgPool;
use super::sqlite::{Manager, SqlitePool};
use super::{Conn, DbError, Engine, Result};

/// The store's connection pool, SQLite's or PostgreSQL's.
#[derive(Clone, Debug)]
pub(crate) enum Pool {
    /// r2d2 over SQLite connections to one file.
    Sqlite(SqlitePool),
    /// deadpool over PostgreSQL connections.
    Pg(PgPool),
}

/// A connection borrowed from a [`Pool`]; back to it when dropped.
pub enum Pooled {
    /// From the SQLite pool.
    Sqlite(Lent),
    /// From the PostgreSQL pool (the connection holds its pool slot).
    Pg(Conn),
}

impl Pool {
    /// A connection, waiting for one to be free.
    pub(crate) fn get(&self) -> Result<Pooled> {
        match self {
            Pool::Sqlite(p) => {
                let mut c = p
                    .get()
                    .map_err(|e| DbError::Pool(format!("database pool: {e}")))?;
                c.lent_from = Some(p.clone());
                Ok(Pooled::Sqlite(Lent(c)))
            }
            Pool::Pg(p) => p.get().map(Pooled::Pg),
        }
    }

    /// The engine behind the pool.
    pub(crate) fn engine(&self) -> Engine {
        match self {
            Pool::Sqlite(_) => Engine::Sqlite,
            Pool::Pg(_) => Engine::Postgres,
        }
    }
}

/// A connection of the SQLite pool while it is lent: it knows its pool
/// ([`Conn::sibling`]) until it goes back (a pool's idle connections holding the pool
/// would keep it alive forever).
pub struct Lent(pub(super) r2d2::PooledConnection<Manager>);

impl Drop for Lent {
    fn drop(&mut self) {
        self.0.lent_from = None;
    }
}

impl Deref for Pooled {
    type Target = Conn;

    fn deref(&self) -> &Conn {
        match self {
            Pooled::Sqlite(c) => &c.0,
            Pooled::Pg(c) => c,
        }
    }
}

impl DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut Conn {
        match self {
            Pooled::Sqlite(c) => &mut c.0,
            Pooled::Pg(c) => c,
        }
    }
}
