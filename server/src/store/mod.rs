//! The [`Store`] handle: the database's connection pool (`runlens.db` on SQLite, or a
//! PostgreSQL database), the log store beside it, and the queue its writes take
//! (`db::group_write`); opening one prepares the database (SQLite's `PRAGMA`s and WAL, the
//! migrations of [`MIGRATIONS`], run by `crate::db::migrate`). Handlers query through the
//! blocking-call bridge (`store.call(|conn| ...).await`). The SQL lives with the modules
//! that own the tables (`tracking`, `auth`'s store files, `permissions`); handlers call
//! their typed functions, and the connection types are `crate::db`'s.
//!
//! Also here: [`copy`] (`runlens migrate-store`, an embedded data dir copied into
//! PostgreSQL), `meta` (the store's own key/value facts) and `repack` (migration 9's data
//! step).

pub mod copy;
pub(crate) mod meta;
mod repack;
mod schema;
#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::Arc;

use r2d2::HandleError;

pub use schema::MIGRATIONS;
pub(crate) use schema::SCHEMA;

use crate::db::group_write::{GroupWriter, PG_TURNS};
use crate::db::sqlite::{prepared_pool, switch_to_wal, LogPoolErrors, BUSY_TIMEOUT};
use crate::db::{migrate, Conn};

use crate::error::Error;

/// Connections in the pool.
const POOL_SIZE: u32 = 8;

/// Connections in a PostgreSQL pool (shared by the store and the logs).
const PG_POOL_SIZE: usize = 16;

/// A pool of SQLite connections to one database file in WAL mode.
#[derive(Clone)]
pub struct Store {
    pool: crate::db::Pool,
    /// The folder for the files that live beside the database (artifacts): beside the
    /// SQLite file, or the data dir given with a PostgreSQL URL.
    files: Option<std::path::PathBuf>,
    /// The job runs' log lines, in their own database file beside this one.
    logs: crate::logs::LogStore,
    /// The queue of [`Store::call_write`]'s writes: first come, first served, committed
    /// in groups.
    writes: Arc<GroupWriter>,
}

/// The logs database beside the database file `path`: `logs.db` for `runlens.db`,
/// `<stem>-logs.db` for any other name.
fn logs_path(path: &Path) -> std::path::PathBuf {
    let name = match path.file_stem().and_then(|s| s.to_str()) {
        Some("runlens") | None => "logs.db".to_owned(),
        Some(stem) => format!("{stem}-logs.db"),
    };
    path.with_file_name(name)
}

