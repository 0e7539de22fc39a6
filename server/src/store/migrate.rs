//! Versioned, forward-only schema migrations. Each migration is a numbered SQL file in
//! `migrations/` (`NNNN_name.sql`), listed in [`MIGRATIONS`]; the versions applied to a
//! database are recorded in its `schema_migrations` table. [`migrate`] runs at every start,
//! before the connection pool opens, and applies what is missing in one transaction.
//!
//! A database made by runlens 0.1.0 (before migrations existed) has the tables but no
//! `schema_migrations`: it is adopted as version 1, whose statements are idempotent.
//! Later migrations are plain DDL that runs exactly once; one that must rewrite rows in a
//! way SQL cannot say on both backends has a data step in Rust ([`Migration::data`]), run
//! right after its statements. Never edit a released migration; add the next number.

use crate::db::{params, Behavior, Conn, Engine};

use crate::util::now_ms;
use crate::Error;

/// A migration's data step: rewrites rows on the connection (inside the migration's
/// transaction); returns how many it wrote.
pub type DataStep = fn(&Conn) -> Result<u64, Error>;

/// One schema step.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// Its number, from 1, ascending. (Numbers are taken per change in flight, so one may
    /// be missing until its change lands; [`migrate`] applies every unrecorded one.)
    pub version: i64,
    /// Its name (the file name without number and extension).
    pub name: &'static str,
    /// The statements (SQLite).
    pub sql: &'static str,
    /// The same step for PostgreSQL (`migrations/postgres/`, same number and name).
    pub pg: &'static str,
    /// A data step in Rust, run after the statements in the same transaction (for what SQL
    /// cannot do on both backends, such as re-encoding rows); returns the rows it wrote.
    pub data: Option<DataStep>,
}

/// Every migration, in order.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "initial",
        sql: include_str!("migrations/0001_initial.sql"),
        pg: include_str!("migrations/postgres/0001_initial.sql"),
        data: None,
    },
    Migration {
        version: 2,
        name: "nodes",
        sql: include_str!("migrations/0002_nodes.sql"),
        pg: include_str!("migrations/postgres/0002_nodes.sql"),
        data: None,
    },
    Migration {
        version: 3,
        name: "jobs",
        sql: include_str!("migrations/0003_jobs.sql"),
        pg: include_str!("migrations/postgres/0003_jobs.sql"),
        data: None,
    },
    Migration {
        version: 4,
        name: "models",
        sql: include_str!("migrations/0004_models.sql"),
        pg: include_str!("migrations/postgres/0004_models.sql"),
        data: None,
    },
    Migration {
        version: 5,
        name: "registry",
        sql: include_str!("migrations/0005_registry.sql"),
        pg: include_str!("migrations/postgres/0005_registry.sql"),
        data: None,
    },
    Migration {
        version: 6,
        name: "metric_blocks",
        sql: include_str!("migrations/0006_metric_blocks.sql"),
        pg: include_str!("migrations/postgres/0006_metric_blocks.sql"),
        data: None,
    },
    Migration {
        version: 7,
        name: "experiment_columns",
        sql: include_str!("migrations/0007_experiment_columns.sql"),
        pg: include_str!("migrations/postgres/0007_experiment_columns.sql"),
        data: None,
    },
    Migration {
        version: 8,
        name: "signin_limits",
        sql: include_str!("migrations/0008_signin_limits.sql"),
        pg: include_str!("migrations/postgres/0008_signin_limits.sql"),
        data: None,
    },
    Migration {
        version: 9,
        name: "metric_summaries",
        sql: include_str!("migrations/0009_metric_summaries.sql"),
        pg: include_str!("migrations/postgres/0009_metric_summaries.sql"),
        data: Some(super::repack::repack_blocks),
    },
    Migration {
        version: 10,
        name: "drop_metric_blocks",
        sql: include_str!("migrations/0010_drop_metric_blocks.sql"),
        pg: include_str!("migrations/postgres/0010_drop_metric_blocks.sql"),
        data: None,
    },
    Migration {
        version: 11,
        name: "metric_chunks",
        sql: include_str!("migrations/0011_metric_chunks.sql"),
        pg: include_str!("migrations/postgres/0011_metric_chunks.sql"),
        data: None,
    },
    Migration {
        version: 12,
        name: "sort_value_indexes",
        sql: include_str!("migrations/0012_sort_value_indexes.sql"),
        pg: include_str!("migrations/postgres/0012_sort_value_indexes.sql"),
        data: None,
    },
    Migration {
        version: 13,
        name: "point_series_check",
        sql: include_str!("migrations/0013_point_series_check.sql"),
        pg: include_str!("migrations/postgres/0013_point_series_check.sql"),
        data: None,
    },
    Migration {
        version: 14,
        name: "node_access",
        sql: include_str!("migrations/0014_node_access.sql"),
        pg: include_str!("migrations/postgres/0014_node_access.sql"),
        data: None,
    },
    Migration {
        version: 15,
        name: "runs_by_end_time",
        sql: include_str!("migrations/0015_runs_by_end_time.sql"),
        pg: include_str!("migrations/postgres/0015_runs_by_end_time.sql"),
        data: None,
    },
];

