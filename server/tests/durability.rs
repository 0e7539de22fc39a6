//! Durability: acknowledged log-batch calls survive `kill -9`. Spawns the real binary,
//! logs from several threads, kills it mid-burst, restarts it on the same data directory
//! and checks that every acknowledged point and param is there.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const THREADS: usize = 4;
const PER_BATCH: usize = 100;

/// The server process; killed on drop so a failing test leaves nothing running.
struct Server(Child, u16);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The administrator's password, given to the first start through the environment.
const ADMIN_PASSWORD: &str = "durability-admin-pw";

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start(dir: &Path) -> Server {
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_runlens"))
        .args([
            "serve",
            "--addr",
            &format!("127.0.0.1:{port}"),
            "--data-dir",
        ])
        .arg(dir)
        .args(["--dist", "/nonexistent"])
        .env("RUNLENS_LOG", "warn")
        .env("RUNLENS_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn runlens");
    let server = Server(child, port);
    let deadline = Instant::now() + Duration::from_secs(60);
    while http(port, "GET", "/health", None).map(|r| r.0) != Some(200) {
        assert!(Instant::now() < deadline, "server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

/// One HTTP/1.1 request with `Connection: close`; `None` if the connection failed.
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> Option<(u16, Value)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
         Authorization: {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        server::auth::basic_header("admin", ADMIN_PASSWORD),
        body.len()
    );
    s.write_all(req.as_bytes()).ok()?;
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

fn ok(port: u16, method: &str, path: &str, body: Option<&Value>) -> Value {
    let (status, v) = http(port, method, path, body).expect("request");
    assert_eq!(status, 200, "{path}: {v}");
    v
}

#[test]
fn acknowledged_points_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = start(dir.path());
    let port = server.1;
    let run = ok(
        port,
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
                    match http(port, "POST", "/api/2.0/mlflow/runs/log-batch", Some(&body)) {
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
    server.0.kill().expect("kill -9");
    server.0.wait().unwrap();
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

    let server = start(dir.path());
    let port = server.1;
    for t in 0..THREADS {
        let path = format!("/api/2.0/mlflow/metrics/get-history?run_id={run_id}&metric_key=t{t}");
        let h = ok(port, "GET", &path, None);
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
    let run = ok(
        port,
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
