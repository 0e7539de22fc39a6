//! Unread downloads on the real binary: hundreds of zip and log downloads whose clients
//! never read the body hold no thread of the server's, so another user's requests and
//! `/health` stay fast and the server answers at once after they close; each user has at
//! most [`MAX_DOWNLOADS_PER_USER`] downloads in progress (429 past it), a slot given back
//! when its client goes away.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use server::auth::{tokens, users};
use server::downloads::MAX_DOWNLOADS_PER_USER;

use crate::helpers::binary::{http_with, Server};

/// Bytes of each download (the zip of a folder of incompressible bytes; a run's log
/// lines): well over what a connection whose client does not read takes in (the server's
/// write buffer for it, about half a MiB, and the sockets' buffers, small with
/// [`open_download`]'s small segments), so every download stays in progress.
const DOWNLOAD_BYTES: usize = 4 << 20;

/// The client's segment size: a network's (loopback's 64 KiB segments make the kernel
/// buffer some 4 MiB for each connection that is not read, which the server would have to
/// make first: minutes of a debug build's compression for hundreds of downloads).
const CLIENT_MSS: u32 = 1460;

/// A server over a data dir with a run that has [`DOWNLOAD_BYTES`] of logs and a folder
/// `big` of as many artifact bytes; `downloaders` administrators and a user `other`
/// who reads experiments.
struct Fixture {
    server: Server,
    run: String,
    /// API tokens of the downloaders (administrators).
    downloaders: Vec<String>,
    /// API token of `other` (no administrator).
    other: String,
    _dir: tempfile::TempDir,
}

/// Raises this process's open-files soft limit to fit `need` more sockets.
fn room_for(need: u64) -> u64 {
    let (soft, hard) = rlimit::Resource::NOFILE.get().expect("getrlimit");
    if soft < need + 512 {
        let want = (need + 1_024).min(hard);
        rlimit::Resource::NOFILE
            .set(want, hard)
            .expect("setrlimit NOFILE");
        return want;
    }
    soft
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// A JSON request with a token that must answer 2xx; the body.
fn ok(port: u16, token: &str, method: &str, path: &str, body: &Value) -> Value {
    let (status, v) = http_with(
        port,
        &format!("{method} {path} HTTP/1.1\r\n"),
        &[
            ("Authorization", &bearer(token)),
            ("Content-Type", "application/json"),
        ],
        &body.to_string(),
    )
    .expect("request");
    assert!(
        (200..300).contains(&status),
        "{method} {path}: {status} {v}"
    );
    v
}

/// Pseudo-random bytes (xorshift): deflate cannot shrink them.
fn noise(len: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    out
}

impl Fixture {
    fn start(downloaders: usize) -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let (root, other, tokens) = {
            let store = crate::helpers::store::open_dir_store(dir.path()).expect("store");
            let root =
                server::auth::bootstrap::create_admin_with_token(&store, "root").expect("admin");
            let token = |name: &str, admin: bool| {
                store
                    .blocking(|c| {
                        let id = users::create_user(c, name, None, admin)?;
                        Ok(tokens::create_token(c, id, "t")?.token)
                    })
                    .expect("user")
            };
            let other = token("other", false);
            let tokens: Vec<String> = (0..downloaders)
                .map(|i| token(&format!("dl-{i}"), true))
                .collect();
            (root, other, tokens)
        };
        let server = Server::start(dir.path());
        let port = server.port;
        let exp = ok(
            port,
            &root,
            "POST",
            "/api/2.0/mlflow/experiments/create",
            &json!({"name": "downloads"}),
        )["experiment_id"]
            .as_str()
            .expect("experiment")
            .to_owned();
        let job = ok(port, &root, "POST", "/api/v1/jobs", &json!({"name": "j"}))["job_id"]
            .as_i64()
            .expect("job");
        let job_run = ok(
            port,
            &root,
            "POST",
            &format!("/api/v1/jobs/{job}/runs"),
            &json!({"experiment_id": exp, "nodes": ["n0"], "max_retries": 0}),
        )["job_run_id"]
            .as_i64()
            .expect("job run");
        let run = ok(
            port,
            &root,
            "POST",
            &format!("/api/v1/job-runs/{job_run}/attempts"),
            &json!({}),
        )["run_id"]
            .as_str()
            .expect("run")
            .to_owned();
        // Long lines (the cost of a debug build's download is mostly per line), in
        // batches of 2 MB.
        let per_batch = 500;
        let text = "x".repeat(4_000);
        let batches = DOWNLOAD_BYTES / (per_batch * 4_000) + 1;
        for b in 0..batches {
            let first = b * per_batch;
            let lines: Vec<Value> = (first..first + per_batch)
                .map(|i| json!({"ts_ms": 1_700_000_000_000i64 + i as i64, "stream": "stdout", "text": text}))
                .collect();
            ok(
                port,
                &root,
                "POST",
                &format!("/api/v1/job-runs/{job_run}/attempts/1/logs"),
                &json!({"node": "n0", "first_seq": first, "lines": lines}),
            );
        }
        let folder = dir
            .path()
            .join(format!("artifacts/{exp}/{run}/artifacts/big"));
        std::fs::create_dir_all(&folder).expect("folder");
        std::fs::write(folder.join("noise.bin"), noise(DOWNLOAD_BYTES)).expect("artifact");
        Fixture {
            server,
            run,
            downloaders: tokens,
            other,
            _dir: dir,
        }
    }

    fn port(&self) -> u16 {
        self.server.port
    }

    /// The path of a zip download of the folder `big`.
    fn zip_path(&self) -> String {
        format!("/api/v1/runs/{}/artifacts/zip?path=big", self.run)
    }

    /// The path of a download of the run's logs.
    fn logs_path(&self) -> String {
        format!("/api/v1/runs/{}/logs/download", self.run)
    }
}