/// The bookkeeping table; created before anything else.
const MIGRATIONS_TABLE: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL
)";

/// What [`migrate`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// The schema version the database is at now.
    pub version: i64,
    /// How many migrations ran (an adopted 0.1.0 database counts none).
    pub applied: usize,
    /// True when a database from before migrations was recorded as version 1.
    pub adopted: bool,
}

/// Brings the database up to the latest version, in one IMMEDIATE transaction (so two
/// processes starting at once, e.g. `serve` and a CLI command, migrate one after the other).
/// A database at a version newer than this build knows is refused, never touched.
///
/// On PostgreSQL the transaction holds the write lock (an advisory lock), so replicas
/// starting together migrate one after the other, and DDL is transactional: a failed
/// migration leaves nothing behind.
pub fn migrate(conn: &mut Conn) -> Result<Outcome, Error> {
    let pg = conn.engine() == Engine::Postgres;
    let tx = conn.transaction(Behavior::Immediate)?;
    let legacy = !pg && is_legacy(&tx)?;
    tx.execute_batch(&MIGRATIONS_TABLE.replace("INTEGER", if pg { "BIGINT" } else { "INTEGER" }))?;
    let current: i64 = tx.query_row(
        "SELECT coalesce(max(version), 0) FROM schema_migrations",
        [],
        |r| r.get(0),
    )?;
    let latest = MIGRATIONS.last().map_or(0, |m| m.version);
    if current > latest {
        return Err(Error::Internal(format!(
            "the database is at schema version {current}, newer than this runlens knows \
             ({latest}); run a newer runlens"
        )));
    }
    // Adopting a 0.1.0 database re-runs migration 1 (idempotent) and does not count it.
    let adopted = legacy;
    let mut applied = 0;
    // Every migration not recorded yet, not only those above the highest: a number taken
    // by a change that lands after a later one (6 after 7) still runs.
    let done: std::collections::HashSet<i64> = tx
        .prepare("SELECT version FROM schema_migrations")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for m in MIGRATIONS.iter().filter(|m| !done.contains(&m.version)) {
        apply(&tx, m)?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
            params![m.version, m.name, now_ms()],
        )?;
        if !(adopted && m.version == 1) {
            applied += 1;
        }
    }
    tx.commit()?;
    Ok(Outcome {
        version: latest,
        applied,
        adopted,
    })
}

/// Runs migration `m`'s statements for the connection's backend, then its data step.
pub fn apply(c: &Conn, m: &Migration) -> Result<(), Error> {
    let sql = match c.engine() {
        Engine::Postgres => m.pg,
        Engine::Sqlite => m.sql,
    };
    let failed = |e: &dyn std::fmt::Display| {
        Error::Internal(format!("migration {} ({}): {e}", m.version, m.name))
    };
    c.execute_batch(sql).map_err(|e| failed(&e))?;
    if let Some(data) = m.data {
        data(c).map_err(|e| failed(&e))?;
    }
    Ok(())
}

/// True when the database has runlens tables but no `schema_migrations` (made by 0.1.0).
fn is_legacy(conn: &Conn) -> Result<bool, Error> {
    let exists = |name: &str| -> Result<bool, Error> {
        Ok(conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
            [name],
            |r| r.get(0),
        )?)
    };
    Ok(!exists("schema_migrations")? && exists("experiments")?)
}
