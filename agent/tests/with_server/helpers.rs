//! The real runlens server, in process on a port of 127.0.0.1 over a temp dir (stopped and
//! restarted on the same port and data when a test asks), raw HTTP requests to it, and the
//! real `runlens-agent` binary.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use server::{AppState, StaticConfig, Store};

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// A node credential for `node`, made in the server's data dir `dir` and written to a file
/// of mode 0600 in `dir` (what `runlens node-credential create` and the deployment steps
/// do); the file's path.
pub fn node_credential_file(dir: &Path, node: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let store = Store::open(dir).expect("store");
    let made = store
        .blocking(|c| {
            server::auth::node_credentials::create(c, node, "root", server::util::now_ms())
        })
        .expect("node credential");
    let path = dir.join(format!("{node}.credential"));
    std::fs::write(&path, format!("{}\n", made.credential)).expect("write the credential");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    path
}

/// The real server router serving a data dir on a fixed port, on its own runtime thread.
pub struct TestServer {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// An administrator's API token.
    pub token: String,
    dir: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TestServer {
    /// A fresh server over `dir` on a free port, with an administrator `root`.
    pub fn start(dir: &Path) -> TestServer {
        let token = Self::prepare(dir);
        Self::start_on(dir, free_port(), token)
    }

    /// Makes the data of a server in `dir` with an administrator `root`, without starting
    /// it; the administrator's API token.
    pub fn prepare(dir: &Path) -> String {
        let store = Store::open(dir).expect("store");
        server::auth::bootstrap::create_admin_with_token(&store, "root").expect("admin")
    }

    /// A server over the existing `dir` on `port` (whose administrator has `token`).
    pub fn start_on(dir: &Path, port: u16, token: String) -> TestServer {
        let store = Store::open(dir).expect("store");
        let app = server::app(AppState::new(store), &StaticConfig::default());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready_tx, ready) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
                    .await
                    .expect("bind the server's port");
                ready_tx.send(()).expect("ready");
                let shutdown = async {
                    let _ = stopped.await;
                };
                server::serve::serve(listener, app, server::serve::Limits::default(), shutdown)
                    .await;
            });
        });
        ready.recv().expect("server thread started");
        TestServer {
            port,
            token,
            dir: dir.to_owned(),
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Stops the server; [`TestServer::restart`] brings it back on the same port and data.
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// The stopped server, started again on its port over its data.
    pub fn restart(mut self) -> TestServer {
        self.stop();
        Self::start_on(&self.dir.clone(), self.port, self.token.clone())
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A request as the administrator; (status, JSON body or `Value::Null`).
    pub fn call(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        request(self.port, method, path, Some(&self.token), body)
            .unwrap_or_else(|| panic!("{method} {path}: no answer"))
    }

    /// An administrator's request that must answer 200.
    pub fn ok(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let (status, value) = self.call(method, path, body);
        assert_eq!(status, 200, "{method} {path}: {value}");
        value
    }

    /// The runs of experiment `name`, through the MLflow API (none while it does not exist).
    pub fn runs_of(&self, experiment: &str) -> Vec<Value> {
        let (status, exp) = self.call(
            "GET",
            &format!("/api/2.0/mlflow/experiments/get-by-name?experiment_name={experiment}"),
            None,
        );
        if status == 404 {
            return vec![];
        }
        assert_eq!(status, 200, "{exp}");
        let id = exp["experiment"]["experiment_id"].as_str().expect("id");
        let found = self.ok(
            "POST",
            "/api/2.0/mlflow/runs/search",
            Some(&serde_json::json!({"experiment_ids": [id]})),
        );
        found["runs"].as_array().cloned().unwrap_or_default()
    }

    /// The only run of experiment `name`.
    pub fn only_run(&self, experiment: &str) -> Value {
        let runs = self.runs_of(experiment);
        assert_eq!(runs.len(), 1, "{runs:?}");
        runs.into_iter().next().expect("one run")
    }

    /// The history of one metric of a run: (step, value) pairs in the server's order.
    pub fn history(&self, run_id: &str, key: &str) -> Vec<(i64, f64)> {
        let v = self.ok(
            "GET",
            &format!("/api/2.0/mlflow/metrics/get-history?run_id={run_id}&metric_key={key}"),
            None,
        );
        v["metrics"]
            .as_array()
            .map(|ms| {
                ms.iter()
                    .map(|m| {
                        (
                            m["step"].as_i64().unwrap_or(-1),
                            m["value"].as_f64().unwrap_or(f64::NAN),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A run's tag value.
pub fn tag<'a>(run: &'a Value, key: &str) -> Option<&'a str> {
    run["data"]["tags"]
        .as_array()?
        .iter()
        .find(|t| t["key"] == key)?["value"]
        .as_str()
}

/// The keys of a run's latest metrics.
pub fn metric_keys(run: &Value) -> Vec<String> {
    let mut keys: Vec<String> = run["data"]["metrics"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter_map(|m| m["key"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    keys.sort();
    keys
}

/// One HTTP/1.1 request with `Connection: close` (and a bearer token when given);
/// `None` when the connection failed.
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    bearer: Option<&str>,
    body: Option<&Value>,
) -> Option<(u16, Value)> {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(token) = bearer {
        head.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    head.push_str("\r\n");
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
    s.write_all(head.as_bytes()).ok()?;
    s.write_all(body.as_bytes()).ok()?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).ok()?;
    let text = String::from_utf8_lossy(&raw);
    let status: u16 = text.split(' ').nth(1)?.parse().ok()?;
    let (head, payload) = text.split_once("\r\n\r\n")?;
    let payload = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(payload)
    } else {
        payload.to_owned()
    };
    Some((
        status,
        serde_json::from_str(&payload).unwrap_or(Value::Null),
    ))
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// A running `runlens-agent` with its stdout and stderr going to files; killed on drop.
pub struct Agent {
    child: Child,
    out: PathBuf,
    err: PathBuf,
    logs: tempfile::TempDir,
}

impl Agent {
    /// Starts `runlens-agent <args>` with stdin closed, no RUNLENS_* from the caller and
    /// its state (the log spool) in a directory of its own ([`Agent::spool_dir`]).
    pub fn start(args: &[&str]) -> Agent {
        let logs = tempfile::tempdir().expect("tempdir");
        let out = logs.path().join("stdout");
        let err = logs.path().join("stderr");
        let child = Command::new(env!("CARGO_BIN_EXE_runlens-agent"))
            .args(args)
            .env_remove("RUNLENS_SERVER")
            .env_remove("RUNLENS_TOKEN")
            .env_remove("RUNLENS_AGENT_TOKEN")
            .env("RUST_LOG", "info")
            .env("XDG_STATE_HOME", logs.path())
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).expect("stdout file"))
            .stderr(std::fs::File::create(&err).expect("stderr file"))
            .spawn()
            .expect("spawn runlens-agent");
        Agent {
            child,
            out,
            err,
            logs,
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The default spool directory of this agent (under its own `XDG_STATE_HOME`).
    pub fn spool_dir(&self) -> PathBuf {
        self.logs.path().join("runlens-agent/spool")
    }

    /// What it printed on stdout so far.
    pub fn stdout(&self) -> String {
        std::fs::read_to_string(&self.out).unwrap_or_default()
    }

    /// What it printed on stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.err).unwrap_or_default()
    }

    /// Waits for it to exit, at most `limit` (panics after).
    pub fn wait(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "runlens-agent still running after {limit:?}; stderr:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// True while it runs.
    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }

    /// Sends a signal by name (`TERM`, `INT`) with `kill(1)`.
    pub fn signal(&self, name: &str) {
        let ok = Command::new("kill")
            .args([format!("-{name}"), self.pid().to_string()])
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill -{name} failed");
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `check` every 50 ms until it gives a value, at most `limit`.
pub fn eventually<T>(limit: Duration, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The repository's Python with mlflow (`.venv/bin/python`), when there is one.
pub fn venv_python() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python");
    python.is_file().then_some(python)
}

/// Every log line of run `run_id` (optionally of one node), oldest first, through
/// `GET /api/v1/runs/{id}/logs`, page by page.
pub fn all_log_lines(server: &TestServer, run_id: &str, node: Option<&str>) -> Vec<Value> {
    let filter = node.map(|n| format!("&node={n}")).unwrap_or_default();
    let mut position = "earliest=true".to_owned();
    let mut lines = Vec::new();
    loop {
        let page = server.ok(
            "GET",
            &format!("/api/v1/runs/{run_id}/logs?{position}&limit=10000{filter}"),
            None,
        );
        lines.extend(page["lines"].as_array().cloned().unwrap_or_default());
        match page["newer"].as_str() {
            Some(cursor) => position = format!("after={cursor}"),
            None => return lines,
        }
    }
}

/// (seq, stream, text) of each line of `node` in `lines`, by sequence number.
pub fn node_lines(lines: &[Value], node: &str) -> Vec<(u64, String, String)> {
    let mut out: Vec<(u64, String, String)> = lines
        .iter()
        .filter(|l| l["node"] == node)
        .map(|l| {
            (
                l["seq"].as_u64().expect("seq"),
                l["stream"].as_str().unwrap_or_default().to_owned(),
                l["text"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    out.sort_by_key(|l| l.0);
    out
}

/// The job run of a run (from its `runlens.job_run_id` tag), as `GET /api/v1/job-runs/{id}`.
pub fn job_run_of(server: &TestServer, run: &Value) -> Value {
    let id = tag(run, "runlens.job_run_id").expect("runlens.job_run_id tag");
    server.ok("GET", &format!("/api/v1/job-runs/{id}"), None)
}

/// `runlens-agent run` against `server` into experiment `exp` (node name `n`, 1 s
/// interval, 1 simulated GPU) with `extra` flags, running `cmd`.
pub fn job_agent(server: &TestServer, exp: &str, extra: &[&str], cmd: &[&str]) -> Agent {
    let url = server.url();
    let mut args = vec![
        "run",
        "--server",
        &url,
        "--token",
        &server.token,
        "--experiment",
        exp,
        "--node-name",
        "n",
        "--interval-secs",
        "1",
        "--simulate-gpus",
        "1",
    ];
    args.extend_from_slice(extra);
    args.push("--");
    args.extend_from_slice(cmd);
    Agent::start(&args)
}

/// The files in `dir` (none when it does not exist).
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default()
}
