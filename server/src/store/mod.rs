//! The embedded SQLite store: a connection pool, the schema, and the blocking-call bridge
//! that handlers use (`store.call(|conn| ...).await`). Feature modules (`mlflow`, `v1`, ...)
//! write their own queries against `schema.sql`.

use std::path::Path;
use std::time::Duration;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::Connection;

use crate::error::Error;

/// The schema, applied on every start in this order (idempotent): tracking, identity,
/// permissions.
const SCHEMAS: [&str; 3] = [
    include_str!("schema.sql"),
    include_str!("../auth/schema.sql"),
    include_str!("../permissions/schema.sql"),
];

/// A pool of SQLite connections to one database file in WAL mode.
#[derive(Clone)]
pub struct Store {
    pool: r2d2::Pool<SqliteConnectionManager>,
}

impl Store {
    /// Opens (creating if needed) `dir/runlens.db`, applies the schema and makes sure the
    /// Default experiment `0` exists.
    pub fn open(dir: &Path) -> Result<Self, Error> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Internal(format!("cannot create {}: {e}", dir.display())))?;
        Self::open_file(&dir.join("runlens.db"))
    }

    /// Opens a database file directly (tests use a temp file).
    pub fn open_file(path: &Path) -> Result<Self, Error> {
        let manager = SqliteConnectionManager::file(path).with_init(|c| {
            // WAL + synchronous=FULL: every committed (acknowledged) write is on disk
            // before the handler answers, so a crash or kill -9 loses nothing.
            c.execute_batch(
                "PRAGMA journal_mode = WAL;
                 PRAGMA synchronous = FULL;
                 PRAGMA foreign_keys = ON;
                 PRAGMA busy_timeout = 30000;
                 PRAGMA cache_size = -32000;",
            )
        });
        let pool = r2d2::Pool::builder()
            .max_size(8)
            .connection_timeout(Duration::from_secs(30))
            .build(manager)
            .map_err(|e| Error::Internal(format!("cannot open database: {e}")))?;
        let store = Store { pool };
        store.blocking(|c| {
            for schema in SCHEMAS {
                c.execute_batch(schema)?;
            }
            init_default_experiment(c)
        })?;
        Ok(store)
    }

    /// Runs `f` with a pooled connection on the current thread (start-up, CLI, tests).
    pub fn blocking<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| Error::Internal(format!("database pool: {e}")))?;
        f(&mut conn)
    }

    /// Runs `f` with a pooled connection on tokio's blocking pool; the way handlers query.
    pub async fn call<T, F>(&self, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, Error> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.blocking(f))
            .await
            .map_err(|e| Error::Internal(format!("store task failed: {e}")))?
    }
}

/// Creates experiment `0` named `Default` if missing (MLflow clients log there by default).
fn init_default_experiment(c: &mut Connection) -> Result<(), Error> {
    let now = crate::util::now_ms();
    c.execute(
        "INSERT OR IGNORE INTO experiments
           (experiment_id, name, artifact_location, lifecycle_stage, creation_time, last_update_time)
         VALUES (0, 'Default', 'mlflow-artifacts:/0', 'active', ?1, ?1)",
        [now],
    )?;
    Ok(())
}
