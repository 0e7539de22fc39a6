//! Two replicas on one database: two servers, each with its own store (pool),
//! live bus and caches, over the same database and data dir, as behind a load balancer
//! without sticky sessions. Signing in, the sign-in limiter and resuming a log stream work
//! on either backend; the live wake-ups between replicas (LISTEN/NOTIFY) and the single
//! retention purge are PostgreSQL's, and their tests say so when skipped.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use server::auth::users;

use crate::helpers::store::{open_db, pg_url};
use crate::logs_api::{Events, LiveServer};
use crate::workspace::live::{batch, experiment, mlflow, points_of, run, Live};

const PASSWORD: &str = "correct horse battery";

/// Signs `user` in on `s` with `password`: (status, `name=value` of the session cookie).
async fn sign_in(s: &LiveServer, user: &str, password: &str) -> (u16, Option<String>) {
    let r = reqwest::Client::new()
        .post(format!("{}/api/v1/session", s.base))
        .json(&json!({ "username": user, "password": password }))
        .send()
        .await
        .expect("sign in");
    let cookie = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("runlens_session="))
        .map(|v| v.split(';').next().unwrap_or("").to_owned());
    (r.status().as_u16(), cookie)
}

/// A server and a replica of it on PostgreSQL (the tests that use it are PostgreSQL's
/// only, `why`, and ignored on SQLite).
async fn pg_replicas(why: &str) -> (LiveServer, LiveServer) {
    assert!(pg_url().is_some(), "needs RUNLENS_TEST_DATABASE_URL: {why}");
    let a = LiveServer::start().await;
    let b = a.replica().await;
    (a, b)
}

