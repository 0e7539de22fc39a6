//! The log routes over real HTTP: ingest (`POST /job-runs/{id}/attempts/{n}/logs`),
//! pages (`GET /runs/{id}/logs`), live follow over SSE (`.../logs/stream`), download
//! (`.../logs/download`), the job permission rule (403 with the access message, no line)
//! and retention. [`LiveServer`] is the real router on a port of 127.0.0.1 (SSE needs a
//! real connection); `logs_cli` uses it too.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use server::auth::{tokens, users};
use server::{AppState, StaticConfig, Store};

/// The real router served on a free port of 127.0.0.1 over a fresh data directory, with an
/// administrator `root` and a job run to log into.
pub struct LiveServer {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// The store behind it.
    pub store: Store,
    /// The administrator's API token.
    pub admin: String,
    http: reqwest::Client,
    /// The data dir (owned by the first server; a replica shares it).
    dir: std::path::PathBuf,
    _owned: Option<tempfile::TempDir>,
    /// The PostgreSQL database, on a PostgreSQL run.
    db: Option<String>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for LiveServer {
    fn drop(&mut self) {
        self.store.logs().close_followers();
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// A job run of [`LiveServer::job_run`]: ids and its attempts' run ids.
pub struct JobRun {
    /// The experiment.
    pub experiment_id: String,
    /// The job.
    pub job_id: i64,
    /// The job run.
    pub id: i64,
    /// Run ids of attempts 1, 2, ...
    pub runs: Vec<String>,
}

impl LiveServer {
    /// Starts the server (call inside a multi-threaded tokio runtime).
    pub async fn start() -> LiveServer {
        let dir = tempfile::tempdir().expect("tempdir");
        let (store, db) = crate::helpers::store::open_db(dir.path());
        let admin =
            server::auth::bootstrap::create_admin_with_token(&store, "root").expect("admin");
        let mut s = Self::serve(store, admin, dir.path().to_owned(), db).await;
        s._owned = Some(dir);
        s
    }

    /// Stops serving, as a killed replica would: its streams end and its port closes (the
    /// data dir stays until the value is dropped).
    pub fn stop_serving(&mut self) {
        self.store.logs().close_followers();
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }

    /// A second server over the same database and data dir, as another replica behind a
    /// load balancer would be: its own store (pool), live bus and caches. Drop it before
    /// `self`.
    pub async fn replica(&self) -> LiveServer {
        let store = crate::helpers::store::reopen(&self.dir, self.db.as_deref()).expect("replica");
        Self::serve(store, self.admin.clone(), self.dir.clone(), self.db.clone()).await
    }

    async fn serve(
        store: Store,
        admin: String,
        dir: std::path::PathBuf,
        db: Option<String>,
    ) -> LiveServer {
        let app = server::app(AppState::new(store.clone()), &StaticConfig::default());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(server::serve::serve(
            listener,
            app,
            server::serve::Limits::default(),
            async move {
                let _ = stopped.await;
            },
        ));
        LiveServer {
            base,
            store,
            admin,
            http: reqwest::Client::new(),
            dir,
            _owned: None,
            db,
            stop: Some(stop),
        }
    }

    /// A user (not an administrator) and an API token of theirs.
    pub fn user_token(&self, name: &str) -> String {
        self.store
            .blocking(|c| {
                let id = users::create_user(c, name, Some("pw-of-a-test-user"), false)?;
                Ok(tokens::create_token(c, id, "t")?.token)
            })
            .expect("user")
    }

    /// `method path` with a bearer token and an optional JSON body: (status, JSON or Null).
    pub async fn call(
        &self,
        token: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let r = self.send(token, method, path, body).await;
        let status = r.status().as_u16();
        let text = r.text().await.expect("body");
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// [`LiveServer::call`] that must answer 2xx; returns the body.
    pub async fn ok(&self, token: &str, method: &str, path: &str, body: Option<Value>) -> Value {
        let (status, v) = self.call(token, method, path, body).await;
        assert!(
            (200..300).contains(&status),
            "{method} {path}: {status} {v}"
        );
        v
    }

    /// The raw response of `method path`.
    pub async fn send(
        &self,
        token: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> reqwest::Response {
        let auth = format!("Bearer {token}");
        self.send_with(&[("authorization", &auth)], method, path, body)
            .await
    }

    /// The raw response of `method path` with `headers` (a credential of any kind).
    pub async fn send_with(
        &self,
        headers: &[(&str, &str)],
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> reqwest::Response {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        req.send().await.expect("request")
    }

    /// Signs `user` in (`POST /api/v1/session`): the `Cookie` header value and the
    /// session's CSRF token.
    pub async fn sign_in(&self, user: &str, password: &str) -> (String, String) {
        let body = json!({ "username": user, "password": password });
        let r = self
            .send_with(&[], "POST", "/api/v1/session", Some(body))
            .await;
        assert_eq!(r.status().as_u16(), 200, "sign-in of {user}");
        let cookie = r.headers()["set-cookie"].to_str().unwrap();
        let cookie = cookie.split(';').next().unwrap().to_owned();
        let me: Value = r.json().await.expect("me");
        (cookie, me["csrf_token"].as_str().expect("csrf").to_owned())
    }

    /// An experiment, a job `job` owned by the administrator, a job run of it on `nodes`
    /// and `attempts` attempts.
    pub async fn job_run(&self, job: &str, nodes: &[&str], attempts: u32) -> JobRun {
        let exp = self
            .ok(
                &self.admin,
                "POST",
                "/api/2.0/mlflow/experiments/create",
                Some(json!({ "name": format!("exp-{job}") })),
            )
            .await["experiment_id"]
            .as_str()
            .expect("experiment id")
            .to_owned();
        let job_id = self
            .ok(
                &self.admin,
                "POST",
                "/api/v1/jobs",
                Some(json!({ "name": job })),
            )
            .await["job_id"]
            .as_i64()
            .expect("job id");
        let body = json!({ "experiment_id": exp, "nodes": nodes, "max_retries": 3 });
        let id = self
            .ok(
                &self.admin,
                "POST",
                &format!("/api/v1/jobs/{job_id}/runs"),
                Some(body),
            )
            .await["job_run_id"]
            .as_i64()
            .expect("job run id");
        let mut runs = Vec::new();
        for _ in 0..attempts {
            let a = self
                .ok(
                    &self.admin,
                    "POST",
                    &format!("/api/v1/job-runs/{id}/attempts"),
                    Some(json!({})),
                )
                .await;
            runs.push(a["run_id"].as_str().expect("run id").to_owned());
        }
        JobRun {
            experiment_id: exp,
            job_id,
            id,
            runs,
        }
    }

    /// Ships `lines` (`(ts_ms, text)`, stdout) of `node` from `first_seq` to attempt `n` as
    /// the administrator: (status, ack or error).
    pub async fn ship(
        &self,
        job_run: i64,
        n: u32,
        node: &str,
        first_seq: u64,
        lines: &[(i64, &str)],
    ) -> (u16, Value) {
        let lines: Vec<Value> = lines
            .iter()
            .map(|(ts, t)| json!({ "ts_ms": ts, "stream": "stdout", "text": t }))
            .collect();
        let body = json!({ "node": node, "first_seq": first_seq, "lines": lines });
        self.call(
            &self.admin,
            "POST",
            &format!("/api/v1/job-runs/{job_run}/attempts/{n}/logs"),
            Some(body),
        )
        .await
    }

    /// A page of the run's lines as the administrator with `query` (`a=b&c=d`).
    pub async fn page(&self, run: &str, query: &str) -> Value {
        self.ok(
            &self.admin,
            "GET",
            &format!("/api/v1/runs/{run}/logs?{query}"),
            None,
        )
        .await
    }
}

/// The texts of a page's lines.
fn texts(page: &Value) -> Vec<String> {
    page["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l["text"].as_str().expect("text").to_owned())
        .collect()
}

/// A URL-encoded query value.
fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_ingest_is_idempotent_ordered_and_reports_gaps() {
    let s = LiveServer::start().await;
    let jr = s.job_run("ingest", &["node-0", "node-1"], 1).await;
    let run = &jr.runs[0];
    let (st, ack) = s
        .ship(jr.id, 1, "node-0", 0, &[(10, "a0"), (30, "a1"), (50, "a2")])
        .await;
    assert_eq!(st, 200, "{ack}");
    assert_eq!(
        ack,
        json!({"stored": 3, "duplicates": 0, "next_seq": 3, "gaps": []})
    );
    // The same batch again stores nothing.
    let (_, again) = s
        .ship(jr.id, 1, "node-0", 0, &[(10, "a0"), (30, "a1"), (50, "a2")])
        .await;
    assert_eq!(
        (again["stored"].as_u64(), again["duplicates"].as_u64()),
        (Some(0), Some(3))
    );
    s.ship(jr.id, 1, "node-1", 0, &[(20, "b0"), (40, "b1")])
        .await;
    // Lines 3 and 4 of node-0 never came: the ack and the page say so.
    let (_, gap) = s.ship(jr.id, 1, "node-0", 5, &[(60, "a5")]).await;
    assert_eq!(
        gap["gaps"],
        json!([{"first_missing": 3, "last_missing": 4}])
    );
    assert_eq!(gap["next_seq"], 6);
    let page = s.page(run, "").await;
    assert_eq!(texts(&page), ["a0", "b0", "a1", "b1", "a2", "a5"]);
    assert_eq!(page["nodes"], json!(["node-0", "node-1"]));
    assert_eq!(page["status"], "RUNNING");
    assert_eq!(page["expired_through"], Value::Null);
    assert_eq!(
        page["gaps"],
        json!([{"node": "node-0", "gaps": [{"first_missing": 3, "last_missing": 4}]}])
    );
    let first = &page["lines"][0];
    assert_eq!(
        (
            first["node"].as_str(),
            first["seq"].as_u64(),
            first["stream"].as_str()
        ),
        (Some("node-0"), Some(0), Some("stdout"))
    );
    // The gap filled late: stored once, gap closed.
    let (_, fill) = s
        .ship(jr.id, 1, "node-0", 2, &[(50, "a2"), (52, "a3"), (54, "a4")])
        .await;
    assert_eq!(
        (fill["stored"].as_u64(), fill["gaps"].clone()),
        (Some(2), json!([]))
    );
    assert_eq!(s.page(run, "").await["gaps"], json!([]));

    // A node the job run does not have: 400 saying how to add it.
    let (st, err) = s.ship(jr.id, 1, "node-9", 0, &[(1, "x")]).await;
    assert_eq!(st, 400, "{err}");
    assert_eq!(err["code"], "INVALID_PARAMETER");
    let msg = err["message"].as_str().unwrap();
    assert!(
        msg.contains("node-9") && msg.contains(&format!("/job-runs/{}/nodes", jr.id)),
        "{msg}"
    );
    // No such attempt; bad attempt number; too many lines; a line too long; not JSON.
    assert_eq!(s.ship(jr.id, 2, "node-0", 0, &[(1, "x")]).await.0, 404);
    let (st, err) = s
        .call(
            &s.admin,
            "POST",
            &format!("/api/v1/job-runs/{}/attempts/0/logs", jr.id),
            Some(json!({})),
        )
        .await;
    assert_eq!(st, 400, "{err}");
    let many: Vec<(i64, &str)> = (0..10_001).map(|i| (i, "x")).collect();
    let (st, err) = s.ship(jr.id, 1, "node-1", 2, &many).await;
    assert_eq!(st, 400, "{err}");
    assert!(err["message"].as_str().unwrap().contains("10000"), "{err}");
    let long = "y".repeat(api_types::logs::MAX_LINE_BYTES + 1);
    let (st, err) = s
        .ship(jr.id, 1, "node-1", 2, &[(1, "ok"), (2, &long)])
        .await;
    assert_eq!(st, 400, "{err}");
    assert!(err["message"].as_str().unwrap().contains("seq 3"), "{err}");
    let r = s
        .http
        .post(format!(
            "{}/api/v1/job-runs/{}/attempts/1/logs",
            s.base, jr.id
        ))
        .bearer_auth(&s.admin)
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    // Nothing of the refused batches was stored.
    assert_eq!(texts(&s.page(run, "node=node-1").await), ["b0", "b1"]);
    // A body over the ingest limit is refused with the app API's error body.
    let huge = "z".repeat(api_types::logs::MAX_BATCH_BODY + 1);
    let r = s
        .http
        .post(format!(
            "{}/api/v1/job-runs/{}/attempts/1/logs",
            s.base, jr.id
        ))
        .bearer_auth(&s.admin)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);

    // Shipping needs CAN_MANAGE_RUN on the job: a viewer may not.
    let viewer = s.user_token("viewer");
    let grant = json!({"principal": {"kind": "user", "name": "viewer"}, "level": "CAN_VIEW"});
    s.ok(
        &s.admin,
        "PUT",
        &format!("/api/v1/jobs/{}/access", jr.job_id),
        Some(grant),
    )
    .await;
    let body = json!({"node": "node-0", "first_seq": 6, "lines": [{"ts_ms": 1, "stream": "stderr", "text": "x"}]});
    let (st, _) = s
        .call(
            &viewer,
            "POST",
            &format!("/api/v1/job-runs/{}/attempts/1/logs", jr.id),
            Some(body),
        )
        .await;
    assert_eq!(st, 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_filters_and_cursors_page_both_ways_without_gap_or_duplicate() {
    let s = LiveServer::start().await;
    let jr = s.job_run("paging", &["n0", "n1"], 1).await;
    let run = &jr.runs[0];
    let levels = ["INFO", "WARNING", "ERROR", "DEBUG"];
    let mut want = Vec::new();
    for (k, node) in ["n0", "n1"].iter().enumerate() {
        let owned: Vec<(i64, String)> = (0..40)
            .map(|i| {
                let text = format!("{} {node} line {i} Loss", levels[i % 4]);
                (1_000 + 2 * i as i64 + k as i64, text)
            })
            .collect();
        let lines: Vec<(i64, &str)> = owned.iter().map(|(t, x)| (*t, x.as_str())).collect();
        for part in lines.chunks(15) {
            let first = (part[0].0 - 1_000 - k as i64) as u64 / 2;
            let (st, ack) = s.ship(jr.id, 1, node, first, part).await;
            assert_eq!(st, 200, "{ack}");
        }
    }
    for i in 0..40 {
        for node in ["n0", "n1"] {
            want.push(format!("{} {node} line {i} Loss", levels[i % 4]));
        }
    }
    // Backwards from the newest, 7 at a time.
    let mut back: Vec<String> = Vec::new();
    let mut page = s.page(run, "limit=7").await;
    assert_eq!(page["newer"], Value::Null);
    loop {
        let mut t = texts(&page);
        t.extend(back);
        back = t;
        let Some(older) = page["older"].as_str() else {
            break;
        };
        page = s.page(run, &format!("limit=7&before={older}")).await;
    }
    assert_eq!(back, want);
    // Forwards from the oldest, 9 at a time.
    let mut forward = Vec::new();
    let mut page = s.page(run, "limit=9&earliest=true").await;
    assert_eq!(page["older"], Value::Null);
    loop {
        forward.extend(texts(&page));
        let Some(newer) = page["newer"].as_str() else {
            break;
        };
        page = s.page(run, &format!("limit=9&after={newer}")).await;
    }
    assert_eq!(forward, want);

    // Filters.
    let only = |pred: &dyn Fn(&str) -> bool| -> Vec<String> {
        want.iter().filter(|t| pred(t)).cloned().collect()
    };
    let page = s.page(run, "node=n1&limit=1000").await;
    assert_eq!(texts(&page), only(&|t| t.contains(" n1 ")));
    let page = s.page(run, "level=warning&limit=1000").await;
    assert_eq!(
        texts(&page),
        only(&|t| t.starts_with("WARNING") || t.starts_with("ERROR"))
    );
    let page = s
        .page(run, "level=ERROR&level_mode=exactly&limit=1000")
        .await;
    assert_eq!(texts(&page), only(&|t| t.starts_with("ERROR")));
    let page = s
        .page(run, &format!("q={}&limit=1000", enc("LINE 3")))
        .await;
    assert_eq!(texts(&page), only(&|t| t.contains("line 3")));
    let first = &page["lines"][0];
    let text = first["text"].as_str().unwrap();
    let [a, b] = [
        first["matches"][0][0].as_u64().unwrap(),
        first["matches"][0][1].as_u64().unwrap(),
    ];
    assert_eq!(&text[a as usize..b as usize], "line 3");
    assert!(s.page(run, "limit=3").await["lines"][0]
        .get("matches")
        .is_none());
    // since/until: [1010, 1020) holds lines 5..=9 of both nodes.
    let page = s.page(run, "since=1010&until=1020&limit=1000").await;
    assert_eq!(texts(&page), want[10..20].to_vec());
    // Jump to time: the page starts at the first line at or after `at`.
    let page = s.page(run, "at=1021&limit=3").await;
    assert_eq!(texts(&page), want[21..24].to_vec());
    let older = page["older"].as_str().unwrap().to_owned();
    assert_eq!(
        texts(&s.page(run, &format!("before={older}&limit=2")).await),
        want[19..21].to_vec()
    );

    // Bad values: 400 naming the parameter.
    for (q, part) in [
        ("level=LOUD", "level"),
        ("limit=0", "limit"),
        ("before=%21%21", "before"),
        ("since=soon", "since"),
        ("at=5&earliest=true", "at most one"),
    ] {
        let (st, err) = s
            .call(
                &s.admin,
                "GET",
                &format!("/api/v1/runs/{run}/logs?{q}"),
                None,
            )
            .await;
        assert_eq!(st, 400, "{q}: {err}");
        assert_eq!(err["code"], "INVALID_PARAMETER", "{q}");
        assert!(
            err["message"].as_str().unwrap().contains(part),
            "{q}: {err}"
        );
    }
}

/// Events read from an SSE response: (event, id, data).
pub struct Events {
    resp: reqwest::Response,
    buf: String,
}

impl Events {
    /// Opens the event stream at `path` of `s` as `token`, resuming after `last_id`.
    pub async fn open(s: &LiveServer, token: &str, path: &str, last_id: Option<&str>) -> Events {
        let auth = format!("Bearer {token}");
        let mut headers = vec![("authorization", auth.as_str())];
        headers.extend(last_id.map(|id| ("last-event-id", id)));
        Events::open_with(s, &headers, path).await
    }

    /// Opens the event stream at `path` of `s` with `headers` (a credential of any kind).
    pub async fn open_with(s: &LiveServer, headers: &[(&str, &str)], path: &str) -> Events {
        let mut req = s
            .http
            .get(format!("{}{path}", s.base))
            .header("accept", "text/event-stream");
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        let resp = req.send().await.expect("stream");
        assert_eq!(resp.status().as_u16(), 200);
        assert!(resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream"));
        Events {
            resp,
            buf: String::new(),
        }
    }

    /// The next event (comments skipped), within `limit`.
    pub async fn next(&mut self, limit: Duration) -> (String, Option<String>, String) {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let (mut event, mut id, mut data) = (String::new(), None, String::new());
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        event = v.trim().to_owned();
                    } else if let Some(v) = line.strip_prefix("id:") {
                        id = Some(v.trim().to_owned());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.strip_prefix(' ').unwrap_or(v));
                    }
                }
                if event.is_empty() && data.is_empty() {
                    continue; // a comment
                }
                return (event, id, data);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let chunk = tokio::time::timeout(left, self.resp.chunk())
                .await
                .expect("no event in time")
                .expect("stream failed")
                .expect("stream ended");
            self.buf.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Everything the stream still sends (unread events included) if it ends within
    /// `limit`; `Err` with what came so far if it is still open then.
    pub async fn rest(&mut self, limit: Duration) -> Result<String, String> {
        let mut rest = std::mem::take(&mut self.buf);
        let ended = tokio::time::timeout(limit, async {
            while let Some(chunk) = self.resp.chunk().await.expect("stream failed") {
                rest.push_str(&String::from_utf8_lossy(&chunk));
            }
        })
        .await;
        match ended {
            Ok(()) => Ok(rest),
            Err(_) => Err(rest),
        }
    }

    /// The texts of the next `lines` event and its id.
    pub async fn lines(&mut self, limit: Duration) -> (Vec<String>, String) {
        loop {
            let (event, id, data) = self.next(limit).await;
            if event != "lines" {
                continue;
            }
            let v: Value = serde_json::from_str(&data).expect("lines data");
            return (texts(&v), id.expect("lines event id"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_stream_pushes_new_lines_within_a_second_and_resumes_from_last_event_id() {
    let s = LiveServer::start().await;
    let jr = s.job_run("live", &["n0"], 1).await;
    let run = jr.runs[0].clone();
    s.ship(jr.id, 1, "n0", 0, &[(1, "before connecting")]).await;
    let path = format!("/api/v1/runs/{run}/logs/stream");
    let mut ev = Events::open(&s, &s.admin, &path, None).await;
    // First the status, with the starting cursor as its id.
    let (event, id, data) = ev.next(Duration::from_secs(5)).await;
    assert_eq!((event.as_str(), data.as_str()), ("status", "\"RUNNING\""));
    assert!(id.is_some());
    // A line shipped after connecting arrives within a second (without a `from`, the
    // stream starts now: the older line is not sent).
    let sent = Instant::now();
    s.ship(jr.id, 1, "n0", 1, &[(2, "live one")]).await;
    let (got, id1) = ev.lines(Duration::from_secs(5)).await;
    assert!(
        sent.elapsed() < Duration::from_secs(1),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(got, ["live one"]);
    // The connection drops; lines arrive meanwhile; a reconnect with Last-Event-ID gets
    // exactly those, even with an older `from=` (the header wins).
    drop(ev);
    s.ship(jr.id, 1, "n0", 2, &[(3, "while away 1")]).await;
    s.ship(jr.id, 1, "n0", 3, &[(4, "while away 2")]).await;
    let mut ev = Events::open(&s, &s.admin, &format!("{path}?from=0"), Some(&id1)).await;
    let mut seen = Vec::new();
    while seen.len() < 2 {
        seen.extend(ev.lines(Duration::from_secs(5)).await.0);
    }
    assert_eq!(seen, ["while away 1", "while away 2"]);
    // `from=` alone resumes from a page's follow_from; filters apply to the stream.
    let follow_from = s.page(&run, "").await["follow_from"]
        .as_str()
        .unwrap()
        .to_owned();
    s.ship(jr.id, 1, "n0", 4, &[(5, "ERROR: bad"), (6, "fine")])
        .await;
    let mut ev = Events::open(
        &s,
        &s.admin,
        &format!("{path}?from={follow_from}&level=ERROR&q=BAD"),
        None,
    )
    .await;
    let (event, _, data) = ev.next(Duration::from_secs(5)).await;
    assert_eq!(event, "status");
    let (event, _, data2) = ev.next(Duration::from_secs(5)).await;
    assert_eq!(event, "lines", "{data}");
    let v: Value = serde_json::from_str(&data2).unwrap();
    assert_eq!(texts(&v), ["ERROR: bad"]);
    assert_eq!(v["lines"][0]["matches"], json!([[7, 10]]));
    // A status change is pushed.
    s.ok(
        &s.admin,
        "POST",
        &format!("/api/v1/job-runs/{}/status", jr.id),
        Some(json!({"status": "SUCCEEDED"})),
    )
    .await;
    loop {
        let (event, _, data) = ev.next(Duration::from_secs(5)).await;
        if event == "status" {
            assert_eq!(data, "\"SUCCEEDED\"");
            break;
        }
    }
    // A bad Last-Event-ID or from is a 400.
    let r = s
        .http
        .get(format!("{}{path}?from=x", s.base))
        .bearer_auth(&s.admin)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
}

/// Lines are pushed when they commit, not found by the stream's 1 s poll: lines shipped at
/// phases spread over the poll period arrive with a median delay far below the poll's
/// (about 500 ms; a stream that only polls fails here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_stream_pushes_each_line_on_commit_not_on_the_poll() {
    let s = LiveServer::start().await;
    let jr = s.job_run("push", &["n0"], 1).await;
    let path = format!("/api/v1/runs/{}/logs/stream", jr.runs[0]);
    let mut ev = Events::open(&s, &s.admin, &path, None).await;
    let (event, _, _) = ev.next(Duration::from_secs(5)).await;
    assert_eq!(event, "status");
    let mut delays = Vec::new();
    for i in 0..7u32 {
        tokio::time::sleep(Duration::from_millis(230)).await;
        let text = format!("pushed {i}");
        let sent = Instant::now();
        s.ship(
            jr.id,
            1,
            "n0",
            u64::from(i),
            &[(i64::from(i), text.as_str())],
        )
        .await;
        let (got, _) = ev.lines(Duration::from_secs(5)).await;
        delays.push(sent.elapsed());
        assert_eq!(got, [text]);
    }
    delays.sort();
    assert!(
        delays[3] < Duration::from_millis(250),
        "median delay {:?} of {delays:?}: lines wait for the poll",
        delays[3]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_download_is_exactly_the_filtered_lines() {
    let s = LiveServer::start().await;
    let jr = s.job_run("download", &["n0", "n1"], 1).await;
    let run = &jr.runs[0];
    // 1,700,000,000,000 ms is 2023-11-14T22:13:20.000Z.
    let t0 = 1_700_000_000_000i64;
    let n0: Vec<(i64, String)> = (0..3000)
        .map(|i| (t0 + 2 * i, format!("WARNING n0 {i} \x1b[31mred\x1b[0m")))
        .collect();
    let refs: Vec<(i64, &str)> = n0.iter().map(|(t, x)| (*t, x.as_str())).collect();
    for (k, part) in refs.chunks(1000).enumerate() {
        s.ship(jr.id, 1, "n0", 1000 * k as u64, part).await;
    }
    s.ship(
        jr.id,
        1,
        "n1",
        0,
        &[(t0 + 1, "plain n1"), (t0 + 3, "ERROR n1")],
    )
    .await;
    let r = s
        .send(
            &s.admin,
            "GET",
            &format!("/api/v1/runs/{run}/logs/download"),
            None,
        )
        .await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.headers()["content-type"], "text/plain; charset=utf-8");
    let disposition = r.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        disposition.starts_with("attachment; filename=\"") && disposition.ends_with("-logs.txt\""),
        "{disposition}"
    );
    let all = r.text().await.unwrap();
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(lines.len(), 3002);
    assert_eq!(
        lines[0],
        "2023-11-14T22:13:20.000Z n0 WARNING WARNING n0 0 \x1b[31mred\x1b[0m"
    );
    assert_eq!(lines[1], "2023-11-14T22:13:20.001Z n1 - plain n1");
    assert_eq!(lines[3], "2023-11-14T22:13:20.003Z n1 ERROR ERROR n1");
    // The same lines as the pages, in order.
    let mut paged = Vec::new();
    let mut page = s.page(run, "earliest=true&limit=10000").await;
    loop {
        paged.extend(texts(&page));
        let Some(newer) = page["newer"].as_str() else {
            break;
        };
        page = s.page(run, &format!("after={newer}&limit=10000")).await;
    }
    let downloaded: Vec<&str> = lines
        .iter()
        .map(|l| l.splitn(4, ' ').nth(3).unwrap())
        .collect();
    assert_eq!(downloaded, paged);
    // A browser asks for gzip: the compressed body is complete and decodes to the same
    // text (the compression layer polls the body once more after its end).
    let r = s
        .http
        .get(format!("{}/api/v1/runs/{run}/logs/download", s.base))
        .bearer_auth(&s.admin)
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.headers()["content-encoding"], "gzip");
    let gz = r.bytes().await.expect("the whole gzip body");
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut text).unwrap();
    assert_eq!(text, all);
    // Filtered: one node, a level, a search, a time range.
    let r = s
        .send(
            &s.admin,
            "GET",
            &format!(
                "/api/v1/runs/{run}/logs/download?node=n0&q=N0+12&since={}&until={}",
                t0 + 2 * 100,
                t0 + 2 * 2000
            ),
            None,
        )
        .await;
    assert!(r.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .ends_with("-n0.log\""));
    let text = r.text().await.unwrap();
    let want: Vec<String> = (100..2000)
        .filter(|i: &i64| format!("n0 {i} ").contains("n0 12"))
        .map(|i| format!("WARNING n0 {i} \x1b[31mred\x1b[0m"))
        .collect();
    let got: Vec<&str> = text
        .lines()
        .map(|l| l.splitn(4, ' ').nth(3).unwrap())
        .collect();
    assert_eq!(got, want);
    let r = s
        .send(
            &s.admin,
            "GET",
            &format!("/api/v1/runs/{run}/logs/download?level=ERROR"),
            None,
        )
        .await;
    assert_eq!(
        r.text().await.unwrap(),
        "2023-11-14T22:13:20.003Z n1 ERROR ERROR n1\n"
    );
    let (st, _) = s
        .call(
            &s.admin,
            "GET",
            &format!("/api/v1/runs/{run}/logs/download?q=a%0Ab"),
            None,
        )
        .await;
    assert_eq!(st, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_refuse_a_reader_without_job_view_with_the_access_message_and_no_line() {
    let s = LiveServer::start().await;
    let jr = s.job_run("secret-job", &["n0"], 1).await;
    let run = &jr.runs[0];
    s.ship(jr.id, 1, "n0", 0, &[(1, "TOP SECRET LINE")]).await;
    let bob = s.user_token("bob");
    let grant = json!({"principal": {"kind": "user", "name": "bob"}, "level": "CAN_READ"});
    s.ok(
        &s.admin,
        "PUT",
        &format!("/api/v1/experiments/{}/access", jr.experiment_id),
        Some(grant),
    )
    .await;
    // bob reads the run itself...
    assert_eq!(
        s.call(&bob, "GET", &format!("/api/v1/runs/{run}"), None)
            .await
            .0,
        200
    );
    // ...but no log route.
    for route in ["logs", "logs/stream", "logs/download"] {
        let r = s
            .send(&bob, "GET", &format!("/api/v1/runs/{run}/{route}"), None)
            .await;
        assert_eq!(r.status().as_u16(), 403, "{route}");
        let text = r.text().await.unwrap();
        assert!(!text.contains("TOP SECRET"), "{route}: {text}");
        let err: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(err["code"], "PERMISSION_DENIED");
        assert_eq!(
            err["message"],
            "You don't have access to these logs. They belong to job 'secret-job'. Ask one of \
             its managers (root) or an administrator for at least Can View."
        );
        assert_eq!(err["grantors"], json!(["root"]));
    }
    // With CAN_VIEW on the job, the lines.
    let grant = json!({"principal": {"kind": "user", "name": "bob"}, "level": "CAN_VIEW"});
    s.ok(
        &s.admin,
        "PUT",
        &format!("/api/v1/jobs/{}/access", jr.job_id),
        Some(grant),
    )
    .await;
    let page = s
        .ok(&bob, "GET", &format!("/api/v1/runs/{run}/logs"), None)
        .await;
    assert_eq!(texts(&page), ["TOP SECRET LINE"]);
    // A run no job produced: 404 explaining how to get logs.
    let plain = s
        .ok(
            &s.admin,
            "POST",
            "/api/2.0/mlflow/runs/create",
            Some(json!({"experiment_id": jr.experiment_id})),
        )
        .await["run"]["info"]["run_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (st, err) = s
        .call(&s.admin, "GET", &format!("/api/v1/runs/{plain}/logs"), None)
        .await;
    assert_eq!(st, 404);
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("runlens-agent run"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_retention_purges_old_lines_and_pages_say_until_when() {
    let s = LiveServer::start().await;
    let jr = s.job_run("retained", &["n0"], 1).await;
    let run = &jr.runs[0];
    let day = 86_400_000i64;
    let now = server::util::now_ms();
    let old = now - 61 * day;
    s.ship(
        jr.id,
        1,
        "n0",
        0,
        &[(old, "ancient 0"), (old + 5, "ancient 1")],
    )
    .await;
    s.ship(jr.id, 1, "n0", 2, &[(now - day, "recent")]).await;
    let purged = server::logs::retention::purge(s.store.logs(), 60, now).unwrap();
    assert_eq!((purged.chunks, purged.lines), (1, 2));
    let page = s.page(run, "").await;
    assert_eq!(texts(&page), ["recent"]);
    assert_eq!(page["expired_through"], old + 5);
    // Retention 0 would keep everything; a longer one purges nothing more.
    let again = server::logs::retention::purge(s.store.logs(), 90, now).unwrap();
    assert_eq!(again.lines, 0);
}

/// 100 followers load the machine: the test holds the heavy tests' lock, so that timing
/// tests (slow clients, floods) do not run beside it.
#[test]
fn logs_stream_serves_a_hundred_followers_every_line() {
    let _heavy = crate::helpers::binary::exclusive();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(hundred_followers());
}

async fn hundred_followers() {
    let s = LiveServer::start().await;
    let jr = s.job_run("popular", &["n0", "n1"], 1).await;
    let path = format!("/api/v1/runs/{}/logs/stream", jr.runs[0]);
    let mut followers = Vec::new();
    for _ in 0..100 {
        let mut ev = Events::open(&s, &s.admin, &path, None).await;
        assert_eq!(ev.next(Duration::from_secs(10)).await.0, "status");
        followers.push(ev);
    }
    let mut want = Vec::new();
    for b in 0..5u64 {
        for node in ["n0", "n1"] {
            let texts: Vec<String> = (0..20).map(|i| format!("{node} {b} {i}")).collect();
            let lines: Vec<(i64, &str)> = texts.iter().map(|t| (1, t.as_str())).collect();
            s.ship(jr.id, 1, node, b * 20, &lines).await;
            want.extend(texts);
        }
    }
    want.sort();
    let tasks: Vec<_> = followers
        .into_iter()
        .map(|mut ev| {
            tokio::spawn(async move {
                let mut got = Vec::new();
                while got.len() < 200 {
                    got.extend(ev.lines(Duration::from_secs(20)).await.0);
                }
                got
            })
        })
        .collect();
    for t in tasks {
        let mut got = t.await.unwrap();
        got.sort();
        assert_eq!(got, want);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_stream_ends_when_the_followers_job_grant_is_revoked() {
    let s = LiveServer::start().await;
    let jr = s.job_run("revoked-job", &["n0"], 1).await;
    let run = &jr.runs[0];
    let bob = s.user_token("bob");
    for (path, level) in [
        (
            format!("/api/v1/experiments/{}/access", jr.experiment_id),
            "CAN_READ",
        ),
        (format!("/api/v1/jobs/{}/access", jr.job_id), "CAN_VIEW"),
    ] {
        let grant = json!({"principal": {"kind": "user", "name": "bob"}, "level": level});
        s.ok(&s.admin, "PUT", &path, Some(grant)).await;
    }
    let mut events = Events::open(&s, &bob, &format!("/api/v1/runs/{run}/logs/stream"), None).await;
    s.ship(jr.id, 1, "n0", 0, &[(1, "before the revoke")]).await;
    let (got, _) = events.lines(Duration::from_secs(5)).await;
    assert_eq!(got, ["before the revoke"]);
    s.ok(
        &s.admin,
        "DELETE",
        &format!("/api/v1/jobs/{}/access?kind=user&name=bob", jr.job_id),
        None,
    )
    .await;
    // Access is checked again every second: after that, the stream has ended and a line
    // shipped now never reaches bob; a reconnect is refused.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    s.ship(jr.id, 1, "n0", 1, &[(2, "AFTER THE REVOKE")]).await;
    let mut rest = String::new();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(chunk) = events.resp.chunk().await.expect("stream failed") {
            rest.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await;
    assert!(
        ended.is_ok(),
        "the stream is still open after the revoke: {rest}"
    );
    assert!(!rest.contains("AFTER THE REVOKE"), "{rest}");
    assert!(!events.buf.contains("AFTER THE REVOKE"));
    let r = s
        .send(
            &bob,
            "GET",
            &format!("/api/v1/runs/{run}/logs/stream"),
            None,
        )
        .await;
    assert_eq!(r.status().as_u16(), 403);
}
