//! `runlens jobs` and `runlens logs`: the built binary against a [`LiveServer`], as a user
//! in a terminal runs them (`--server`, `--token` / `RUNLENS_TOKEN`).

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use super::logs_api::LiveServer;

/// `runlens <args>` against `s` with `token` (through RUNLENS_TOKEN), run to completion off
/// the async runtime.
async fn runlens(s: &LiveServer, token: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_runlens"));
    cmd.args(args)
        .args(["--server", &s.base])
        .env("RUNLENS_TOKEN", token)
        .env("RUNLENS_LOG", "warn")
        .stdin(Stdio::null());
    tokio::task::spawn_blocking(move || cmd.output().expect("run runlens"))
        .await
        .expect("join")
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "runlens failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// 1,700,000,000,000 ms: 2023-11-14T22:13:20.000Z.
const T0: i64 = 1_700_000_000_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_cli_lists_job_runs_prints_filters_and_downloads_per_node() {
    let s = LiveServer::start().await;
    let jr = s.job_run("cli-job", &["node-0", "node-1"], 2).await;
    s.ship(jr.id, 1, "node-0", 0, &[(T0, "first attempt line")])
        .await;
    s.ship(
        jr.id,
        2,
        "node-0",
        0,
        &[
            (T0 + 10, "INFO: starting"),
            (T0 + 30, "ERROR: \x1b[31mboom\x1b[0m"),
        ],
    )
    .await;
    s.ship(jr.id, 2, "node-1", 0, &[(T0 + 20, "node one says hi")])
        .await;

    let list = stdout(&runlens(&s, &s.admin, &["jobs", "list"]).await);
    let row = list
        .lines()
        .find(|l| l.starts_with(&jr.id.to_string()))
        .unwrap_or_else(|| panic!("{list}"));
    assert!(row.contains("cli-job") && row.contains("RUNNING"), "{row}");
    assert!(row.contains("node-0,node-1"), "{row}");
    let get = stdout(&runlens(&s, &s.admin, &["jobs", "get", &jr.id.to_string()]).await);
    assert!(get.contains("Job run") && get.contains("cli-job"), "{get}");
    assert!(
        get.contains(&jr.runs[0]) && get.contains(&jr.runs[1]),
        "{get}"
    );

    // The latest attempt by default, every line in order.
    let id = jr.id.to_string();
    let out = stdout(&runlens(&s, &s.admin, &["logs", &id]).await);
    assert_eq!(
        out,
        "2023-11-14T22:13:20.010Z node-0 INFO INFO: starting\n\
         2023-11-14T22:13:20.020Z node-1 - node one says hi\n\
         2023-11-14T22:13:20.030Z node-0 ERROR ERROR: \x1b[31mboom\x1b[0m\n"
    );
    // --attempt, a run id, --node, --level, --search, --since/--until.
    let out = stdout(&runlens(&s, &s.admin, &["logs", &id, "--attempt", "1"]).await);
    assert_eq!(
        out,
        "2023-11-14T22:13:20.000Z node-0 - first attempt line\n"
    );
    let out = stdout(&runlens(&s, &s.admin, &["logs", &jr.runs[1], "--node", "node-1"]).await);
    assert_eq!(out, "2023-11-14T22:13:20.020Z node-1 - node one says hi\n");
    let out = stdout(&runlens(&s, &s.admin, &["logs", &id, "--level", "warning"]).await);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("boom"));
    let out = stdout(&runlens(&s, &s.admin, &["logs", &id, "--level", "info", "--exactly"]).await);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("starting"));
    let out = stdout(&runlens(&s, &s.admin, &["logs", &id, "--search", "SAYS"]).await);
    assert!(
        out.contains("node one says hi") && out.lines().count() == 1,
        "{out}"
    );
    let out = stdout(
        &runlens(
            &s,
            &s.admin,
            &[
                "logs",
                &id,
                "--since",
                "2023-11-14T22:13:20.015Z",
                "--until",
                "2023-11-14T22:13:20.030Z",
            ],
        )
        .await,
    );
    assert_eq!(out, "2023-11-14T22:13:20.020Z node-1 - node one says hi\n");

    // --download-to: one file per node.
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out");
    let o = runlens(
        &s,
        &s.admin,
        &["logs", &id, "--download-to", target.to_str().unwrap()],
    )
    .await;
    stdout(&o);
    let n0 = std::fs::read_to_string(target.join("node-0.log")).unwrap();
    let n1 = std::fs::read_to_string(target.join("node-1.log")).unwrap();
    assert_eq!(
        n0,
        "2023-11-14T22:13:20.010Z node-0 INFO INFO: starting\n\
         2023-11-14T22:13:20.030Z node-0 ERROR ERROR: \x1b[31mboom\x1b[0m\n"
    );
    assert_eq!(n1, "2023-11-14T22:13:20.020Z node-1 - node one says hi\n");

    // Not an id; no such attempt.
    let o = runlens(&s, &s.admin, &["logs", "not-an-id"]).await;
    assert_eq!(o.status.code(), Some(1));
    let o = runlens(&s, &s.admin, &["logs", &id, "--attempt", "7"]).await;
    assert!(String::from_utf8_lossy(&o.stderr).contains("no attempt 7"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_cli_refuses_without_job_view_printing_the_access_message() {
    let s = LiveServer::start().await;
    let jr = s.job_run("private-job", &["n0"], 1).await;
    s.ship(jr.id, 1, "n0", 0, &[(T0, "hidden line")]).await;
    let eve = s.user_token("eve");
    let grant = json!({"principal": {"kind": "user", "name": "eve"}, "level": "CAN_READ"});
    s.ok(
        &s.admin,
        "PUT",
        &format!("/api/v1/experiments/{}/access", jr.experiment_id),
        Some(grant),
    )
    .await;
    for args in [
        vec!["logs", jr.runs[0].as_str()],
        vec!["logs", jr.runs[0].as_str(), "--follow"],
    ] {
        let o = runlens(&s, &eve, &args).await;
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("You don't have access to these logs")
                && err.contains("'private-job'")
                && err.contains("(root)"),
            "{err}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let o = runlens(
        &s,
        &eve,
        &[
            "logs",
            &jr.runs[0],
            "--download-to",
            dir.path().to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(o.status.code(), Some(1));
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
    // The job run itself is the job's too.
    let o = runlens(&s, &eve, &["jobs", "get", &jr.id.to_string()]).await;
    assert_eq!(o.status.code(), Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_cli_follow_prints_new_lines_and_exits_when_the_job_run_ends() {
    let s = LiveServer::start().await;
    let jr = s.job_run("followed", &["n0"], 1).await;
    s.ship(jr.id, 1, "n0", 0, &[(T0, "old line")]).await;
    let mut child = Command::new(env!("CARGO_BIN_EXE_runlens"))
        .args(["logs", &jr.id.to_string(), "--follow", "--server", &s.base])
        .env("RUNLENS_TOKEN", &s.admin)
        .env("RUNLENS_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Give it time to print the old line and connect; then a new line, then the end.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    s.ship(jr.id, 1, "n0", 1, &[(T0 + 1, "new line")]).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    s.ok(
        &s.admin,
        "POST",
        &format!("/api/v1/job-runs/{}/status", jr.id),
        Some(json!({"status": "FAILED"})),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(
            Instant::now() < deadline,
            "runlens logs --follow did not exit"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{err}");
    assert_eq!(
        out,
        "2023-11-14T22:13:20.000Z n0 - old line\n2023-11-14T22:13:20.001Z n0 - new line\n"
    );
    assert!(err.contains("FAILED"), "{err}");
}

/// A TCP proxy to `upstream` on a port of its own whose open connections can be cut (the
/// network dropping a long-lived stream) while new ones are still served.
struct Proxy {
    port: u16,
    open: std::sync::Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
}

impl Proxy {
    fn start(upstream: std::net::SocketAddr) -> Proxy {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let open = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let conns = open.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = std::net::TcpStream::connect(upstream) else {
                    continue;
                };
                let mut lock = conns.lock().unwrap();
                lock.push(client.try_clone().unwrap());
                lock.push(server.try_clone().unwrap());
                drop(lock);
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
        });
        Proxy { port, open }
    }

    /// Closes every connection open now.
    fn cut(&self) {
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_cli_follow_resumes_after_a_dropped_connection_without_gap_or_duplicate() {
    let s = LiveServer::start().await;
    let jr = s.job_run("flaky-network", &["n0"], 1).await;
    s.ship(jr.id, 1, "n0", 0, &[(T0, "line 0")]).await;
    let upstream = s.base.trim_start_matches("http://").parse().unwrap();
    let proxy = Proxy::start(upstream);
    let mut child = Command::new(env!("CARGO_BIN_EXE_runlens"))
        .args(["logs", &jr.id.to_string(), "--follow"])
        .args(["--server", &format!("http://127.0.0.1:{}", proxy.port)])
        .env("RUNLENS_TOKEN", &s.admin)
        .env("RUNLENS_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pause = || tokio::time::sleep(Duration::from_millis(1500));
    pause().await;
    s.ship(jr.id, 1, "n0", 1, &[(T0 + 1, "line 1")]).await;
    pause().await;
    proxy.cut();
    // Shipped while the follower is away; it reconnects with Last-Event-ID.
    s.ship(jr.id, 1, "n0", 2, &[(T0 + 2, "line 2")]).await;
    pause().await;
    pause().await;
    s.ship(jr.id, 1, "n0", 3, &[(T0 + 3, "line 3")]).await;
    pause().await;
    s.ok(
        &s.admin,
        "POST",
        &format!("/api/v1/job-runs/{}/status", jr.id),
        Some(json!({"status": "SUCCEEDED"})),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "runlens logs --follow did not exit"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let texts: Vec<&str> = out
        .lines()
        .map(|l| l.splitn(4, ' ').nth(3).unwrap())
        .collect();
    assert_eq!(texts, ["line 0", "line 1", "line 2", "line 3"], "{err}");
    assert!(
        err.contains("resuming") || err.contains("retrying"),
        "{err}"
    );
}

#[test]
fn logs_cli_serve_purges_expired_lines_at_start_and_ends_streams_on_shutdown() {
    use super::helpers::binary::{raw_request, Server, ADMIN_PASSWORD};
    let dir = tempfile::tempdir().unwrap();
    let mut srv = Server::start(dir.path());
    let call = |srv: &Server, method: &str, path: &str, body: serde_json::Value| {
        let (st, v) = srv.http(method, path, Some(&body)).expect("request");
        assert!((200..300).contains(&st), "{path}: {st} {v}");
        v
    };
    let exp = call(
        &srv,
        "POST",
        "/api/2.0/mlflow/experiments/create",
        json!({"name": "kept-60-days"}),
    )["experiment_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let job = call(&srv, "POST", "/api/v1/jobs", json!({"name": "old-job"}))["job_id"]
        .as_i64()
        .unwrap();
    let body = json!({"experiment_id": exp, "nodes": ["n0"], "max_retries": 0});
    let jr = call(&srv, "POST", &format!("/api/v1/jobs/{job}/runs"), body)["job_run_id"]
        .as_i64()
        .unwrap();
    let run = call(
        &srv,
        "POST",
        &format!("/api/v1/job-runs/{jr}/attempts"),
        json!({}),
    )["run_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let day = 86_400_000i64;
    let now = server::util::now_ms();
    let lines = json!([
        {"ts_ms": now - 40 * day, "stream": "stdout", "text": "forty days old"},
    ]);
    call(
        &srv,
        "POST",
        &format!("/api/v1/job-runs/{jr}/attempts/1/logs"),
        json!({"node": "n0", "first_seq": 0, "lines": lines}),
    );
    call(
        &srv,
        "POST",
        &format!("/api/v1/job-runs/{jr}/attempts/1/logs"),
        json!({"node": "n0", "first_seq": 1, "lines": [{"ts_ms": now, "stream": "stdout", "text": "today"}]}),
    );
    // An open event stream does not hold the shutdown back.
    let basic = server::auth::basic_header("admin", ADMIN_PASSWORD);
    let port = srv.port;
    let stream = std::thread::spawn(move || {
        let req = format!(
            "GET /api/v1/runs/{run}/logs/stream HTTP/1.1\r\nHost: x\r\nAuthorization: \
             {basic}\r\n\r\n"
        );
        raw_request(port, req.as_bytes())
    });
    std::thread::sleep(Duration::from_millis(500));
    let stopping = Instant::now();
    srv.signal("TERM");
    assert!(
        srv.wait_exit(Duration::from_secs(10)).is_some(),
        "still running"
    );
    assert!(stopping.elapsed() < Duration::from_secs(10));
    let (status, _, body) = stream.join().unwrap().expect("stream answered");
    assert_eq!(status, 200);
    assert!(body.contains("event: status"), "{body}");
    drop(srv);

    // Restarted with 30 days of retention: the old line goes at start, and pages say so.
    let srv = Server::start_with(
        dir.path(),
        &["--log-retention-days", "30"],
        &[("RUNLENS_LOG", "info")],
    );
    let run = srv.ok("GET", &format!("/api/v1/job-runs/{jr}"), None)["attempts"][0]["run_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let page = srv.ok("GET", &format!("/api/v1/runs/{run}/logs"), None);
    let texts: Vec<&str> = page["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["today"]);
    assert_eq!(page["expired_through"], now - 40 * day);
    assert!(
        srv.output()
            .contains("log retention: purged 1 lines older than 30 days"),
        "{}",
        srv.output()
    );
}