impl Store {
    /// Opens (creating if needed) `dir/runlens.db`, migrates it to the latest schema and
    /// makes sure the Default experiment `0` exists.
    pub fn open(dir: &Path) -> Result<Self, Error> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Internal(format!("cannot create {}: {e}", dir.display())))?;
        Self::open_file(&dir.join("runlens.db"))
    }

    /// Opens a database file directly (tests use a temp file).
    pub(crate) fn open_file(path: &Path) -> Result<Self, Error> {
        Self::open_with(
            path,
            Box::new(LogPoolErrors("database")),
            Box::new(LogPoolErrors("logs database")),
        )
    }

    /// Prepares the file over ONE connection (WAL, migrations, Default experiment) and only
    /// then builds the pool (see [`prepared_pool`]), so pooled connections never race each
    /// other for the lock that switching the journal mode or migrating takes; then the logs
    /// database beside it the same way. `errors` and `log_errors` get each pool's
    /// connection errors.
    fn open_with(
        path: &Path,
        errors: Box<dyn HandleError<crate::db::DbError>>,
        log_errors: Box<dyn HandleError<crate::db::DbError>>,
    ) -> Result<Self, Error> {
        let cannot_open = |e: &dyn std::fmt::Display| {
            Error::Internal(format!("cannot open database {}: {e}", path.display()))
        };
        let prepare = |conn: &mut Conn| {
            configure(conn).map_err(|e| cannot_open(&e))?;
            let mode = switch_to_wal(conn).map_err(|e| cannot_open(&e))?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(cannot_open(&format!("journal mode is {mode}, not wal")));
            }
            let done = migrate::run(conn, &SCHEMA)?;
            init_default_experiment(conn)?;
            Ok(done)
        };
        let (pool, done) = prepared_pool(path, POOL_SIZE, configure, prepare, errors)?;
        tracing::info!(
            "database at version {}, applied {} migrations{}",
            done.version,
            done.applied,
            if done.adopted {
                " (a database made before migrations, recorded as version 1)"
            } else {
                ""
            }
        );
        let logs = crate::logs::LogStore::open_with(&logs_path(path), log_errors)?;
        Ok(Store {
            pool: crate::db::Pool::Sqlite(pool),
            files: path.parent().map(Path::to_path_buf),
            logs,
            writes: Arc::default(),
        })
    }

    /// Opens the PostgreSQL database at `url` (`postgres://user:pass@host:port/db`),
    /// migrates it (the store's tables and the logs' tables live in it side by side) and
    /// makes sure the Default experiment exists. Replicas starting together migrate one
    /// after the other (see `db::migrate::run`).
    ///
    /// `dir` holds the files that live beside the database (artifacts, unless they go to
    /// an object store): every replica must see the same folder.
    pub fn open_postgres(url: &str, dir: &Path) -> Result<Self, Error> {
        let pool = crate::db::pg::PgPool::connect(url, PG_POOL_SIZE)
            .map_err(|e| Error::Internal(format!("cannot open database: {}", e.message())))?;
        let done = {
            let mut conn = pool.get()?;
            let done = migrate::run(&mut conn, &SCHEMA)?;
            init_default_experiment(&conn)?;
            migrate::run(&mut conn, &crate::logs::store::SCHEMA)?;
            done
        };
        tracing::info!(
            "PostgreSQL database at version {}, applied {} migrations",
            done.version,
            done.applied
        );
        let logs = crate::logs::LogStore::over_postgres(pool.clone());
        Ok(Store {
            pool: crate::db::Pool::Pg(pool),
            files: Some(dir.to_path_buf()),
            logs,
            writes: Arc::new(GroupWriter::new(PG_TURNS)),
        })
    }

    /// The folder for the files that live beside the database (see [`Store::open_postgres`]).
    pub(crate) fn files_dir(&self) -> Option<&Path> {
        self.files.as_deref()
    }

    /// Runs `hook` once every clone of this store has been dropped and its PostgreSQL
    /// connections closed; false (and `hook` dropped unrun) on SQLite. Tests drop their
    /// own database there.
    pub fn on_close(&self, hook: impl FnOnce() + Send + 'static) -> bool {
        match &self.pool {
            crate::db::Pool::Pg(pool) => {
                pool.on_close(hook);
                true
            }
            crate::db::Pool::Sqlite(_) => false,
        }
    }

    /// The PostgreSQL pool, on PostgreSQL (for the replicas' notifications).
    pub fn pg_pool(&self) -> Option<&crate::db::pg::PgPool> {
        match &self.pool {
            crate::db::Pool::Pg(pool) => Some(pool),
            crate::db::Pool::Sqlite(_) => None,
        }
    }

    /// The engine behind the store.
    pub fn engine(&self) -> crate::db::Engine {
        self.pool.engine()
    }

    /// The log store (`logs.db` beside `runlens.db`).
    pub fn logs(&self) -> &crate::logs::LogStore {
        &self.logs
    }

    /// Runs `f` with a pooled connection on the current thread (start-up, CLI, tests).
    pub fn blocking<T>(&self, f: impl FnOnce(&mut Conn) -> Result<T, Error>) -> Result<T, Error> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| Error::Internal(format!("database pool: {e}")))?;
        f(&mut conn)
    }

    /// Runs the write `f` in a transaction on tokio's blocking pool, after the writes of
    /// this process that came before it and committed together with those queued beside
    /// it (see `db::group_write`); answers once its group has committed. `f` failing undoes
    /// only `f`'s changes.
    pub async fn call_write<T, F>(&self, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&Conn) -> Result<T, Error> + Send + 'static,
    {
        self.write_on_turn(None, f).await
    }

    /// [`Store::call_write`] for a write that changes only rows of the run `run_id` (its
    /// params, tags, metrics, and the experiment's column keys): on PostgreSQL it locks
    /// only that run, so writes to different runs commit at once, on every replica.
    pub async fn call_write_run<T, F>(&self, run_id: &str, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&Conn) -> Result<T, Error> + Send + 'static,
    {
        self.write_on_turn(Some(run_id.to_owned()), f).await
    }

    async fn write_on_turn<T, F>(&self, run: Option<String>, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&Conn) -> Result<T, Error> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || {
            let pool = &store.pool;
            store.writes.write(
                || {
                    pool.get()
                        .map_err(|e| Error::Internal(format!("database pool: {e}")))
                },
                run.as_deref(),
                f,
            )
        })
        .await
        .map_err(|e| Error::Internal(format!("store task failed: {e}")))?
    }

    /// Runs `f` with a pooled connection on tokio's blocking pool; the way handlers query.
    pub async fn call<T, F>(&self, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&mut Conn) -> Result<T, Error> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.blocking(f))
            .await
            .map_err(|e| Error::Internal(format!("store task failed: {e}")))?
    }
}

/// Per-connection settings. The busy timeout comes first, so that nothing after it fails
/// at once on a lock another connection holds. synchronous=FULL: every committed
/// (acknowledged) write is on disk before the handler answers, so a crash or kill -9
/// loses nothing. Room for 64 prepared statements: a log-batch alone runs about 15
/// distinct ones (points, block summaries, latest values, tags), rusqlite's default.
/// Reads through a memory map of up to [`MMAP_BYTES`] of the file: a page already in the
/// OS's cache then costs no system call (an MLflow search of 1,000 runs ordered by a
/// metric, over an experiment of 100,000, went from 0.32-0.37 to 0.18-0.25 s; the page
/// reads had been system calls). Writes still go through the WAL as before.
fn configure(c: &Conn) -> crate::db::Result<()> {
    if let Some(s) = c.sqlite() {
        s.busy_timeout(BUSY_TIMEOUT)?;
        s.set_prepared_statement_cache_capacity(64);
    }
    c.execute_batch(
        "PRAGMA synchronous = FULL;
         PRAGMA foreign_keys = ON;
         PRAGMA cache_size = -32000;",
    )?;
    c.execute_batch(&format!("PRAGMA mmap_size = {MMAP_BYTES};"))
}

/// The most of the database file a connection reads through a memory map (address space,
/// not memory: the pages are the OS's file cache, shared by every connection).
const MMAP_BYTES: u64 = 1 << 30;

/// Creates experiment `0` named `Default` if missing (MLflow clients log there by default).
fn init_default_experiment(c: &Conn) -> Result<(), Error> {
    let now = crate::util::now_ms();
    c.execute(
        "INSERT INTO experiments
           (experiment_id, name, artifact_location, lifecycle_stage, creation_time, last_update_time)
         VALUES (0, 'Default', 'mlflow-artifacts:/0', 'active', ?1, ?1)
         ON CONFLICT DO NOTHING",
        [now],
    )?;
    Ok(())
}
