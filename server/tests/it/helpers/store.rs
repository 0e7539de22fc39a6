//! The store a test runs on: embedded SQLite in the test's folder by default, or, when
//! `RUNLENS_TEST_DATABASE_URL` names a PostgreSQL server, a database of the test's own
//! there (`make test` runs the suite both ways).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
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
    match pg_url() {
        Some(url) => {
            let (store, name) = pg_store(&url, dir, None);
            // Kept for the copies made of it (not dropped when its store is).
            CREATED
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|n| *n != name);
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
    drop_finished(url);
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
    CREATED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(name.clone());
    (store, name)
}

/// The test databases this process made that may still be in use.
static CREATED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Drops the databases of finished tests (a database still in use refuses, and is tried
/// again next time), so a run of hundreds of tests does not fill the disk.
fn drop_finished(url: &str) {
    let names: Vec<String> =
        std::mem::take(&mut *CREATED.lock().unwrap_or_else(|e| e.into_inner()));
    if names.is_empty() {
        return;
    }
    let Ok(admin) = server::db::pg::PgPool::connect(url, 1) else {
        CREATED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(names);
        return;
    };
    let Ok(conn) = admin.get() else {
        CREATED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(names);
        return;
    };
    let mut kept = Vec::new();
    for name in names {
        if conn
            .execute_batch(&format!("DROP DATABASE IF EXISTS \"{name}\""))
            .is_err()
        {
            kept.push(name);
        }
    }
    CREATED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend(kept);
}
