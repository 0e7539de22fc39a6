//! The store a test runs on: embedded SQLite in the test's folder by default, or, when
//! `RUNLENS_TEST_DATABASE_URL` names a PostgreSQL server, a database of the test's own
//! there (`make test` runs the suite both ways).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use server::db::pg::{create_database, with_database};
use server::Store;

/// The PostgreSQL server the tests run on, if any.
pub fn pg_url() -> Option<String> {
    std::env::var("RUNLENS_TEST_DATABASE_URL")
        .ok()
        .filter(|u| !u.is_empty())
}

/// A fresh, migrated store for one test (files such as artifacts in `dir`).
pub fn open_store(dir: &Path) -> Store {
    open_named(dir).0
}

/// [`open_store`] and, on PostgreSQL, the name of its database (to copy it with
/// [`copy_store`]).
pub fn open_named(dir: &Path) -> (Store, Option<String>) {
    // The server's warnings and errors, shown with a failing test's output.
    let _ = tracing_subscriber::fmt()
        .with_env_filter("warn")
        .with_test_writer()
        .try_init();
    match pg_url() {
        Some(url) => {
            let (store, name) = pg_store(&url, dir, None);
            (store, Some(name))
        }
        None => (Store::open(dir).expect("store"), None),
    }
}

/// A store over a copy of the PostgreSQL database `name` (whose store must be dropped).
pub fn copy_store(name: &str, dir: &Path) -> Store {
    let url = pg_url().expect("a PostgreSQL test run");
    pg_store(&url, dir, Some(name)).0
}

/// A database of its own, copied from `from`, or else from a template this process
/// migrated once (copying is much faster than migrating each time).
fn pg_store(url: &str, dir: &Path, from: Option<&str>) -> (Store, String) {
    static TEMPLATE: OnceLock<String> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let pid = std::process::id();
    let template = from.unwrap_or_else(|| {
        TEMPLATE.get_or_init(|| {
            let name = format!("runlens_tpl_{pid}");
            create_database(url, &name, None).expect("create the template database");
            drop(
                Store::open_postgres(&with_database(url, &name), dir)
                    .expect("migrate the template"),
            );
            name
        })
    });
    let name = format!("t_{pid}_{}", NEXT.fetch_add(1, Ordering::Relaxed));
    // The template's connections close in the background after its store is dropped.
    let mut attempt = 0;
    loop {
        match create_database(url, &name, Some(template)) {
            Ok(()) => break,
            Err(e) if attempt < 200 && e.message().contains("being accessed") => {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => panic!("create database {name}: {}", e.message()),
        }
    }
    let store =
        Store::open_postgres(&with_database(url, &name), dir).expect("open the test database");
    (store, name)
}
