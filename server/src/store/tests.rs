//! Opening, migrating and pooling against real database files, including one made by
//! runlens 0.1.0 (`server/tests/fixtures/v0_1_0/runlens.db`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::db::Conn;
use r2d2::HandleError;

use super::{Store, MIGRATIONS, POOL_SIZE, SCHEMA};
use crate::db::migrate::{run, Outcome};

/// The data dir made by runlens 0.1.0 (see `tests/fixtures/v0_1_0/README.md`).
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v0_1_0/runlens.db")
}

/// Rows per table in the fixture, as written when it was made.
const FIXTURE_ROWS: [(&str, i64); 15] = [
    ("api_tokens", 1),
    ("experiment_grants", 5),
    ("experiment_tags", 2),
    ("experiments", 3),
    ("group_members", 1),
    ("groups", 1),
    ("latest_metrics", 5),
    ("meta", 0),
    ("metric_points", 11),
    ("metric_series", 5),
    ("params", 5),
    ("runs", 4),
    ("sessions", 1),
    ("tags", 12),
    ("users", 4),
];

fn count(c: &Conn, table: &str) -> i64 {
    c.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// `(type, name, sql)` of every schema object but SQLite's own and the migrations table.
fn schema(c: &Conn) -> Vec<(String, String, Option<String>)> {
    let mut stmt = c
        .prepare(
            "SELECT type, name, sql FROM sqlite_master
              WHERE name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY name",
        )
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

fn recorded(c: &Conn) -> Vec<(i64, String)> {
    let mut stmt = c
        .prepare("SELECT version, name FROM schema_migrations ORDER BY version")
        .unwrap();
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

fn all_recorded() -> Vec<(i64, String)> {
    MIGRATIONS
        .iter()
        .map(|m| (m.version, m.name.to_string()))
        .collect()
}

#[test]
fn migrations_are_numbered_from_one_ascending() {
    assert_eq!(MIGRATIONS[0].version, 1);
    for w in MIGRATIONS.windows(2) {
        assert!(
            w[0].version < w[1].version,
            "{} then {}",
            w[0].name,
            w[1].name
        );
    }
}

#[test]
fn a_fresh_database_gets_every_migration_once() {
    let dir = tempfile::tempdir().unwrap();
    Store::open(dir.path()).unwrap();
    let mut c = Conn::open_sqlite(dir.path().join("runlens.db")).unwrap();
    assert_eq!(recorded(&c), all_recorded());
    let again = run(&mut c, &SCHEMA).unwrap();
    let latest = MIGRATIONS.last().map_or(0, |m| m.version);
    assert_eq!(
        again,
        Outcome {
            version: latest,
            applied: 0,
            adopted: false
        }
    );
    Store::open(dir.path()).unwrap();
    assert_eq!(
        recorded(&c),
        all_recorded(),
        "a second open records nothing"
    );
}

#[test]
fn the_0_1_0_fixture_upgrades_with_nothing_lost() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runlens.db");
    std::fs::copy(fixture(), &db).unwrap();
    {
        let c = Conn::open_sqlite(&db).unwrap();
        for (table, rows) in FIXTURE_ROWS {
            assert_eq!(count(&c, table), rows, "fixture table {table}");
        }
        let has_migrations: bool = c
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(!has_migrations, "the fixture predates migrations");
    }
    let store = Store::open(dir.path()).unwrap();
    store
        .blocking(|c| {
            assert_eq!(recorded(c), all_recorded());
            for (table, rows) in FIXTURE_ROWS {
                assert_eq!(count(c, table), rows, "table {table} after the upgrade");
            }
            // The data reads back through the domain: NaN and +inf points, the deleted run.
            let alice = crate::tracking::experiments::get_by_name(c, "/Users/alice/fixture-sft")?;
            let runs = crate::tracking::search::search_run_ids(
                c,
                &[alice.experiment_id],
                "",
                &[],
                crate::tracking::ViewType::All,
                0,
                10,
            )?;
            assert_eq!(runs.len(), 3);
            let loaded = crate::tracking::runs::load_runs(c, &runs)?;
            let deleted: Vec<_> = loaded
                .iter()
                .filter(|r| r.info.lifecycle_stage == "deleted")
                .collect();
            assert_eq!(deleted.len(), 1);
            let values: Vec<f64> = loaded
                .iter()
                .flat_map(|r| r.metrics.iter().map(|m| m.point.value))
                .collect();
            assert!(values.iter().any(|v| v.is_nan()), "{values:?}");
            Ok(())
        })
        .unwrap();
    drop(store);
    let mut c = Conn::open_sqlite(&db).unwrap();
    let again = run(&mut c, &SCHEMA).unwrap();
    assert_eq!(
        (again.applied, again.adopted),
        (0, false),
        "second open: no-op"
    );
    assert_eq!(recorded(&c), all_recorded());
}

#[test]
fn an_upgraded_fixture_has_the_schema_of_a_fresh_database() {
    let fresh = tempfile::tempdir().unwrap();
    Store::open(fresh.path()).unwrap();
    let old = tempfile::tempdir().unwrap();
    std::fs::copy(fixture(), old.path().join("runlens.db")).unwrap();
    Store::open(old.path()).unwrap();
    let a = schema(&Conn::open_sqlite(fresh.path().join("runlens.db")).unwrap());
    let b = schema(&Conn::open_sqlite(old.path().join("runlens.db")).unwrap());
    assert!(a.len() >= 15, "{a:?}");
    assert_eq!(a, b);
}

#[test]
fn a_database_newer_than_this_build_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    Store::open(dir.path()).unwrap();
    let c = Conn::open_sqlite(dir.path().join("runlens.db")).unwrap();
    c.execute(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)",
        [],
    )
    .unwrap();
    let err = Store::open(dir.path()).err().expect("refused");
    assert!(format!("{err:?}").contains("newer"), "{err:?}");
    assert_eq!(recorded(&c).last().map(|r| r.0), Some(999));
}

