//! Transactions: begun on a connection, committed explicitly, rolled back when dropped.

use std::ops::Deref;

use super::{Conn, Dialect, Result};

/// PostgreSQL: begin, then wait for the one write turn (an advisory lock held until the
/// transaction ends). The key is arbitrary but fixed: "runlens" in ASCII.
const WRITE_LOCK: &str = "BEGIN; SELECT pg_advisory_xact_lock(32217264470453875)";

/// When a transaction takes the database's write lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behavior {
    /// At its first write (a read-only transaction never does): one snapshot for a read.
    Deferred,
    /// At once: a writer waits its turn up front instead of failing to upgrade later.
    Immediate,
}

/// An open transaction. Derefs to its [`Conn`]; rolls back when dropped uncommitted.
pub struct Transaction<'c> {
    conn: &'c Conn,
    open: bool,
}

impl<'c> Transaction<'c> {
    pub(super) fn begin(conn: &'c Conn, behavior: Behavior) -> Result<Self> {
        conn.execute_batch(match (conn.dialect(), behavior) {
            (Dialect::Sqlite, Behavior::Deferred) => "BEGIN DEFERRED",
            (Dialect::Sqlite, Behavior::Immediate) => "BEGIN IMMEDIATE",
            // One snapshot for every statement, as SQLite's read transaction gives.
            (Dialect::Postgres, Behavior::Deferred) => "BEGIN ISOLATION LEVEL REPEATABLE READ",
            // SQLite's single writer, across every replica: the store's code reads,
            // decides and writes inside one transaction (docs/POSTGRES-PLAN.md §5.1).
            (Dialect::Postgres, Behavior::Immediate) => WRITE_LOCK,
        })?;
        Ok(Transaction { conn, open: true })
    }

    /// Makes the transaction's changes durable and visible.
    pub fn commit(mut self) -> Result<()> {
        self.open = false;
        if let Err(e) = self.conn.execute_batch("COMMIT") {
            // A failed COMMIT (say, busy) leaves the transaction open: undo it.
            let _ = self.conn.execute_batch("ROLLBACK");
            return Err(e);
        }
        Ok(())
    }

    /// Undoes the transaction's changes.
    pub fn rollback(mut self) -> Result<()> {
        self.open = false;
        self.conn.execute_batch("ROLLBACK")
    }
}

impl Deref for Transaction<'_> {
    type Target = Conn;

    fn deref(&self) -> &Conn {
        self.conn
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        let in_tx = self.conn.sqlite().is_none_or(|c| !c.is_autocommit());
        if self.open && in_tx {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}