/// A download sent on a fresh connection and left unread; the connection has segments of
/// [`CLIENT_MSS`] and a small receive buffer.
fn open_download(port: u16, token: &str, path: &str) -> TcpStream {
    use nix::sys::socket::{self as sock, sockopt};
    let fd = sock::socket(
        sock::AddressFamily::Inet,
        sock::SockType::Stream,
        sock::SockFlag::empty(),
        None,
    )
    .expect("socket");
    sock::setsockopt(&fd, sockopt::TcpMaxSeg, &CLIENT_MSS).expect("TCP_MAXSEG");
    sock::setsockopt(&fd, sockopt::RcvBuf, &4096).expect("SO_RCVBUF");
    let addr = sock::SockaddrIn::new(127, 0, 0, 1, port);
    sock::connect(std::os::fd::AsRawFd::as_raw_fd(&fd), &addr).expect("connect");
    let mut s = TcpStream::from(fd);
    let req =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\r\n");
    s.write_all(req.as_bytes()).expect("request");
    s
}

/// The status of the answer on `s` (reading only its first line's bytes), `None` if it
/// did not come by `deadline`.
fn status_of(s: &mut TcpStream, deadline: Instant) -> Option<u16> {
    let left = deadline.checked_duration_since(Instant::now())?;
    s.set_read_timeout(Some(left.max(Duration::from_millis(1))))
        .ok()?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// A download by `token` of `path`, asked again every 100 ms while it is refused with 429
/// (the user's slots still held), for at most `within`: its status and connection.
fn download_once_free_held(
    f: &Fixture,
    token: &str,
    path: &str,
    within: Duration,
) -> (Option<u16>, TcpStream) {
    let deadline = Instant::now() + within;
    loop {
        let mut s = open_download(f.port(), token, path);
        let status = status_of(&mut s, Instant::now() + Duration::from_secs(20));
        if status != Some(429) || Instant::now() >= deadline {
            return (status, s);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// [`download_once_free_held`]'s status, its connection closed.
fn download_once_free(f: &Fixture, token: &str, path: &str, within: Duration) -> Option<u16> {
    download_once_free_held(f, token, path, within).0
}

/// A request on a fresh connection; its latency if it answered 200 within `limit`, else
/// `limit`.
fn latency(port: u16, path: &str, token: Option<&str>, limit: Duration) -> Duration {
    let started = Instant::now();
    let answered = (|| {
        let mut s = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), limit).ok()?;
        s.set_read_timeout(Some(limit)).ok()?;
        let auth = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        let req =
            format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Connection: close\r\n\r\n");
        s.write_all(req.as_bytes()).ok()?;
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).ok()?;
        buf.starts_with(b"HTTP/1.1 200").then_some(())
    })();
    match answered {
        Some(()) if started.elapsed() < limit => started.elapsed(),
        _ => limit,
    }
}

/// `n` alternating `/health` and `other`'s experiment list requests; stops after 3 that
/// did not answer within `limit`. Sorted latencies of each.
fn sample_latencies(f: &Fixture, n: usize, limit: Duration) -> (Vec<Duration>, Vec<Duration>) {
    let (mut health, mut api) = (Vec::new(), Vec::new());
    let mut missed = 0;
    for i in 0..n {
        let t = if i % 2 == 0 {
            let t = latency(f.port(), "/health", None, limit);
            health.push(t);
            t
        } else {
            let t = latency(f.port(), "/api/v1/experiments", Some(&f.other), limit);
            api.push(t);
            t
        };
        missed += usize::from(t >= limit);
        if missed >= 3 {
            break;
        }
    }
    health.sort();
    api.sort();
    (health, api)
}

/// The `p`-th percentile of sorted `times`.
fn pct(times: &[Duration], p: usize) -> Duration {
    times[(times.len() * p / 100).min(times.len() - 1)]
}

/// `users` x [`MAX_DOWNLOADS_PER_USER`] unread downloads, one in 72 a zip (a debug
/// build compresses slowly) and the others logs; prints
/// what another user's requests and `/health` took meanwhile and how soon the server
/// answered after the clients closed, and asserts generous bounds on both.
fn unread_downloads(users: usize) {
    let _heavy = crate::helpers::binary::exclusive();
    let total = users * MAX_DOWNLOADS_PER_USER;
    room_for(total as u64 + 64);
    let f = Fixture::start(users);
    let (quiet_health, quiet_api) = sample_latencies(&f, 20, Duration::from_secs(5));

    let started = Instant::now();
    let mut open: Vec<TcpStream> = Vec::with_capacity(total);
    for (u, token) in f.downloaders.iter().enumerate() {
        for k in 0..MAX_DOWNLOADS_PER_USER {
            let path = if k == 0 && u % 9 == 0 {
                f.zip_path()
            } else {
                f.logs_path()
            };
            open.push(open_download(f.port(), token, &path));
        }
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let statuses: Vec<Option<u16>> = open.iter_mut().map(|s| status_of(s, deadline)).collect();
    let begun = statuses.iter().filter(|s| **s == Some(200)).count();
    let all_begun = started.elapsed();
    let rss_mib = f.server.rss_kib() / 1024;

    let (health, api) = sample_latencies(&f, 200, Duration::from_secs(5));
    drop(open);
    let closed = Instant::now();
    let first_health = latency(f.port(), "/health", None, Duration::from_secs(10));
    let first_api = latency(
        f.port(),
        "/api/v1/experiments",
        Some(&f.other),
        Duration::from_secs(10),
    );
    let recovered = closed.elapsed();
    println!(
        "{total} unread downloads ({begun} begun in {all_begun:?}; server RSS {rss_mib} MiB)\n\
         quiet:  /health p50 {:?} p99 {:?}; other user's API p50 {:?} p99 {:?}\n\
         loaded: /health p50 {:?} p99 {:?} ({} requests); other user's API p50 {:?} p99 {:?} ({})\n\
         after closing: /health {first_health:?}, API {first_api:?}, both within {recovered:?}",
        pct(&quiet_health, 50),
        pct(&quiet_health, 99),
        pct(&quiet_api, 50),
        pct(&quiet_api, 99),
        pct(&health, 50),
        pct(&health, 99),
        health.len(),
        pct(&api, 50),
        pct(&api, 99),
        api.len(),
    );
    if begun != total {
        let log = f.server.output();
        let tail = &log[log.len().saturating_sub(3_000)..];
        let refused: Vec<_> = statuses.iter().filter(|s| **s != Some(200)).collect();
        panic!("{begun} of {total} downloads begun; others: {refused:?}\n{tail}");
    }
    // Generous bounds for a 2-core machine that runs the rest of the suite meanwhile (the
    // target is a p99 under 100 ms): most answers within 1 s and none near the 5 s limit.
    // Downloads that held a thread each left every other request unanswered until the
    // clients went away, which fails both.
    let (typical, worst) = (Duration::from_secs(1), Duration::from_secs(3));
    let max = |t: &[Duration]| t.last().copied().unwrap_or_default();
    assert!(
        pct(&health, 95) < typical
            && pct(&api, 95) < typical
            && max(&health) < worst
            && max(&api) < worst,
        "with {total} unread downloads open: /health p95 {:?} max {:?}, \
         other user's API p95 {:?} max {:?}",
        pct(&health, 95),
        max(&health),
        pct(&api, 95),
        max(&api)
    );
    assert!(
        first_health < worst && first_api < worst,
        "after the clients closed: /health {first_health:?}, API {first_api:?}"
    );
    // Every slot is given back: each downloader can download again, once the server has
    // seen its clients go (a reset is noticed at the download's next write, so a slot
    // may still be held for a moment after the close on a busy machine).
    for token in &f.downloaders {
        let status = download_once_free(&f, token, &f.logs_path(), Duration::from_secs(10));
        assert_eq!(status, Some(200), "a download after the clients closed");
    }
    let log = f.server.output();
    assert!(!log.contains("panicked"), "{log}");
}

#[test]
fn unread_downloads_hold_no_thread_and_the_server_recovers_at_once() {
    // 576 downloads: more than tokio's 512 blocking threads, which an unread download
    // used to hold until its client went away.
    unread_downloads(72);
}

/// The probe's load (600 unread downloads from 75 users), for measurements:
/// `cargo test -p server --test it -- --ignored --nocapture hardening::downloads::probe`.
#[test]
#[ignore = "a measurement, heavier than the suite's tests"]
fn probe_600_unread_downloads() {
    unread_downloads(75);
}

#[test]
fn each_user_has_at_most_eight_downloads_in_progress_and_a_closed_one_frees_its_slot() {
    let _heavy = crate::helpers::binary::exclusive();
    room_for(64);
    let f = Fixture::start(2);
    let (me, you) = (&f.downloaders[0], &f.downloaders[1]);
    let soon = || Instant::now() + Duration::from_secs(20);
    let path = |i: usize| {
        if i.is_multiple_of(2) {
            f.zip_path()
        } else {
            f.logs_path()
        }
    };
    let mut held: Vec<TcpStream> = (0..MAX_DOWNLOADS_PER_USER)
        .map(|i| open_download(f.port(), me, &path(i)))
        .collect();
    for s in &mut held {
        assert_eq!(status_of(s, soon()), Some(200));
    }
    for i in 0..2 {
        let (status, v) = http_with(
            f.port(),
            &format!("GET {} HTTP/1.1\r\n", path(i)),
            &[("Authorization", &bearer(me))],
            "",
        )
        .expect("request");
        assert_eq!(status, 429, "{v}");
        assert_eq!(v["code"], "TOO_MANY_REQUESTS", "{v}");
        let message = v["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("Too many downloads in progress")
                && message.contains(&MAX_DOWNLOADS_PER_USER.to_string()),
            "{v}"
        );
    }
    // Another user's downloads are theirs to count.
    let mut yours = open_download(f.port(), you, &path(0));
    assert_eq!(status_of(&mut yours, soon()), Some(200));

    // A client that goes away gives its slot back.
    drop(held.pop());
    let (status, s) = download_once_free_held(&f, me, &path(1), Duration::from_secs(5));
    assert_eq!(status, Some(200), "a download after a client went away");
    held.push(s);
    // Downloads read to their end give theirs back too.
    drop(held.pop());
    std::thread::sleep(Duration::from_millis(500));
    let small = format!(
        "GET /api/v1/runs/{}/logs/download?since=1700000000000&until=1700000000010 HTTP/1.1\r\n",
        f.run
    );
    for _ in 0..(3 * MAX_DOWNLOADS_PER_USER) {
        let (status, _) =
            http_with(f.port(), &small, &[("Authorization", &bearer(me))], "").expect("request");
        assert_eq!(
            status, 200,
            "a download read to its end gives its slot back"
        );
    }
}