#[test]
fn every_pooled_connection_is_wal_and_synchronous_full() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    // Hold them all at once, so each is a different connection.
    let held: Vec<_> = (0..POOL_SIZE).map(|_| store.pool.get().unwrap()).collect();
    for c in &held {
        let mode: String = c
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        let sync: i64 = c.query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap();
        let fk: i64 = c
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        assert_eq!((mode.as_str(), sync, fk), ("wal", 2, 1));
    }
}

/// Counts the errors the pool reports (`ERROR r2d2: database is locked`).
#[derive(Debug, Default)]
struct CountErrors(Arc<AtomicUsize>);

impl HandleError<crate::db::DbError> for CountErrors {
    fn handle_error(&self, error: crate::db::DbError) {
        eprintln!("pool error: {error}");
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Several processes starting on one new data dir at once (e.g. `serve` and a CLI command;
/// inside one process the pool's own connections did the same to each other while one
/// switched the file to WAL): every open succeeds and no pooled connection of either
/// database (`runlens.db`, `logs.db`) reports an error.
#[test]
fn concurrent_first_opens_neither_fail_nor_report_pool_errors() {
    let errors = Arc::new(AtomicUsize::new(0));
    for _ in 0..10 {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("runlens.db");
        let opens: Vec<_> = (0..6)
            .map(|_| {
                let (db, errors) = (db.clone(), errors.clone());
                std::thread::spawn(move || {
                    let logs_errors = Box::new(CountErrors(errors.clone()));
                    Store::open_with(&db, Box::new(CountErrors(errors)), logs_errors).map(drop)
                })
            })
            .collect();
        for open in opens {
            open.join().unwrap().expect("open");
        }
        let c = Conn::open_sqlite(&db).unwrap();
        assert_eq!(recorded(&c), all_recorded(), "migrated exactly once");
    }
    assert_eq!(errors.load(Ordering::SeqCst), 0);
}
