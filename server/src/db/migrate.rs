//! Versioned, forward-only schema migrations: the one runner for every database runlens
//! keeps, the store's (`crate::store::SCHEMA`) and the logs' (`crate::logs::store::SCHEMA`).
//! A [`MigrationSet`] lists a database's migrations ([`Migration`]: a numbered step, one
//! SQL text per engine) and names the table that records the versions applied to a
//! database. `run` runs at every start, before the connection pool opens, and applies
//! what is missing in one transaction.
//!
//! A database made before migrations existed (runlens 0.1.0's `runlens.db`) has the tables
//! but no record of them: a set with a [`MigrationSet::legacy_table`] adopts it as version
//! 1, whose statements are idempotent. Later migrations are plain DDL that runs exactly
//! once; one that must rewrite rows in a way SQL cannot say on both engines has a data step
//! in Rust ([`Migration::data`]), run right after its statements. Never edit a released
//! migration; add the next number.

use std::collections::HashSet;

use super::{params, Behavior, Conn, Engine};
use crate::util::now_ms;
use crate::Error;

/// A migration's data step: rewrites rows on the connection (inside the migration's
/// transaction); returns how many it wrote.
pub(crate) type DataStep = fn(&Conn) -> Result<u64, Error>;

/// One schema step.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// Its number, from 1, ascending. (Numbers are taken per change in flight, so one may
    /// be missing until its change lands; `run` applies every unrecorded one.)
    pub version: i64,
    /// Its name (the file name without number and extension).
    pub name: &'static str,
    /// The statements (SQLite).
    pub sql: &'static str,
    /// The same step for PostgreSQL (the `postgres/` file of the same number and name).
    pub pg: &'static str,
    /// A data step in Rust, run after the statements in the same transaction (for what SQL
    /// cannot do on both engines, such as re-encoding rows); returns the rows it wrote.
    pub data: Option<DataStep>,
}

/// A database's migrations and where it records the ones applied.
#[derive(Debug)]
pub struct MigrationSet {
    /// The database, as messages name it ("database", "logs database").
    pub what: &'static str,
    /// What a failed migration is called in its error ("migration", "logs migration").
    pub step: &'static str,
    /// The table that records the applied versions, per engine (on PostgreSQL several
    /// sets share one database, each with a table of its own).
    pub table: fn(Engine) -> &'static str,
    /// Every migration, in order.
    pub migrations: &'static [Migration],
    /// A table whose presence in an SQLite database without the bookkeeping table marks a
    /// database made before migrations: it is adopted as version 1. `None` where there are
    /// no such databases.
    pub legacy_table: Option<&'static str>,
}

/// What [`run`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// The schema version the database is at now.
    pub version: i64,
    /// How many migrations ran (an adopted 0.1.0 database counts none).
    pub applied: usize,
    /// True when a database from before migrations was recorded as version 1.
    pub adopted: bool,
}

/// The bookkeeping table `table`; created before anything else.
fn create_table(table: &str, engine: Engine) -> String {
    let int = match engine {
        Engine::Sqlite => "INTEGER",
        Engine::Postgres => "BIGINT",
    };
    format!(
        "CREATE TABLE IF NOT EXISTS {table} (\n    version    {int} PRIMARY KEY,\n    \
         name       TEXT NOT NULL,\n    applied_at {int} NOT NULL\n)"
    )
}

