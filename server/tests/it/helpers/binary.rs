//! The real `runlens` binary: `serve` on a free port of 127.0.0.1 with its output in a file,
//! raw HTTP/1.1 requests to it, and one-shot admin commands.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Held by the tests that load the machine or measure time on the real binary (kill -9
/// under load, slow clients, floods, big bodies), so that they do not run at the same time
/// and skew each other's measurements.
pub fn exclusive() -> std::sync::MutexGuard<'static, ()> {
    static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());
    HEAVY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The administrator's password, given to the first start through the environment.
pub const ADMIN_PASSWORD: &str = "durability-admin-pw";

/// A running server; killed on drop so a failing test leaves nothing running.
pub struct Server {
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
    log: PathBuf,
    _logs: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

impl Server {
    /// `runlens serve` over `dir` with warnings logged and the admin password
    /// [`ADMIN_PASSWORD`]; waits until `/health` answers.
    pub fn start(dir: &Path) -> Server {
        Self::start_with(dir, &[], &[("RUNLENS_LOG", "warn")])
    }

    /// `runlens serve` over `dir` with extra arguments and environment (on a PostgreSQL run,
    /// over the dir's database, [`super::store::binary_database_url`], unless `args` or
    /// `env` choose the database: `RUNLENS_DATABASE_URL` empty keeps SQLite).
    pub fn start_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        let port = free_port();
        let logs = tempfile::tempdir().expect("tempdir");
        let log = logs.path().join("output.log");
        let out = std::fs::File::create(&log).expect("log file");
        let err = out.try_clone().expect("log file");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_runlens"));
        cmd.args([
            "serve",
            "--addr",
            &format!("127.0.0.1:{port}"),
            "--data-dir",
        ])
        .arg(dir)
        .args(["--dist", "/nonexistent"])
        .args(args)
        .env("RUNLENS_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
        let chosen = args.contains(&"--database-url")
            || env.iter().any(|(k, _)| *k == "RUNLENS_DATABASE_URL");
        if !chosen {
            if let Some(url) = super::store::binary_database_url(dir) {
                cmd.env("RUNLENS_DATABASE_URL", url);
            }
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = cmd.spawn().expect("spawn runlens");
        let mut server = Server {
            child,
            port,
            log,
            _logs: logs,
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while server.get("/health").map(|r| r.0) != Some(200) {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("server exited with {status}: {}", server.output());
            }
            assert!(Instant::now() < deadline, "server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything the server printed so far (stdout and stderr).
    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Resident memory of the process in KiB (`VmRSS` of `/proc/<pid>/status`).
    pub fn rss_kib(&self) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid())).expect("proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }

    /// Sends a signal by name (`INT`, `TERM`) with `kill(1)`.
    pub fn signal(&self, name: &str) {
        let ok = Command::new("kill")
            .args([format!("-{name}"), self.pid().to_string()])
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill -{name} failed");
    }

    /// Waits for the process to exit, at most `limit`; `None` if it is still running.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                return Some(s);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `kill -9` and reap.
    pub fn kill9(&mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().expect("wait");
    }

    /// A GET with no credential; (status, JSON body or `Value::Null`).
    pub fn get(&self, path: &str) -> Option<(u16, Value)> {
        self.http_with(&format!("GET {path} HTTP/1.1\r\n"), &[], "")
    }

    /// A JSON request as the administrator (HTTP Basic with [`ADMIN_PASSWORD`]).
    pub fn http(&self, method: &str, path: &str, body: Option<&Value>) -> Option<(u16, Value)> {
        admin_http(self.port, method, path, body)
    }

    /// An admin request that must answer 200; returns the body.
    pub fn ok(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let (status, v) = self.http(method, path, body).expect("request");
        assert_eq!(status, 200, "{path}: {v}");
        v
    }

    /// One HTTP/1.1 request (`request_line` ends in CRLF) with `Connection: close`;
    /// `None` if the connection failed.
    pub fn http_with(
        &self,
        request_line: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Option<(u16, Value)> {
        http_with(self.port, request_line, headers, body)
    }
}

/// A JSON request as the administrator (HTTP Basic with [`ADMIN_PASSWORD`]) to the server
/// on `port`; `None` if the connection failed.
pub fn admin_http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Option<(u16, Value)> {
    let basic = server::auth::basic_header("admin", ADMIN_PASSWORD);
    let body = body.map(Value::to_string).unwrap_or_default();
    http_with(
        port,
        &format!("{method} {path} HTTP/1.1\r\n"),
        &[
            ("Authorization", &basic),
            ("Content-Type", "application/json"),
        ],
        &body,
    )
}

/// One HTTP/1.1 request (`request_line` ends in CRLF) with `Connection: close` to `port`;
/// (status, JSON body or `Value::Null`), `None` if the connection failed.
pub fn http_with(
    port: u16,
    request_line: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Option<(u16, Value)> {
    let mut head = format!("{request_line}Host: 127.0.0.1:{port}\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    let (status, _, payload) = raw_request(port, head.as_bytes())?;
    Some((
        status,
        serde_json::from_str(&payload).unwrap_or(Value::Null),
    ))
}

/// Writes `bytes` to a fresh connection and reads the answer to the end:
/// (status, head, de-chunked body).
pub fn raw_request(port: u16, bytes: &[u8]) -> Option<(u16, String, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
    s.write_all(bytes).ok()?;
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
        payload.to_string()
    };
    Some((status, head.to_string(), payload))
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

/// Runs `runlens <args> --data-dir <dir>` to completion with `stdin` piped in (on a
/// PostgreSQL run, over the dir's database: [`super::store::binary_database_url`]).
pub fn runlens(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_runlens"));
    if let Some(url) = super::store::binary_database_url(dir) {
        cmd.env("RUNLENS_DATABASE_URL", url);
    }
    let mut child = cmd
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .env_remove("RUNLENS_PASSWORD")
        .env("RUNLENS_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn runlens");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write stdin");
    }
    child.wait_with_output().expect("runlens output")
}

/// [`runlens`] that must succeed; returns its stdout.
pub fn runlens_ok(dir: &Path, args: &[&str], stdin: Option<&str>) -> String {
    let out = runlens(dir, args, stdin);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {err}");
    String::from_utf8_lossy(&out.stdout).to_string()
}
