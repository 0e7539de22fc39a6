//! `GET /experiments/{id}/live` over real HTTP: writes reach an open stream within a
//! second, only this experiment's, points only of the runs asked for; run changes; updates
//! merged at most every 250 ms; 401/403/404 for callers without access, and a stream whose
//! reader loses access ends.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use api_types::workspace::LiveUpdate;
use serde_json::{json, Value};

use crate::logs_api::LiveServer;

/// Events of an open live stream.
pub struct Live {
    resp: reqwest::Response,
    buf: String,
}

impl Live {
    /// Opens the live stream at `path` as `token` (asserts a 200 event stream).
    pub async fn open(s: &LiveServer, token: &str, path: &str) -> Live {
        let resp = s.send(token, "GET", path, None).await;
        assert_eq!(resp.status().as_u16(), 200, "{path}");
        let ctype = resp.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(ctype.starts_with("text/event-stream"), "{ctype}");
        Live {
            resp,
            buf: String::new(),
        }
    }

    /// The next event `(event, data)` within `limit` (comments skipped); `None` when the
    /// time is up or the stream ended.
    pub async fn next(&mut self, limit: Duration) -> Option<(String, String)> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let (mut event, mut data) = (String::new(), String::new());
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        event = v.trim().to_owned();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.strip_prefix(' ').unwrap_or(v));
                    }
                }
                if event.is_empty() {
                    continue; // a comment
                }
                return Some((event, data));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.resp.chunk()).await {
                Ok(Ok(Some(chunk))) => self.buf.push_str(&String::from_utf8_lossy(&chunk)),
                _ => return None,
            }
        }
    }

    /// Updates until `done` holds for everything received so far (within `limit`); the
    /// updates and their raw data.
    pub async fn until(
        &mut self,
        limit: Duration,
        done: impl Fn(&[LiveUpdate]) -> bool,
    ) -> (Vec<LiveUpdate>, String) {
        let deadline = Instant::now() + limit;
        let (mut got, mut raw) = (Vec::new(), String::new());
        while !done(&got) {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some((event, data)) = self.next(left).await else {
                panic!("not done in {limit:?}; got {raw}");
            };
            assert_eq!(event, "update", "{data}");
            raw.push_str(&data);
            got.push(serde_json::from_str(&data).expect("update data"));
        }
        (got, raw)
    }

    /// Whether the stream ends within `limit` (its remaining text).
    async fn ends(&mut self, limit: Duration) -> Result<String, String> {
        let mut rest = String::new();
        let ended = tokio::time::timeout(limit, async {
            while let Ok(Some(chunk)) = self.resp.chunk().await {
                rest.push_str(&String::from_utf8_lossy(&chunk));
            }
        })
        .await;
        match ended {
            Ok(()) => Ok(rest),
            Err(_) => Err(rest),
        }
    }
}

