//! `runlens migrate-store`: copies an embedded data dir (`runlens.db` and `logs.db`) into
//! an empty PostgreSQL database, row for row, in one PostgreSQL transaction, and verifies
//! the copy before committing it (docs/POSTGRES-PLAN.md §10 step 6).
//!
//! - Tables come from the SQLite files themselves (`sqlite_master`), so a table added
//!   later is copied without a change here; one with no PostgreSQL counterpart stops the
//!   copy (`plan`). They go in foreign-key order, a few hundred rows per INSERT
//!   (`rows`).
//! - Ids are copied as they are; afterwards every sequence (identity) is set past the
//!   highest id, and past SQLite's AUTOINCREMENT high-water mark (`target`).
//! - Derived data (metric block summaries, point counts, latest metrics, experiment
//!   columns) is written by the application in the same transaction as its base rows,
//!   not by database triggers: copying the base rows derives nothing again, so the derived
//!   tables are copied verbatim like any other. The schema's own triggers fire on DELETE
//!   only; one that fires on INSERT would be disabled for the copy (`target`).
//! - Before COMMIT, every table's row count and a sample of up to `verify::SAMPLE` (200) rows
//!   spread over it are compared column by column (`verify`); a difference rolls
//!   everything back.

mod catalog;
mod plan;
mod rows;
mod target;
mod verify;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::db::pg::PgPool;
use crate::db::{Behavior, Conn, DbError, Engine};
use crate::Store;

pub(crate) use plan::Database;

/// Why a copy did not happen. Nothing was committed to the target in any case.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// The data dir has no `runlens.db`.
    #[error("{0} has no runlens.db: not a runlens data dir")]
    NoSource(PathBuf),
    /// The SQLite store could not be opened (or migrated).
    #[error("cannot open the SQLite store in {dir}: {cause}")]
    Source {
        /// The data dir.
        dir: PathBuf,
        /// What went wrong.
        cause: String,
    },
    /// The PostgreSQL database could not be opened (or migrated).
    #[error("cannot open the PostgreSQL database: {0}")]
    Target(String),
    /// The target already holds data.
    #[error(
        "the PostgreSQL database is not empty (rows in {}); migrate-store copies into an \
         empty database only: create a new one (createdb) and point --to at it",
        few(.0)
    )]
    NotEmpty(Vec<String>),
    /// The schemas do not match (a table or column missing on PostgreSQL, a cycle).
    #[error("{0}")]
    Schema(String),
    /// The copy differs from the source; it was rolled back.
    #[error("verification failed, nothing was committed: {0}")]
    Mismatch(String),
    /// A statement failed.
    #[error("{context}: {cause}")]
    Db {
        /// What was being done.
        context: String,
        /// The database's message.
        cause: String,
    },
}

impl CopyError {
    /// A database error while doing `context`.
    fn db(context: impl std::fmt::Display) -> impl FnOnce(DbError) -> CopyError {
        move |e| CopyError::Db {
            context: context.to_string(),
            cause: e.message(),
        }
    }
}

/// A copied table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCopy {
    /// Its name (the same on both sides).
    pub table: String,
    /// The SQLite file it came from.
    pub database: Database,
    /// Rows copied (equal on both sides, verified).
    pub rows: u64,
    /// Rows compared column by column.
    pub sampled: u64,
}

/// What a copy did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The tables, in the order they were copied (foreign-key order).
    pub tables: Vec<TableCopy>,
    /// PostgreSQL tables with no SQLite counterpart, left as a fresh open made them.
    pub target_only: Vec<String>,
    /// Sequences moved past the copied ids: `table.column` and the last id handed out.
    pub sequences: Vec<(String, i64)>,
    /// Triggers disabled while copying (`table.trigger`), enabled again before commit.
    pub triggers: Vec<String>,
    /// Wall time from opening the source to the commit.
    pub elapsed: Duration,
}

impl Report {
    /// Rows copied, all tables together.
    pub fn total_rows(&self) -> u64 {
        self.tables.iter().map(|t| t.rows).sum()
    }
}

