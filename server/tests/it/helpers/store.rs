//! The store a test runs on: embedded SQLite in the test's folder by default, or, when
//! `RUNLENS_TEST_DATABASE_URL` names a PostgreSQL server, a database of the test's own
//! there (`make test` runs the suite both ways).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex, OnceLock};
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
    open_db(dir).0
}

/// [`open_store`] and, on PostgreSQL, the name of its database (dropped with the store).
pub fn open_db(dir: &Path) -> (Store, Option<String>) {
    match pg_url() {
        Some(url) => {
            let (store, name) = pg_store(&url, dir, None);
            drop_on_close(&url, &store, &name);
            (store, Some(name))
        }
        None => (Store::open(dir).expect("store"), None),
    }
}

/// [`open_store`] and, on PostgreSQL, the name of its database, which outlives the store
/// (to copy it with [`copy_store`] after the store is dropped).
pub fn open_named(dir: &Path) -> (Store, Option<String>) {
    match pg_url() {
        Some(url) => {
            let (store, name) = pg_store(&url, dir, None);
            (store, Some(name))
        }
        None => (Store::open(dir).expect("store"), None),
    }
}

/// The store of [`open_db`] opened once more (migrating it again): SQLite in `dir`, or
/// the PostgreSQL database `db`.
pub fn reopen(dir: &Path, db: Option<&str>) -> Result<Store, server::Error> {
    match (pg_url(), db) {
        (Some(url), Some(db)) => Store::open_postgres(&with_database(&url, db), dir),
        _ => Store::open(dir),
    }
}

/// The `RUNLENS_DATABASE_URL` for the real binary over the data dir `dir`: on a PostgreSQL
/// run, a database of the dir's own, created empty on first use and kept for the process (a
/// restarted server, a CLI command and [`open_dir_store`] find the same data); `None` on
/// SQLite, where the data dir holds the database.
pub fn binary_database_url(dir: &Path) -> Option<String> {
    static DATABASES: OnceLock<Mutex<HashMap<PathBuf, String>>> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let url = pg_url()?;
    let mut dbs = DATABASES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let name = dbs.entry(dir.to_path_buf()).or_insert_with(|| {
        let name = format!(
            "bin_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        create_database(&url, &name, None).expect("create the data dir's database");
        name
    });
    Some(with_database(&url, name))
}

/// The store the real binary serves for the data dir `dir` (see [`binary_database_url`]),
/// opened in the test process.
pub fn open_dir_store(dir: &Path) -> Result<Store, server::Error> {
    match binary_database_url(dir) {
        Some(url) => Store::open_postgres(&url, dir),
        None => Store::open(dir),
    }
}

/// A store over a copy of the PostgreSQL database `name` (whose store must be dropped),
/// dropped with the store; and the copy's name.
pub fn copy_store(name: &str, dir: &Path) -> (Store, String) {
    let url = pg_url().expect("a PostgreSQL test run");
    let (store, copy) = pg_store(&url, dir, Some(name));
    drop_on_close(&url, &store, &copy);
    (store, copy)
}

/// The database files of a closed SQLite store in `from` (its WAL included, its shared
/// memory index left out) copied into `to`.
pub fn copy_sqlite_files(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).expect("store dir") {
        let e = e.expect("entry");
        let name = e.file_name();
        let shm = name.to_string_lossy().ends_with("-shm");
        if e.file_type().expect("file type").is_file() && !shm {
            std::fs::copy(e.path(), to.join(&name)).expect("copy");
        }
    }
}

/// An empty folder `NAME-PID` in cargo's temp dir for integration tests (`target/tmp`),
/// for something the process keeps to its end (a static is never dropped, so a temp dir
/// would stay behind in /tmp). Folders of `NAME` left by processes that are gone are removed.
pub fn process_dir(name: &str) -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let prefix = format!("{name}-");
    // Without /proc (not Linux) nothing is known to be gone, so nothing is removed.
    let gone =
        |pid: u32| Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists();
    for e in std::fs::read_dir(root).into_iter().flatten().flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let pid = file
            .strip_prefix(&prefix)
            .and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(gone) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
    let dir = root.join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("process dir");
    dir
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

