//! The S3 backend (`--artifacts-url s3://bucket/prefix`) against a local S3 API: moto's
//! `moto_server` (PyPI `moto[server]`), found as `$RUNLENS_MOTO_SERVER`, on `PATH`, or in
//! the repository's `.venv`. Without it the test says so and passes without checking.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::helpers::binary::{self, free_port, Server, ADMIN_PASSWORD};

/// `moto_server`, if installed.
fn moto_server() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("RUNLENS_MOTO_SERVER") {
        return Some(PathBuf::from(p));
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("moto_server"))
            .find(|p| p.is_file())
    });
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/moto_server");
    on_path.or_else(|| venv.is_file().then_some(venv))
}

/// A running `moto_server`, killed on drop.
struct Moto {
    child: Child,
    url: String,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Moto {
    /// Starts it; `None` if it exits at once (e.g. a shim without the package behind it).
    fn start(exe: &PathBuf) -> Option<Moto> {
        let port = free_port();
        let child = Command::new(exe)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn moto_server");
        let mut moto = Moto {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if moto.child.try_wait().ok().flatten().is_some() {
                return None;
            }
            assert!(Instant::now() < deadline, "moto_server did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(moto)
    }
}

/// A proxy request as the admin; (status, raw answer body).
fn proxy(server: &Server, method: &str, path: &str, body: &str) -> (u16, String) {
    let basic = server::auth::basic_header("admin", ADMIN_PASSWORD);
    let mut head = format!(
        "{method} /api/2.0/mlflow-artifacts/artifacts{path} HTTP/1.1\r\nHost: x\r\n\
         Connection: close\r\nAuthorization: {basic}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    head.push_str(body);
    let (status, _, payload) = binary::raw_request(server.port, head.as_bytes()).expect("request");
    (status, payload)
}

#[test]
fn the_s3_backend_stores_lists_serves_and_deletes() {
    // Outside CI a machine without moto skips this test, saying so; under CI (`make test`
    // installs moto) a missing or broken moto fails it, so it cannot pass unseen.
    let skip = || {
        let why = "moto_server not found or not starting (pip install 'moto[server]', or set \
                   RUNLENS_MOTO_SERVER)";
        assert!(std::env::var_os("CI").is_none(), "{why}");
        eprintln!("SKIPPED the_s3_backend_stores_lists_serves_and_deletes: {why}");
    };
    let Some(exe) = moto_server() else {
        return skip();
    };
    let _heavy = binary::exclusive();
    let Some(moto) = Moto::start(&exe) else {
        return skip();
    };
    // moto takes any credentials; buckets are made with a plain PUT.
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let made = rt.block_on(async {
        reqwest::Client::new()
            .put(format!("{}/runlens-test", moto.url))
            .send()
            .await
            .map(|r| r.status().as_u16())
    });
    assert_eq!(made.expect("create bucket"), 200);

    let dir = tempfile::tempdir().expect("tempdir");
    let env = [
        ("RUNLENS_LOG", "warn"),
        ("AWS_ENDPOINT", moto.url.as_str()),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "us-east-1"),
    ];
    let args = ["--artifacts-url", "s3://runlens-test/some/prefix"];
    let server = Server::start_with(dir.path(), &args, &env);
    let exp = server.ok(
        "POST",
        "/api/2.0/mlflow/experiments/create",
        Some(&json!({"name": "s3"})),
    );
    let exp = exp["experiment_id"].as_str().expect("id").to_owned();
    let run = server.ok(
        "POST",
        "/api/2.0/mlflow/runs/create",
        Some(&json!({"experiment_id": exp})),
    );
    let run = run["run"]["info"]["run_id"]
        .as_str()
        .expect("run")
        .to_owned();
    let folder = format!("/{exp}/{run}/artifacts");

    // 12 MB: more than one part of the multipart upload.
    let big = "x".repeat(12 << 20);
    assert_eq!(
        proxy(&server, "PUT", &format!("{folder}/d/big.txt"), &big).0,
        200
    );
    assert_eq!(
        proxy(&server, "PUT", &format!("{folder}/a.txt"), "hello").0,
        200
    );
    let (status, text) = proxy(&server, "GET", &format!("{folder}/a.txt"), "");
    assert_eq!((status, text.as_str()), (200, "hello"));
    let (status, text) = proxy(&server, "GET", &format!("{folder}/d/big.txt"), "");
    assert_eq!(status, 200);
    assert!(text.len() == big.len() && text == big);
    let listed = server.ok(
        "GET",
        &format!("/api/2.0/mlflow-artifacts/artifacts?path={exp}/{run}/artifacts"),
        None,
    );
    assert_eq!(
        listed,
        json!({"files": [{"path": "d", "is_dir": true},
                         {"path": "a.txt", "is_dir": false, "file_size": 5}]})
    );
    // Nothing went to the local folder.
    assert!(super::files_under(&dir.path().join("artifacts")).is_empty());

    assert_eq!(proxy(&server, "DELETE", &format!("{folder}/d"), "").0, 200);
    let listed = server.ok(
        "GET",
        &format!("/api/2.0/mlflow-artifacts/artifacts?path={exp}/{run}/artifacts/d"),
        None,
    );
    assert_eq!(listed, json!({}));
    let (status, _) = proxy(&server, "GET", &format!("{folder}/d/big.txt"), "");
    assert_eq!(status, 404);
}
