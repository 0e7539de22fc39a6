//! Durability: acknowledged log-batch calls survive `kill -9`. Spawns the real binary,
//! logs from several threads, kills it mid-burst, restarts it on the same data directory
//! and checks that every acknowledged point and param is there.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::binary::{admin_http, Server, ADMIN_PASSWORD};
use crate::helpers::TestApp;

const THREADS: usize = 4;
const PER_BATCH: usize = 100;

#[test]
fn acknowledged_points_survive_kill_9() {
    let _heavy = crate::helpers::binary::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let run = server.ok(
        "POST",
        "/api/2.0/mlflow/runs/create",
        Some(&json!({"experiment_id": "0"})),
    );
    let run_id = run["run"]["info"]["run_id"].as_str().unwrap().to_string();

    let acked: Arc<Mutex<Vec<(usize, usize)>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let count = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (acked, stop, count, run_id) =
                (acked.clone(), stop.clone(), count.clone(), run_id.clone());
            let port = server.port;
            std::thread::spawn(move || {
                for batch in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let metrics: Vec<Value> = (0..PER_BATCH)
                        .map(|i| {
                            json!({"key": format!("t{t}"), "value": (batch * PER_BATCH + i) as f64,
                            "timestamp": 1_700_000_000_000i64, "step": batch * PER_BATCH + i})
                        })
                        .collect();
                    let body = json!({"run_id": run_id, "metrics": metrics,
                        "params": [{"key": format!("p{t}_{batch}"), "value": "v"}]});
                    match admin_http(port, "POST", "/api/2.0/mlflow/runs/log-batch", Some(&body)) {
                        Some((200, _)) => {
                            acked.lock().unwrap().push((t, batch));
                            count.fetch_add(1, Ordering::Relaxed);
                        }
                        _ => break,
                    }
                }
            })
        })
        .collect();
    // Kill while the writers are still going.
    let deadline = Instant::now() + Duration::from_secs(60);
    while count.load(Ordering::Relaxed) < 60 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    server.kill9();
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() >= 60,
        "only {} batches acknowledged",
        acked.len()
    );

    let server = Server::start(dir.path());
    for t in 0..THREADS {
        let path = format!("/api/2.0/mlflow/metrics/get-history?run_id={run_id}&metric_key=t{t}");
        let h = server.ok("GET", &path, None);
        let steps: BTreeSet<i64> = h["metrics"].as_array().map_or(BTreeSet::new(), |a| {
            a.iter().map(|m| m["step"].as_i64().unwrap()).collect()
        });
        for (_, batch) in acked.iter().filter(|(tt, _)| *tt == t) {
            for i in 0..PER_BATCH {
                let step = (batch * PER_BATCH + i) as i64;
                assert!(
                    steps.contains(&step),
                    "thread {t} batch {batch}: step {step} lost"
                );
            }
        }
    }
    let run = server.ok(
        "GET",
        &format!("/api/2.0/mlflow/runs/get?run_id={run_id}"),
        None,
    );
    let params: BTreeSet<String> = run["run"]["data"]["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["key"].as_str().unwrap().to_string())
        .collect();
    for (t, batch) in &acked {
        assert!(
            params.contains(&format!("p{t}_{batch}")),
            "param p{t}_{batch} lost"
        );
    }
}

