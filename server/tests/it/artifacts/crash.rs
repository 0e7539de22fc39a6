//! The real binary: a client that goes away mid-upload, and `kill -9` during a large
//! upload, leave no file (listed or on disk) behind.

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{json, Value};

use super::files_under;
use crate::helpers::binary::{self, Server, ADMIN_PASSWORD};

/// Starts a large PUT of `total` bytes and sends `sent` of them; returns the open socket.
fn partial_upload(port: u16, path: &str, total: usize, sent: usize) -> TcpStream {
    let basic = server::auth::basic_header("admin", ADMIN_PASSWORD);
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let head = format!(
        "PUT /api/2.0/mlflow-artifacts/artifacts/{path} HTTP/1.1\r\nHost: x\r\n\
         Authorization: {basic}\r\nContent-Length: {total}\r\n\r\n"
    );
    s.write_all(head.as_bytes()).expect("head");
    let chunk = vec![7u8; 1024 * 1024];
    let mut left = sent;
    while left > 0 {
        let n = left.min(chunk.len());
        s.write_all(&chunk[..n]).expect("body");
        left -= n;
    }
    s.flush().expect("flush");
    s
}

fn list(server: &Server, path: &str) -> Value {
    server.ok(
        "GET",
        &format!("/api/2.0/mlflow-artifacts/artifacts?path={path}"),
        None,
    )
}

#[test]
fn a_dropped_upload_and_a_killed_server_leave_no_partial_file() {
    let _heavy = binary::exclusive();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server = Server::start(dir.path());
    let exp = server.ok(
        "POST",
        "/api/2.0/mlflow/experiments/create",
        Some(&json!({"name": "crash"})),
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
    let folder = format!("{exp}/{run}/artifacts");

    // A client that disconnects half-way.
    let s = partial_upload(
        server.port,
        &format!("{folder}/dropped.bin"),
        64 << 20,
        8 << 20,
    );
    drop(s);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(list(&server, &folder), json!({}));

    // kill -9 while 200 MB are on their way.
    let s = partial_upload(
        server.port,
        &format!("{folder}/killed.bin"),
        200 << 20,
        48 << 20,
    );
    std::thread::sleep(Duration::from_millis(300));
    server.kill9();
    drop(s);
    let artifacts = dir.path().join("artifacts");
    assert!(
        !files_under(&artifacts)
            .iter()
            .any(|f| f.ends_with("killed.bin")),
        "{:?}",
        files_under(&artifacts)
    );
    let server = Server::start(dir.path());
    assert_eq!(list(&server, &folder), json!({}));
    // The temp files of the killed upload are gone after the restart.
    assert_eq!(files_under(&artifacts), Vec::<String>::new());
    // And an upload works as before.
    let (status, _) = binary::http_with(
        server.port,
        &format!("PUT /api/2.0/mlflow-artifacts/artifacts/{folder}/ok.txt HTTP/1.1\r\n"),
        &[(
            "Authorization",
            &server::auth::basic_header("admin", ADMIN_PASSWORD),
        )],
        "fine",
    )
    .expect("put");
    assert_eq!(status, 200);
    assert_eq!(
        list(&server, &folder),
        json!({"files": [{"path": "ok.txt", "is_dir": false, "file_size": 4}]})
    );
}