/// Drops the database `name` once `store` (every clone of it) is gone, so a run of
/// thousands of tests does not fill the disk. One thread of the process drops them in
/// turn, `WITH (FORCE)` because the closed pool's sessions may still be ending.
fn drop_on_close(url: &str, store: &Store, name: &str) {
    static DROPPER: OnceLock<Mutex<mpsc::Sender<String>>> = OnceLock::new();
    let sender = DROPPER
        .get_or_init(|| {
            let (send, receive) = mpsc::channel::<String>();
            let url = url.to_owned();
            std::thread::spawn(move || {
                let admin = server::db::pg::PgPool::connect(&url, 1).expect("dropper connects");
                for name in receive {
                    let dropped = admin.get().and_then(|c| {
                        c.execute_batch(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                    });
                    if let Err(e) = dropped {
                        eprintln!("drop test database {name}: {}", e.message());
                    }
                }
            });
            Mutex::new(send)
        })
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let name = name.to_owned();
    store.on_close(move || {
        // The receiver lives as long as the process; a send cannot fail before exit.
        let _ = sender.send(name);
    });
}

/// On a PostgreSQL run, a test's database goes away once its store (every clone) is
/// dropped, or thousands of tests fill the disk.
#[ignore = "PostgreSQL only: cargo-test-pg runs it"]
#[test]
fn pg_a_test_database_is_dropped_with_its_store() {
    let url = pg_url().expect("needs RUNLENS_TEST_DATABASE_URL");
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, name) = open_db(dir.path());
    let name = name.expect("a database name");
    let app = server::app(
        server::AppState::new(store.clone()),
        &server::StaticConfig::default(),
    );
    let admin = server::db::pg::PgPool::connect(&url, 1).expect("admin");
    let exists = || {
        admin
            .get()
            .and_then(|c| {
                c.query_row(
                    "SELECT count(*) FROM pg_database WHERE datname = ?1",
                    server::db::params![name],
                    |r| r.get::<_, i64>(0),
                )
            })
            .expect("query")
            > 0
    };
    assert!(exists());
    drop((store, app));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "{name} still exists 10 s after its store was dropped"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs `f` inside one task of a current-thread tokio runtime on a thread of its own (as
/// a `#[tokio::test]` body runs); its result, or `None` if it did not finish in 60 s.
fn in_one_tokio_task<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let _ = done.send(rt.block_on(async move { f() }));
    });
    finished.recv_timeout(Duration::from_secs(60)).ok()
}

/// Store calls from inside a tokio task that never yields (a `#[tokio::test]` body, the
/// demo's ticks) must not hang on PostgreSQL: the pool's join handle used to draw on that
/// task's cooperative budget, and after 128 calls the wake-up was deferred to a runtime
/// the blocked thread never let run.
#[test]
fn many_store_calls_inside_a_tokio_task_do_not_hang() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open_store(dir.path());
    let finished = in_one_tokio_task(move || {
        for _ in 0..500 {
            store
                .blocking(|c| Ok(c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))?))
                .expect("select");
        }
    });
    assert!(
        finished.is_some(),
        "500 store calls inside one tokio task did not finish in 60 s"
    );
}

/// Spends the current task's cooperative budget without yielding, as a long stretch of
/// work between two awaits does.
fn spend_budget() {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    for _ in 0..10_000 {
        let step = std::pin::pin!(tokio::task::coop::consume_budget());
        if std::future::Future::poll(step, &mut cx).is_pending() {
            return;
        }
    }
    panic!("the task's budget never ran out");
}

/// A store call from a task whose budget is already spent must not hang on PostgreSQL
/// either: a connection's first use of a statement prepares it through deadpool's
/// statement cache, whose semaphore drew on that budget (the demo's live-run test hung
/// there, idle in its write transaction).
#[test]
fn a_store_call_inside_a_tokio_task_whose_budget_is_spent_does_not_hang() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open_store(dir.path());
    let found = in_one_tokio_task(move || {
        spend_budget();
        assert!(!tokio::task::coop::has_budget_remaining());
        store.blocking(|c| server::tracking::experiments::find_id(c, "0"))
    })
    .expect("a store call inside a task whose budget is spent did not finish in 60 s");
    assert_eq!(found.expect("the default experiment"), 0);
}