fn add_user(s: &LiveServer, name: &str) {
    s.store
        .blocking(|c| users::create_user(c, name, Some(PASSWORD), false))
        .expect("user");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_made_on_one_replica_works_on_the_other() {
    let a = LiveServer::start().await;
    let b = a.replica().await;
    add_user(&a, "alice");
    let (status, cookie) = sign_in(&a, "alice", PASSWORD).await;
    assert_eq!(status, 200);
    let cookie = cookie.expect("a session cookie");
    let me: Value = reqwest::Client::new()
        .get(format!("{}/api/v1/session", b.base))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("session on b")
        .json()
        .await
        .expect("json");
    assert_eq!(me["username"], "alice", "{me}");
    // Signing out on B ends the session on A too.
    let csrf = me["csrf_token"].as_str().expect("csrf").to_owned();
    let out = reqwest::Client::new()
        .delete(format!("{}/api/v1/session", b.base))
        .header("cookie", &cookie)
        .header("x-csrf-token", csrf)
        .send()
        .await
        .expect("sign out");
    assert!(out.status().is_success(), "{}", out.status());
    let after = reqwest::Client::new()
        .get(format!("{}/api/v1/session", a.base))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("session on a");
    assert_eq!(after.status().as_u16(), 401);
    drop(b);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_sign_ins_on_one_replica_count_on_the_other() {
    let a = LiveServer::start().await;
    let b = a.replica().await;
    add_user(&a, "alice");
    // Five wrong passwords spread over both replicas (as a load balancer would) ...
    for i in 0..server::auth::limiter::MAX_FAILURES {
        let s = if i % 2 == 0 { &a } else { &b };
        assert_eq!(sign_in(s, "alice", "wrong").await.0, 401);
    }
    // ... and the right one is refused on either, from this address, for now.
    for s in [&a, &b] {
        assert_eq!(sign_in(s, "alice", PASSWORD).await.0, 429);
    }
    drop(b);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_follower_on_one_replica_resumes_on_the_other_with_no_gap() {
    let a = LiveServer::start().await;
    let b = a.replica().await;
    let jr = a.job_run("replicated", &["n0"], 1).await;
    let path = format!("/api/v1/runs/{}/logs/stream?from=0", jr.runs[0]);
    let mut on_a = Events::open(&a, &a.admin, &path, None).await;
    a.ship(jr.id, 1, "n0", 0, &[(1, "one"), (2, "two")]).await;
    let mut seen = Vec::new();
    let mut last_id = String::new();
    while seen.len() < 2 {
        let (lines, id) = on_a.lines(Duration::from_secs(5)).await;
        seen.extend(lines);
        last_id = id;
    }
    // A goes away mid-stream; lines keep coming through B; the browser reconnects to B
    // with the last id it saw.
    drop(on_a);
    let _a = a_stops(a);
    b.ship(jr.id, 1, "n0", 2, &[(3, "three")]).await;
    b.ship(jr.id, 1, "n0", 3, &[(4, "four")]).await;
    let mut on_b = Events::open(&b, &b.admin, &path, Some(&last_id)).await;
    while seen.len() < 4 {
        seen.extend(on_b.lines(Duration::from_secs(5)).await.0);
    }
    assert_eq!(seen, ["one", "two", "three", "four"]);
}

/// Stops server `a` (its streams end, its port closes) but keeps its data dir, which
/// the replica shares: returned, to drop after the replica.
fn a_stops(mut a: LiveServer) -> LiveServer {
    a.stop_serving();
    a
}

#[ignore = "PostgreSQL only: cargo-test-pg runs it"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_log_lines_ingested_on_one_replica_wake_followers_on_the_other_at_once() {
    let (a, b) = pg_replicas("replicas share live wake-ups on PostgreSQL only").await;
    let jr = a.job_run("notify", &["n0"], 1).await;
    let path = format!("/api/v1/runs/{}/logs/stream", jr.runs[0]);
    let mut on_b = Events::open(&b, &b.admin, &path, None).await;
    let (event, _, _) = on_b.next(Duration::from_secs(5)).await;
    assert_eq!(event, "status");
    // Well under the followers' one-second poll, several times: a NOTIFY woke them.
    for i in 0..5u64 {
        let sent = Instant::now();
        a.ship(jr.id, 1, "n0", i, &[(i as i64, "hello")]).await;
        let (lines, _) = on_b.lines(Duration::from_secs(5)).await;
        let took = sent.elapsed();
        assert_eq!(lines, ["hello"]);
        assert!(took < Duration::from_millis(500), "line {i} took {took:?}");
    }
    drop(on_b);
    drop(b);
}

#[ignore = "PostgreSQL only: cargo-test-pg runs it"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_a_chart_on_one_replica_follows_metrics_logged_on_the_other() {
    let (a, b) = pg_replicas("replicas share the live bus on PostgreSQL only").await;
    let exp = experiment(&a, "/Users/root/replicated").await;
    let r = run(&a, &exp, "r").await;
    let mut live = Live::open(
        &b,
        &b.admin,
        &format!("/api/v1/experiments/{exp}/live?run={r}"),
    )
    .await;
    let sent = Instant::now();
    mlflow(&a, "/runs/log-batch", batch(&r, "loss", 0..4)).await;
    let (got, _) = live
        .until(Duration::from_secs(5), |u| points_of(u, &r).count() == 4)
        .await;
    let took = sent.elapsed();
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert_eq!(points_of(&got, &r).collect::<Vec<_>>(), [0, 1, 2, 3]);
    // A run finished on A shows as finished on B's page.
    mlflow(
        &a,
        "/runs/update",
        json!({ "run_id": r, "status": "FINISHED", "end_time": 5_000 }),
    )
    .await;
    let (got, _) = live
        .until(Duration::from_secs(5), |u| {
            u.iter()
                .flat_map(|u| &u.runs)
                .any(|c| c.run_id == r && c.status == "FINISHED")
        })
        .await;
    assert!(!got.is_empty());
    drop(live);
    drop(b);
}

#[ignore = "PostgreSQL only: cargo-test-pg runs it"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_the_retention_purge_runs_once_across_replicas() {
    let (a, b) = pg_replicas("one server owns a SQLite data dir").await;
    let cut = server::util::now_ms() - 60 * 86_400_000;
    let purge = |s: &LiveServer, cut: i64| {
        s.store
            .logs()
            .write(|c| server::logs::retention::purge_once(c, cut))
            .expect("purge")
    };
    assert!(purge(&a, cut).is_some(), "the first replica purges");
    assert!(
        purge(&b, cut + 1_000).is_none(),
        "the second skips this hour"
    );
    assert!(
        purge(&a, cut + 2_000).is_none(),
        "and so does the first, until the next"
    );
    // An hour later, or with fewer days kept (a later cut), it purges again.
    assert!(purge(&b, cut + 3_600_000).is_some(), "the next hour");
    assert!(
        purge(&a, cut + 30 * 86_400_000).is_some(),
        "a replica keeping 30 days, not 60"
    );
    drop(b);
}