/// Copies the data dir `dir` into the empty PostgreSQL database at `url` and verifies the
/// copy. The SQLite store is opened as `serve` opens it (so it is first migrated to the
/// latest schema), the target is migrated by [`Store::open_postgres`]; a target holding
/// anything beyond what that creates is refused before it is touched.
pub fn migrate_store(dir: &Path, url: &str) -> Result<Report, CopyError> {
    let started = Instant::now();
    let main_file = dir.join("runlens.db");
    if !main_file.is_file() {
        return Err(CopyError::NoSource(dir.to_path_buf()));
    }
    let source_error = |e: &dyn std::fmt::Display| CopyError::Source {
        dir: dir.to_path_buf(),
        cause: e.to_string(),
    };
    // Opening migrates both files (and creates logs.db if missing); the copy then reads
    // them over connections of its own.
    drop(Store::open(dir).map_err(|e| source_error(&e))?);
    let main = Conn::open_sqlite(&main_file).map_err(|e| source_error(&e.message()))?;
    let logs = Conn::open_sqlite(dir.join("logs.db")).map_err(|e| source_error(&e.message()))?;

    let pool = PgPool::connect(url, 1).map_err(|e| CopyError::Target(e.message()))?;
    let dst = pool.get().map_err(|e| CopyError::Target(e.message()))?;
    // Refused before migrating, so a non-empty database is left exactly as it was.
    target::ensure_empty(&dst)?;
    drop(Store::open_postgres(url, dir).map_err(|e| CopyError::Target(e.to_string()))?);

    let mut report = copy(&main, &logs, &dst)?;
    report.elapsed = started.elapsed();
    Ok(report)
}

/// Copies the store `main` and the logs database `logs` (SQLite, migrated) into `dst`
/// (PostgreSQL, migrated, empty) in one transaction, verified before it commits.
pub(crate) fn copy(main: &Conn, logs: &Conn, dst: &Conn) -> Result<Report, CopyError> {
    let started = Instant::now();
    if main.engine() != Engine::Sqlite
        || logs.engine() != Engine::Sqlite
        || dst.engine() != Engine::Postgres
    {
        return Err(CopyError::Schema(
            "a copy goes from SQLite to PostgreSQL".to_owned(),
        ));
    }
    // One snapshot of each file for the whole copy.
    let main = main
        .transaction(Behavior::Deferred)
        .map_err(CopyError::db("reading runlens.db"))?;
    let logs = logs
        .transaction(Behavior::Deferred)
        .map_err(CopyError::db("reading logs.db"))?;
    let source = |db: Database| -> &Conn {
        match db {
            Database::Store => &main,
            Database::Logs => &logs,
        }
    };
    // The write lock: servers on the target wait until the copy commits.
    let tx = dst
        .transaction(Behavior::Immediate)
        .map_err(CopyError::db("starting the PostgreSQL transaction"))?;
    target::ensure_empty(&tx)?;
    target::clear_fresh_rows(&tx)?;
    let plan = plan::plan(&main, &logs, &tx)?;
    let triggers = target::disable_insert_triggers(&tx, &plan.tables)?;

    let mut tables = Vec::with_capacity(plan.tables.len());
    for t in &plan.tables {
        let at = Instant::now();
        let rows = rows::copy_table(source(t.database), &tx, t)?;
        tracing::debug!(table = %t.name, rows, elapsed = ?at.elapsed(), "copied");
        tables.push(TableCopy {
            table: t.name.clone(),
            database: t.database,
            rows,
            sampled: 0,
        });
    }
    target::enable_triggers(&tx, &triggers)?;
    let sequences = target::advance_sequences(&tx, &plan.tables, |t| source(t.database))?;
    for (t, copied) in plan.tables.iter().zip(&mut tables) {
        let at = Instant::now();
        copied.sampled = verify::table(source(t.database), &tx, t, copied.rows)?;
        tracing::debug!(table = %t.name, elapsed = ?at.elapsed(), "verified");
    }
    let at = Instant::now();
    tx.commit()
        .map_err(CopyError::db("committing the PostgreSQL transaction"))?;
    tracing::debug!(elapsed = ?at.elapsed(), "committed");
    Ok(Report {
        tables,
        target_only: plan.target_only,
        sequences,
        triggers,
        elapsed: started.elapsed(),
    })
}

/// The first few of `names`, and how many more.
fn few(names: &[String]) -> String {
    match names.len() {
        0..=5 => names.join(", "),
        n => format!("{} and {} more", names[..5].join(", "), n - 5),
    }
}

/// `"name"`: an identifier quoted for both SQLite and PostgreSQL.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