/// Brings the database up to the latest version of `set`, in one IMMEDIATE transaction (so
/// two processes starting at once, e.g. `serve` and a CLI command, migrate one after the
/// other). A database at a version newer than this build knows is refused, never touched.
///
/// On PostgreSQL the transaction holds the write lock (an advisory lock), so replicas
/// starting together migrate one after the other, and DDL is transactional: a failed
/// migration leaves nothing behind.
pub(crate) fn run(conn: &mut Conn, set: &MigrationSet) -> Result<Outcome, Error> {
    let engine = conn.engine();
    let table = (set.table)(engine);
    let tx = conn.transaction(Behavior::Immediate)?;
    // Adopting a 0.1.0 database re-runs migration 1 (idempotent) and does not count it.
    let adopted = match (engine, set.legacy_table) {
        (Engine::Sqlite, Some(marker)) => is_legacy(&tx, table, marker)?,
        _ => false,
    };
    tx.execute_batch(&create_table(table, engine))?;
    let current: i64 = tx.query_row(
        &format!("SELECT coalesce(max(version), 0) FROM {table}"),
        [],
        |r| r.get(0),
    )?;
    let latest = set.migrations.last().map_or(0, |m| m.version);
    if current > latest {
        return Err(Error::Internal(format!(
            "the {} is at schema version {current}, newer than this runlens knows \
             ({latest}); run a newer runlens",
            set.what
        )));
    }
    let mut applied = 0;
    // Every migration not recorded yet, not only those above the highest: a number taken
    // by a change that lands after a later one (6 after 7) still runs.
    let done: HashSet<i64> = tx
        .prepare(&format!("SELECT version FROM {table}"))?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for m in set.migrations.iter().filter(|m| !done.contains(&m.version)) {
        apply_named(&tx, m, set.step)?;
        tx.execute(
            &format!("INSERT INTO {table} (version, name, applied_at) VALUES (?1, ?2, ?3)"),
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

/// Runs migration `m`'s statements for the connection's engine, then its data step.
pub fn apply(c: &Conn, m: &Migration) -> Result<(), Error> {
    apply_named(c, m, "migration")
}

/// [`apply`], a failure naming the migration as `step` does.
fn apply_named(c: &Conn, m: &Migration, step: &str) -> Result<(), Error> {
    let sql = match c.engine() {
        Engine::Postgres => m.pg,
        Engine::Sqlite => m.sql,
    };
    let failed = |e: &dyn std::fmt::Display| {
        Error::Internal(format!("{step} {} ({}): {e}", m.version, m.name))
    };
    c.execute_batch(sql).map_err(|e| failed(&e))?;
    if let Some(data) = m.data {
        data(c).map_err(|e| failed(&e))?;
    }
    Ok(())
}

/// True when the SQLite database has the table `marker` but not the bookkeeping `table`
/// (made before migrations).
fn is_legacy(conn: &Conn, table: &str, marker: &str) -> Result<bool, Error> {
    let exists = |name: &str| -> Result<bool, Error> {
        Ok(conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
            [name],
            |r| r.get(0),
        )?)
    };
    Ok(!exists(table)? && exists(marker)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STEPS: &[Migration] = &[
        Migration {
            version: 1,
            name: "one",
            sql: "CREATE TABLE a (x INTEGER)",
            pg: "CREATE TABLE a (x BIGINT)",
            data: None,
        },
        Migration {
            version: 2,
            name: "two",
            sql: "CREATE TABLE b (x INTEGER)",
            pg: "CREATE TABLE b (x BIGINT)",
            data: None,
        },
    ];

    fn toy_table(engine: Engine) -> &'static str {
        match engine {
            Engine::Sqlite => "toy_migrations",
            Engine::Postgres => "toy_pg_migrations",
        }
    }

    const TOY: MigrationSet = MigrationSet {
        what: "toy database",
        step: "toy migration",
        table: toy_table,
        migrations: STEPS,
        legacy_table: None,
    };

    fn internal(e: Error) -> String {
        match e {
            Error::Internal(m) => m,
            other => panic!("not an internal error: {other:?}"),
        }
    }

    #[test]
    fn a_set_runs_once_and_is_recorded_in_its_own_table() {
        let mut c = Conn::open_sqlite(":memory:").unwrap();
        let first = run(&mut c, &TOY).unwrap();
        assert_eq!(
            first,
            Outcome {
                version: 2,
                applied: 2,
                adopted: false
            }
        );
        assert_eq!(run(&mut c, &TOY).unwrap().applied, 0);
        let recorded: i64 = c
            .query_row("SELECT count(*) FROM toy_migrations", [], |r| r.get(0))
            .unwrap();
        assert_eq!(recorded, 2);
    }

    #[test]
    fn a_newer_database_is_refused_in_the_sets_words() {
        let mut c = Conn::open_sqlite(":memory:").unwrap();
        run(&mut c, &TOY).unwrap();
        c.execute(
            "INSERT INTO toy_migrations (version, name, applied_at) VALUES (3, 'future', 0)",
            [],
        )
        .unwrap();
        let err = internal(run(&mut c, &TOY).unwrap_err());
        assert_eq!(
            err,
            "the toy database is at schema version 3, newer than this runlens knows (2); \
             run a newer runlens"
        );
    }

    #[test]
    fn a_failed_migration_is_named_as_its_set_calls_it_and_leaves_nothing() {
        const BAD: &[Migration] = &[Migration {
            version: 1,
            name: "bad",
            sql: "CREATE TABLE ok (x INTEGER); CREATE TABLE",
            pg: "",
            data: None,
        }];
        let set = MigrationSet {
            migrations: BAD,
            ..TOY
        };
        let mut c = Conn::open_sqlite(":memory:").unwrap();
        let err = internal(run(&mut c, &set).unwrap_err());
        assert!(err.starts_with("toy migration 1 (bad): "), "{err}");
        let tables: i64 = c
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .unwrap();
        assert_eq!(tables, 0, "rolled back, bookkeeping table included");
    }
}