/// Logs `keys` as params (valued `value`) and metrics (at `step`) into run `r` straight
/// through `store`, as the log-batch endpoint does.
async fn log_keys(
    store: &server::Store,
    r: &str,
    keys: Vec<String>,
    step: i64,
    value: usize,
) -> Result<(), server::Error> {
    use server::tracking::log_batch::{log_batch, Batch};
    use server::tracking::model::{Metric, Point};
    let run = r.to_owned();
    store
        .call_write_run(r, move |c| {
            let batch = Batch {
                metrics: keys
                    .iter()
                    .map(|k| Metric {
                        key: k.clone(),
                        point: Point {
                            step,
                            timestamp: 1,
                            value: value as f64,
                        },
                    })
                    .collect(),
                params: keys
                    .iter()
                    .map(|k| (k.clone(), value.to_string()))
                    .collect(),
                tags: Vec::new(),
            };
            log_batch(c, &run, batch, false).map(drop)
        })
        .await
}

/// On PostgreSQL a write to one run locks only that run: while A holds a write to run 1
/// open, B writes to run 2 at once, a second write to run 1 waits its turn, and so does a
/// write that may change anything (the global lock every write took before).
#[ignore = "PostgreSQL only: cargo-test-pg runs it"]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pg_writes_to_different_runs_commit_side_by_side_on_two_replicas() {
    let (a, b) = pg_replicas("SQLite has one writer").await;
    let exp = experiment(&a, "/Users/root/side-by-side").await;
    let r1 = run(&a, &exp, "one").await;
    let r2 = run(&a, &exp, "two").await;
    const HOLD: Duration = Duration::from_millis(1500);
    let start = Instant::now();
    let held = {
        let store = a.store.clone();
        let r1 = r1.clone();
        tokio::spawn(async move {
            store
                .call_write_run(&r1.clone(), move |c| {
                    c.execute(
                        "INSERT INTO tags (run_uuid, key, value) VALUES (?1, 'held', 'yes')",
                        [r1.as_str()],
                    )?;
                    std::thread::sleep(HOLD);
                    Ok(())
                })
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    log_keys(&b.store, &r2, vec!["loss".into()], 0, 1)
        .await
        .expect("run 2");
    let other_run = start.elapsed();
    assert!(other_run < Duration::from_millis(1200), "{other_run:?}");
    let same_run = {
        let b = b.store.clone();
        let r1 = r1.clone();
        tokio::spawn(async move {
            b.call_write_run(&r1.clone(), move |c| {
                // The held write committed first: its tag is there.
                let held: i64 = c.query_row(
                    "SELECT count(*) FROM tags WHERE run_uuid = ?1 AND key = 'held'",
                    [r1.as_str()],
                    |r| r.get(0),
                )?;
                Ok((held, Instant::now()))
            })
            .await
        })
    };
    let whole = b
        .store
        .call_write(|_| Ok(Instant::now()))
        .await
        .expect("a whole write");
    held.await.expect("task").expect("held write");
    let (seen, at) = same_run.await.expect("task").expect("run 1 again");
    assert_eq!(
        seen, 1,
        "the second write to run 1 ran after the first committed"
    );
    assert!(at - start >= HOLD, "{:?}", at - start);
    assert!(whole - start >= HOLD, "{:?}", whole - start);
    drop(b);
}

/// Many writers on two replicas into runs of one experiment, each logging the same new
/// keys in its own order (the experiment's column keys are shared by all its runs): every
/// write commits, none deadlocks, and every value reads back.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writers_on_two_replicas_lose_nothing() {
    let a = LiveServer::start().await;
    let b = if pg_url().is_some() {
        Some(a.replica().await)
    } else {
        None
    };
    let exp = experiment(&a, "/Users/root/many-writers").await;
    const RUNS: usize = 12;
    const ROUNDS: usize = 6;
    let mut runs = Vec::new();
    for i in 0..RUNS {
        runs.push(run(&a, &exp, &format!("w{i}")).await);
    }
    let mut tasks = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let s = match (&b, i % 2) {
            (Some(b), 1) => b.store.clone(),
            _ => a.store.clone(),
        };
        let r = r.clone();
        tasks.push(tokio::spawn(async move {
            for round in 0..ROUNDS {
                let mut keys: Vec<String> = (0..4).map(|k| format!("k{round}_{k}")).collect();
                if i % 2 == 1 {
                    keys.reverse();
                }
                log_keys(&s, &r, keys, round as i64, i)
                    .await
                    .unwrap_or_else(|e| panic!("run {i} round {round}: {e:?}"));
            }
        }));
    }
    for t in tasks {
        t.await.expect("writer");
    }
    let (params, points, columns): (i64, i64, i64) = a
        .store
        .blocking(|c| {
            Ok(c.query_row(
                "SELECT (SELECT count(*) FROM params WHERE value <> ''),
                        (SELECT count(*) FROM metric_points),
                        (SELECT count(*) FROM experiment_columns)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?)
        })
        .expect("counts");
    let per_run = (ROUNDS * 4) as i64;
    assert_eq!(params, RUNS as i64 * per_run);
    assert_eq!(points, RUNS as i64 * per_run);
    // Each key is a param and a metric column of the one experiment.
    assert!(columns >= 2 * per_run, "{columns}");
    drop(b);
}

/// The server processes' sessions on `store`'s database whose last statement was a
/// `LISTEN`, by pid.
fn listening_sessions(store: &server::Store) -> Vec<i64> {
    store
        .blocking(|c| {
            let pids: String = c.query_row(
                "SELECT coalesce(string_agg(pid::text, ',' ORDER BY pid), '')
                   FROM pg_stat_activity
                  WHERE datname = current_database() AND query LIKE 'LISTEN %'",
                [],
                |r| r.get(0),
            )?;
            Ok(pids.split(',').filter_map(|p| p.parse().ok()).collect())
        })
        .expect("sessions")
}

#[ignore = "PostgreSQL only: cargo-test-pg runs it"]
#[test]
fn pg_one_listening_session_serves_every_channel_and_comes_back_after_a_drop() {
    assert!(
        pg_url().is_some(),
        "needs RUNLENS_TEST_DATABASE_URL: LISTEN/NOTIFY is PostgreSQL's"
    );
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_db(dir.path());
    let pool = store.pg_pool().expect("a PostgreSQL store").clone();
    let (tx, heard) = std::sync::mpsc::channel::<(&'static str, Option<String>)>();
    for channel in ["runlens_test_a", "runlens_test_b"] {
        let tx = std::sync::Mutex::new(tx.clone());
        pool.listen(
            channel,
            std::sync::Arc::new(move |payload: Option<&str>| {
                let tx = tx.lock().unwrap_or_else(|e| e.into_inner());
                drop(tx.send((channel, payload.map(str::to_owned))));
            }),
        );
    }
    let notify = |channel: &str, payload: &str| {
        store
            .blocking(|c| {
                c.query_row("SELECT pg_notify(?1, ?2)::text", [channel, payload], |r| {
                    r.get::<_, String>(0)
                })?;
                Ok(())
            })
            .expect("notify")
    };
    let next = || heard.recv_timeout(Duration::from_secs(10)).expect("heard");
    // Both channels on one session, the store's own (its log followers' wake-ups) too.
    let sessions = listening_sessions(&store);
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    notify("runlens_test_b", "one");
    assert_eq!(next(), ("runlens_test_b", Some("one".to_owned())));
    notify("runlens_test_a", "two");
    assert_eq!(next(), ("runlens_test_a", Some("two".to_owned())));
    // The session is killed: every channel hears `None` (payloads may have been missed)
    // once a new session listens again, on both channels.
    store
        .blocking(|c| {
            c.query_row(
                "SELECT pg_terminate_backend(?1::int)::text",
                [sessions[0]],
                |r| r.get::<_, String>(0),
            )?;
            Ok(())
        })
        .expect("terminate");
    let mut resynced = [next(), next()];
    resynced.sort();
    assert_eq!(
        resynced,
        [("runlens_test_a", None), ("runlens_test_b", None)]
    );
    let again = listening_sessions(&store);
    assert_eq!(again.len(), 1, "{again:?}");
    assert_ne!(again, sessions);
    notify("runlens_test_a", "three");
    assert_eq!(next(), ("runlens_test_a", Some("three".to_owned())));
}

#[ignore = "PostgreSQL only: cargo-test-pg runs it"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_a_replica_listens_for_its_live_bus_and_log_followers_in_one_session() {
    let (a, b) = pg_replicas("LISTEN/NOTIFY is PostgreSQL's").await;
    // The two servers share a database: one session each.
    let store = a.store.clone();
    let sessions = tokio::task::spawn_blocking(move || listening_sessions(&store))
        .await
        .unwrap();
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    drop(b);
}