/// Creates the experiment `name`; its id.
pub async fn experiment(s: &LiveServer, name: &str) -> String {
    s.ok(
        &s.admin,
        "POST",
        "/api/2.0/mlflow/experiments/create",
        Some(json!({ "name": name })),
    )
    .await["experiment_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Creates a run `name` in `exp`; its id.
pub async fn run(s: &LiveServer, exp: &str, name: &str) -> String {
    s.ok(
        &s.admin,
        "POST",
        "/api/2.0/mlflow/runs/create",
        Some(json!({ "experiment_id": exp, "run_name": name })),
    )
    .await["run"]["info"]["run_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Posts `body` to the MLflow API's `path` as the administrator (asserts a 200).
pub async fn mlflow(s: &LiveServer, path: &str, body: Value) {
    s.ok(
        &s.admin,
        "POST",
        &format!("/api/2.0/mlflow{path}"),
        Some(body),
    )
    .await;
}

/// A log-batch body of `key` at `steps`.
pub fn batch(run: &str, key: &str, steps: std::ops::Range<i64>) -> Value {
    let metrics: Vec<Value> = steps
        .map(|i| json!({"key": key, "value": i as f64 * 0.5, "timestamp": 1_000 + i, "step": i}))
        .collect();
    json!({"run_id": run, "metrics": metrics})
}

/// The steps of `run`'s points in `updates`.
pub fn points_of<'a>(updates: &'a [LiveUpdate], run: &'a str) -> impl Iterator<Item = i64> + 'a {
    updates
        .iter()
        .flat_map(|u| &u.series)
        .filter(move |s| s.run_id == run)
        .flat_map(|s| s.points.iter().map(|p| p.step))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_batch_reaches_the_stream_within_a_second_with_only_what_it_asked_for() {
    let s = LiveServer::start().await;
    let exp = experiment(&s, "/Users/root/live").await;
    let other = experiment(&s, "/Users/root/other").await;
    let (r1, r2) = (run(&s, &exp, "one").await, run(&s, &exp, "two").await);
    let foreign = run(&s, &other, "foreign").await;
    let mut live = Live::open(
        &s,
        &s.admin,
        &format!("/api/v1/experiments/{exp}/live?run={r1}"),
    )
    .await;
    let sent = Instant::now();
    mlflow(&s, "/runs/log-batch", batch(&foreign, "loss", 0..3)).await;
    mlflow(&s, "/runs/log-batch", batch(&r2, "loss", 0..3)).await;
    mlflow(&s, "/runs/log-batch", batch(&r1, "loss", 0..4)).await;
    let (mut got, mut raw) = live
        .until(Duration::from_secs(5), |u| points_of(u, &r1).count() == 4)
        .await;
    let took = sent.elapsed();
    assert!(took < Duration::from_secs(1), "{took:?}");
    // r2's newest value comes too (perhaps in the same update), never its points.
    if !got.iter().flat_map(|u| &u.latest).any(|l| l.run_id == r2) {
        let (more, more_raw) = live
            .until(Duration::from_secs(2), |u| {
                u.iter().flat_map(|u| &u.latest).any(|l| l.run_id == r2)
            })
            .await;
        got.extend(more);
        raw.push_str(&more_raw);
    }
    assert_eq!(points_of(&got, &r1).collect::<Vec<_>>(), [0, 1, 2, 3]);
    let streamed: HashSet<&str> = got
        .iter()
        .flat_map(|u| &u.series)
        .map(|s| s.run_id.as_str())
        .collect();
    assert_eq!(streamed, HashSet::from([r1.as_str()]));
    let latest = |run: &str| {
        got.iter()
            .flat_map(|u| &u.latest)
            .filter(|l| l.run_id == run)
            .map(|l| (l.metric.key.clone(), l.metric.step, l.metric.value.0))
            .next_back()
    };
    assert_eq!(latest(&r1), Some(("loss".into(), 3, 1.5)));
    assert_eq!(latest(&r2), Some(("loss".into(), 2, 1.0)));
    assert!(!raw.contains(&foreign), "another experiment's run: {raw}");
    assert!(got.iter().all(|u| u.at > 0 && u.runs.is_empty()));
}

/// A point at an earlier step streams, and the latest value sent with it is still the
/// stored one it did not replace (MLflow's rule), not the point itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_point_streams_with_the_latest_value_it_did_not_replace() {
    let s = LiveServer::start().await;
    let exp = experiment(&s, "/Users/root/late").await;
    let r = run(&s, &exp, "late").await;
    mlflow(&s, "/runs/log-batch", batch(&r, "loss", 5..6)).await;
    let mut live = Live::open(
        &s,
        &s.admin,
        &format!("/api/v1/experiments/{exp}/live?run={r}"),
    )
    .await;
    mlflow(&s, "/runs/log-batch", batch(&r, "loss", 2..3)).await;
    let latest_of = |u: &[LiveUpdate]| -> Vec<(i64, f64)> {
        u.iter()
            .flat_map(|u| &u.latest)
            .filter(|l| l.run_id == r)
            .map(|l| (l.metric.step, l.metric.value.0))
            .collect()
    };
    let (got, raw) = live
        .until(Duration::from_secs(5), |u| {
            points_of(u, &r).any(|step| step == 2) && !latest_of(u).is_empty()
        })
        .await;
    assert_eq!(points_of(&got, &r).collect::<Vec<_>>(), [2], "{raw}");
    assert_eq!(latest_of(&got).last(), Some(&(5, 2.5)), "{raw}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_changes_are_sent_for_every_run() {
    let s = LiveServer::start().await;
    let exp = experiment(&s, "/Users/root/changes").await;
    let mut live = Live::open(&s, &s.admin, &format!("/api/v1/experiments/{exp}/live")).await;
    let id = run(&s, &exp, "fresh").await;
    let change = |u: &[LiveUpdate]| {
        u.iter()
            .flat_map(|u| &u.runs)
            .rfind(|c| c.run_id == id)
            .cloned()
    };
    let (got, _) = live
        .until(Duration::from_secs(2), |u| change(u).is_some())
        .await;
    let c = change(&got).unwrap();
    assert_eq!(
        (c.run_name.as_str(), c.status.as_str()),
        ("fresh", "RUNNING")
    );
    assert_eq!((c.end_time, c.lifecycle_stage.as_str()), (None, "active"));

    let tag = json!({"run_id": id, "key": "mlflow.runName", "value": "renamed"});
    mlflow(&s, "/runs/set-tag", tag).await;
    let (got, _) = live
        .until(Duration::from_secs(2), |u| {
            change(u).is_some_and(|c| c.run_name == "renamed")
        })
        .await;
    assert_eq!(change(&got).unwrap().status, "RUNNING");

    let end = json!({"run_id": id, "status": "FINISHED", "end_time": 1_700_000_009_000i64});
    mlflow(&s, "/runs/update", end).await;
    let (got, _) = live
        .until(Duration::from_secs(2), |u| change(u).is_some())
        .await;
    let c = change(&got).unwrap();
    assert_eq!(
        (c.status.as_str(), c.end_time, c.run_name.as_str()),
        ("FINISHED", Some(1_700_000_009_000), "renamed")
    );

    mlflow(&s, "/runs/delete", json!({"run_id": id})).await;
    let (got, _) = live
        .until(Duration::from_secs(2), |u| change(u).is_some())
        .await;
    assert_eq!(change(&got).unwrap().lifecycle_stage, "deleted");
    mlflow(&s, "/runs/restore", json!({"run_id": id})).await;
    let (got, _) = live
        .until(Duration::from_secs(2), |u| change(u).is_some())
        .await;
    assert_eq!(change(&got).unwrap().lifecycle_stage, "active");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_writers_are_merged_into_updates_at_most_every_250_ms_losing_nothing() {
    let s = LiveServer::start().await;
    let exp = experiment(&s, "/Users/root/busy").await;
    let r = run(&s, &exp, "busy").await;
    let mut live = Live::open(
        &s,
        &s.admin,
        &format!("/api/v1/experiments/{exp}/live?run={r}"),
    )
    .await;
    for i in 0..40 {
        mlflow(
            &s,
            "/runs/log-batch",
            batch(&r, "loss", i * 10..i * 10 + 10),
        )
        .await;
    }
    let (got, _) = live
        .until(Duration::from_secs(10), |u| points_of(u, &r).count() >= 400)
        .await;
    assert_eq!(
        points_of(&got, &r).collect::<Vec<_>>(),
        (0..400).collect::<Vec<_>>()
    );
    for w in got.windows(2) {
        assert!(
            w[1].at - w[0].at >= 240,
            "updates {} ms apart",
            w[1].at - w[0].at
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callers_without_access_are_refused_and_a_revoked_reader_is_cut_off() {
    let s = LiveServer::start().await;
    let exp = experiment(&s, "/Users/root/private").await;
    let r = run(&s, &exp, "r").await;
    let bob = s.user_token("bob");
    let path = format!("/api/v1/experiments/{exp}/live?run={r}");
    assert_eq!(
        s.send(&bob, "GET", &path, None).await.status().as_u16(),
        403
    );
    let anonymous = s.send("", "GET", &path, None).await.status().as_u16();
    assert_eq!(anonymous, 401);
    let unknown = s
        .send(&s.admin, "GET", "/api/v1/experiments/99999/live", None)
        .await;
    assert_eq!(unknown.status().as_u16(), 404);
    let too_many: String = (0..101).map(|i| format!("run={i}&")).collect();
    let (status, err) = s
        .call(
            &s.admin,
            "GET",
            &format!("/api/v1/experiments/{exp}/live?{too_many}"),
            None,
        )
        .await;
    assert_eq!(
        (status, err["code"].as_str()),
        (400, Some("INVALID_PARAMETER"))
    );

    let access = format!("/api/v1/experiments/{exp}/access");
    let grant = json!({"principal": {"kind": "user", "name": "bob"}, "level": "CAN_READ"});
    s.ok(&s.admin, "PUT", &access, Some(grant)).await;
    let mut live = Live::open(&s, &bob, &path).await;
    mlflow(&s, "/runs/log-batch", batch(&r, "loss", 0..1)).await;
    live.until(Duration::from_secs(2), |u| points_of(u, &r).count() == 1)
        .await;
    s.ok(
        &s.admin,
        "DELETE",
        &format!("{access}?kind=user&name=bob"),
        None,
    )
    .await;
    // Access is checked again every 5 s: the stream ends by then.
    let ended = live.ends(Duration::from_secs(8)).await;
    assert!(ended.is_ok(), "still open after the revoke: {ended:?}");
    assert_eq!(
        s.send(&bob, "GET", &path, None).await.status().as_u16(),
        403
    );
}
