//! E: a signed-in user cannot make the server hold memory out of proportion to the answer:
//! a 30 MB body of small JSON values to `experiments/search` is refused (4xx) and the
//! server's resident memory grows by less than 100 MB. On the real binary, measured from
//! `/proc/<pid>/status`.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::helpers::binary::{Server, ADMIN_PASSWORD};

const BODY_BYTES: usize = 30 * 1024 * 1024;

/// `{"experiment_ids":[0,0,...]}` or `[1,1,...]` of about [`BODY_BYTES`].
fn small_values_body(top_level_array: bool) -> Vec<u8> {
    let (open, item, close) = if top_level_array {
        ("[", "1,", "1]")
    } else {
        ("{\"experiment_ids\":[", "0,", "0]}")
    };
    let mut body = Vec::with_capacity(BODY_BYTES + 64);
    body.extend_from_slice(open.as_bytes());
    while body.len() < BODY_BYTES {
        body.extend_from_slice(item.as_bytes());
    }
    body.extend_from_slice(close.as_bytes());
    body
}

/// Sends `body` as an admin POST while a reader takes the answer as soon as it comes (the
/// server may answer and close before the body is all sent); returns the status (0 if no
/// answer came).
fn post_big(port: u16, path: &str, body: &[u8]) -> u16 {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(60))).unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
         Authorization: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        server::auth::basic_header("admin", ADMIN_PASSWORD),
        body.len()
    );
    let mut reader = s.try_clone().expect("clone");
    let answer = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        while let Ok(n) = reader.read(&mut chunk) {
            if n == 0 {
                break;
            }
            buf.extend_from_slice(&chunk[..n]);
            if buf.windows(4).any(|w| w == b"\r\n\r\n") {
                break;
            }
        }
        buf
    });
    if s.write_all(head.as_bytes()).is_ok() {
        for part in body.chunks(64 * 1024) {
            if s.write_all(part).is_err() {
                break; // the server answered and closed: fine
            }
        }
    }
    let _ = s.shutdown(Shutdown::Write);
    let buf = answer.join().expect("reader");
    String::from_utf8_lossy(&buf)
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

#[test]
fn a_30_mb_body_of_small_values_is_refused_within_100_mb_of_memory() {
    let _heavy = crate::helpers::binary::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    server.ok(
        "POST",
        "/api/2.0/mlflow/experiments/search",
        Some(&serde_json::json!({})),
    );
    let before = server.rss_kib();
    let peak = Arc::new(AtomicU64::new(before));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (peak.clone(), done.clone());
        let status = format!("/proc/{}/status", server.pid());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                if let Ok(text) = std::fs::read_to_string(&status) {
                    let rss = text
                        .lines()
                        .find_map(|l| l.strip_prefix("VmRSS:"))
                        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
                        .unwrap_or(0);
                    peak.fetch_max(rss, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    let mut statuses = Vec::new();
    for top_level_array in [false, true] {
        let body = small_values_body(top_level_array);
        statuses.push(post_big(
            server.port,
            "/api/2.0/mlflow/experiments/search",
            &body,
        ));
    }
    std::thread::sleep(Duration::from_millis(200));
    done.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    peak.fetch_max(server.rss_kib(), Ordering::Relaxed);
    let grew_mb = (peak.load(Ordering::Relaxed).saturating_sub(before)) / 1024;
    for s in &statuses {
        assert!(
            (400..500).contains(s),
            "answers {statuses:?}, RSS grew {grew_mb} MB"
        );
    }
    assert!(
        grew_mb < 100,
        "RSS grew {grew_mb} MB (answers {statuses:?})"
    );
    // The server is still fine.
    assert_eq!(server.get("/health").map(|r| r.0), Some(200));
}
