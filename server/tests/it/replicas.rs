//! Two replicas on one database (issue 11): two servers, each with its own store (pool),
//! live bus and caches, over the same database and data dir, as behind a load balancer
//! without sticky sessions. Signing in, the sign-in limiter and resuming a log stream work
//! on either backend; the live wake-ups between replicas (LISTEN/NOTIFY) and the single
//! retention purge are PostgreSQL's, and their tests say so when skipped.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use server::auth::users;

use crate::helpers::store::pg_url;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_lines_ingested_on_one_replica_wake_followers_on_the_other_at_once() {
    if pg_url().is_none() {
        println!("skipped: replicas share live wake-ups on PostgreSQL only");
        return;
    }
    let a = LiveServer::start().await;
    let b = a.replica().await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chart_on_one_replica_follows_metrics_logged_on_the_other() {
    if pg_url().is_none() {
        println!("skipped: replicas share the live bus on PostgreSQL only");
        return;
    }
    let a = LiveServer::start().await;
    let b = a.replica().await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_retention_purge_runs_once_across_replicas() {
    if pg_url().is_none() {
        println!("skipped: one server owns a SQLite data dir");
        return;
    }
    let a = LiveServer::start().await;
    let b = a.replica().await;
    let now = server::util::now_ms();
    let purge = |s: &LiveServer| {
        s.store
            .logs()
            .write(|c| server::logs::retention::purge_once(c, now - 1_000, now))
            .expect("purge")
    };
    assert!(purge(&a).is_some(), "the first replica purges");
    assert!(purge(&b).is_none(), "the second skips this hour");
    assert!(purge(&a).is_none(), "and so does the first, until the next");
    drop(b);
}