/// Every pooled connection is in WAL mode with `synchronous=FULL` (2): with
/// `synchronous=OFF` the kill -9 test above still passes (the page cache survives a killed
/// process), so the setting itself is checked. Eight threads hold a connection each at once,
/// so several distinct pooled connections answer.
#[test]
fn every_pooled_connection_is_wal_and_synchronous_full() {
    let app = TestApp::sqlite();
    let barrier = std::sync::Barrier::new(8);
    let seen: Vec<(String, i64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let (store, barrier) = (app.store.clone(), &barrier);
                s.spawn(move || {
                    store
                        .blocking(|c| {
                            barrier.wait();
                            let mode: String =
                                c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
                            let sync: i64 = c.query_row("PRAGMA synchronous", [], |r| r.get(0))?;
                            Ok((mode, sync))
                        })
                        .expect("pragma")
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(seen.len(), 8);
    for (mode, sync) in seen {
        assert_eq!(mode.to_lowercase(), "wal");
        assert_eq!(sync, 2, "synchronous=FULL");
    }
}

/// SIGINT and SIGTERM stop the server cleanly: exit code 0, a final log line, and the
/// database intact with everything acknowledged before the signal.
#[test]
fn sigint_and_sigterm_shut_down_cleanly() {
    for signal in ["INT", "TERM"] {
        let dir = tempfile::tempdir().unwrap();
        let mut server = Server::start_with(dir.path(), &[], &[("RUNLENS_LOG", "info")]);
        let run = server.ok(
            "POST",
            "/api/2.0/mlflow/runs/create",
            Some(&json!({"experiment_id": "0", "run_name": "before-signal"})),
        );
        let run_id = run["run"]["info"]["run_id"].as_str().unwrap().to_string();
        let batch = json!({"run_id": run_id, "params": [{"key": "k", "value": "v"}]});
        server.ok("POST", "/api/2.0/mlflow/runs/log-batch", Some(&batch));
        server.signal(signal);
        let status = server
            .wait_exit(Duration::from_secs(15))
            .unwrap_or_else(|| panic!("SIG{signal}: still running after 15 s"));
        assert_eq!(status.code(), Some(0), "SIG{signal}: {status}");
        let log = server.output();
        assert!(
            log.lines()
                .last()
                .is_some_and(|l| l.contains("runlens stopped")),
            "SIG{signal}: no final log line: {log}"
        );
        let store = crate::helpers::store::open_dir_store(dir.path()).expect("reopen");
        let (ok, value): (String, String) = store
            .blocking(|c| {
                // PostgreSQL checks its pages itself; SQLite's file is checked here.
                let ok = if crate::helpers::store::pg_url().is_some() {
                    "ok".to_owned()
                } else {
                    c.query_row("PRAGMA integrity_check", [], |r| r.get(0))?
                };
                let v = c.query_row(
                    "SELECT value FROM params WHERE run_uuid = ?1 AND key = 'k'",
                    [&run_id],
                    |r| r.get(0),
                )?;
                Ok((ok, v))
            })
            .expect("db");
        assert_eq!((ok.as_str(), value.as_str()), ("ok", "v"), "SIG{signal}");
    }
}

/// API tokens are stored hashed: the raw token appears nowhere in the database files.
#[tokio::test]
async fn tokens_are_stored_hashed() {
    let app = TestApp::sqlite();
    app.user("alice", false);
    let (cookie, csrf, _) = app.login("alice", crate::helpers::PASSWORD).await;
    let r = app
        .call(
            axum::http::Method::POST,
            "/api/v1/tokens",
            &[("cookie", &cookie), ("x-csrf-token", &csrf)],
            Some(json!({"name": "ci"})),
        )
        .await;
    let via_api = r.body["token"].as_str().expect("token").to_string();
    let direct = app.token("alice");
    // Both tokens work, so they were stored somehow.
    for t in [&via_api, &direct] {
        let r = app.get_as(t, "/api/v1/session").await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    app.store
        .blocking(|c| {
            c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
            Ok(())
        })
        .unwrap();
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(app.dir()).unwrap() {
        bytes.extend(std::fs::read(entry.unwrap().path()).unwrap());
    }
    assert!(bytes.len() > 4096, "read the database files");
    for t in [&via_api, &direct] {
        // The first characters are kept in clear to recognise a token in lists.
        let secret = &t[t.len() - 30..];
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "the raw token {t} is in the database file"
        );
    }
}

/// The administrator's password (from the environment, or the random one printed once)
/// never reaches the log, even at trace level and after signing in with it.
#[test]
fn admin_password_never_reaches_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), &[], &[("RUNLENS_LOG", "trace")]);
    server.ok(
        "GET",
        "/api/2.0/mlflow/experiments/search?max_results=1",
        None,
    );
    let bad = server::auth::basic_header("admin", "not-the-password");
    let _ = server.http_with(
        "GET /api/v1/session HTTP/1.1\r\n",
        &[("Authorization", &bad)],
        "",
    );
    let log = server.output();
    assert!(log.contains("admin"), "the log was captured: {log}");
    assert!(!log.contains(ADMIN_PASSWORD), "{log}");
    assert!(!log.contains("not-the-password"), "{log}");
    drop(server);

    // No password given: a random one is printed once (to stderr, for the operator) and
    // never logged again.
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(
        dir.path(),
        &[],
        &[("RUNLENS_LOG", "trace"), ("RUNLENS_ADMIN_PASSWORD", "")],
    );
    let first = server.output();
    let pw = first
        .lines()
        .find_map(|l| l.trim().strip_prefix("password:"))
        .map(|p| p.trim().to_string())
        .unwrap_or_else(|| panic!("no password line: {first}"));
    assert!(pw.len() >= 20, "{pw}");
    let basic = server::auth::basic_header("admin", &pw);
    let r = server.http_with(
        "GET /api/v1/session HTTP/1.1\r\n",
        &[("Authorization", &basic)],
        "",
    );
    assert_eq!(r.map(|r| r.0), Some(200));
    let log = server.output();
    assert_eq!(log.matches(pw.as_str()).count(), 1, "{log}");
}
