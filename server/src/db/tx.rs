//! Transactions: begun on a connection, committed explicitly, rolled back when dropped.

use std::ops::Deref;

use super::{Conn, Engine, Result};

/// PostgreSQL: begin, then wait for the one write turn (an advisory lock held until the
/// transaction ends). The key is arbitrary but fixed: "runlens" in ASCII.
const WRITE_LOCK: &str = "BEGIN; SELECT pg_advisory_xact_lock(32217264470453875)";

/// The first key of the per-run write locks (`pg_advisory_xact_lock(int, int)`: a key
/// space apart from the one-bigint [`WRITE_LOCK`]): "rlru" in ASCII.
const RUN_LOCK_CLASS: i32 = 0x726c_7275;

/// The second key of the run `run_id`'s write lock: a stable 32-bit hash (FNV-1a) of the
/// id. Two runs that share a hash only wait for each other.
pub(crate) fn run_lock_key(run_id: &str) -> i32 {
    let hash = run_id.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    i32::from_ne_bytes(hash.to_ne_bytes())
}

/// PostgreSQL: begin a write that touches only the runs whose [`run_lock_key`]s are
/// `keys`: the write lock shared (any number of such writes run at once, a whole-database
/// write waits for them all), then each run's lock exclusively, in ascending order, so
/// two such writes never wait on each other in a cycle.
fn narrow_lock(keys: &[i32]) -> String {
    let mut keys = keys.to_vec();
    keys.sort_unstable();
    keys.dedup();
    let mut sql = String::from("BEGIN; SELECT pg_advisory_xact_lock_shared(32217264470453875)");
    for k in keys {
        sql.push_str(&format!(
            "; SELECT pg_advisory_xact_lock({RUN_LOCK_CLASS}, {k})"
        ));
    }
    sql
}

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
        conn.execute_batch(match (conn.engine(), behavior) {
            (Engine::Sqlite, Behavior::Deferred) => "BEGIN DEFERRED",
            (Engine::Sqlite, Behavior::Immediate) => "BEGIN IMMEDIATE",
            // One snapshot for every statement, as SQLite's read transaction gives.
            (Engine::Postgres, Behavior::Deferred) => "BEGIN ISOLATION LEVEL REPEATABLE READ",
            // SQLite's single writer, across every replica: the store's code reads,
            // decides and writes inside one transaction (docs/POSTGRES-PLAN.md §5.1).
            (Engine::Postgres, Behavior::Immediate) => WRITE_LOCK,
        })?;
        Ok(Transaction { conn, open: true })
    }

    /// Begins a write that changes only rows of the runs whose [`run_lock_key`]s are
    /// `keys` (their params, tags, metrics and the experiment's column keys, which are
    /// inserted idempotently): on PostgreSQL such writes to different runs run at once,
    /// from any replica (see [`narrow_lock`]); on SQLite it is [`Behavior::Immediate`].
    pub(super) fn begin_for_runs(conn: &'c Conn, keys: &[i32]) -> Result<Self> {
        match conn.engine() {
            Engine::Sqlite => Self::begin(conn, Behavior::Immediate),
            Engine::Postgres => {
                conn.execute_batch(&narrow_lock(keys))?;
                Ok(Transaction { conn, open: true })
            }
        }
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
    pub(crate) fn rollback(mut self) -> Result<()> {
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
