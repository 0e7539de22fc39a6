//! Two machines over https, as the README's deployment describes them, with a CA made in the
//! test (no verifier is turned off anywhere): `runlens serve --tls-cert --tls-key` (the real
//! binary), an agent holding only its node credential that registers over https and serves
//! its own https that the server polls, `runlens-agent run` shipping a job's lines and
//! system metrics over https, and `runlens logs --follow` reading them over https. A client
//! that does not trust the CA, or that names the server by a name its certificate lacks, is
//! refused with the URL and the cause.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use net::test_ca::TestCa;
use serde_json::Value;

use crate::helpers::{eventually, free_port, node_credential_file, Agent, TestServer};

/// The `runlens` binary of this workspace build (`RUNLENS_BIN`, else beside this test's
/// folder: `cargo test --workspace` builds it).
fn runlens_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("RUNLENS_BIN") {
        return bin.into();
    }
    let exe = std::env::current_exe().expect("test executable");
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .expect("target dir")
        .join("runlens");
    assert!(
        bin.is_file(),
        "{} is missing: build it with `cargo test --workspace --no-run` (or set RUNLENS_BIN)",
        bin.display()
    );
    bin
}

/// `runlens serve` over https; killed on drop.
struct TlsServer {
    child: Child,
    base: String,
    token: String,
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An https client trusting `ca` (as every runlens program does with `--ca-cert`).
fn client(ca: &Path) -> reqwest::Client {
    net::client_builder(Some(ca))
        .expect("client")
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// `GET base+path` as the administrator over https; (status, JSON).
fn get(server: &TlsServer, ca: &Path, path: &str) -> Option<(u16, Value)> {
    runtime().block_on(async {
        let resp = client(ca)
            .get(format!("{}{path}", server.base))
            .bearer_auth(&server.token)
            .send()
            .await
            .ok()?;
        let status = resp.status().as_u16();
        Some((status, resp.json().await.unwrap_or(Value::Null)))
    })
}

#[test]
fn a_two_machine_deployment_works_over_https_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let ca = TestCa::new(dir.path(), "runlens-test-ca");
    let ca_file = ca.cert_file();
    let server_tls = ca.server("server", &["localhost"]);
    let agent_tls = ca.server("agent", &["localhost"]);

    // The server machine: an administrator, a credential for the node, https.
    let token = TestServer::prepare(&data);
    let credential = node_credential_file(&data, "tls-node");
    let port = free_port();
    let child = Command::new(runlens_bin())
        .args([
            "serve",
            "--addr",
            &format!("127.0.0.1:{port}"),
            "--data-dir",
        ])
        .arg(&data)
        .arg("--tls-cert")
        .arg(&server_tls.cert)
        .arg("--tls-key")
        .arg(&server_tls.key)
        .arg("--ca-cert")
        .arg(&ca_file)
        .env("RUNLENS_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn runlens serve");
    let server = TlsServer {
        child,
        base: format!("https://localhost:{port}"),
        token,
    };
    eventually(Duration::from_secs(30), "the https server", || {
        get(&server, &ca_file, "/health").filter(|(s, _)| *s == 200)
    });

    // The GPU node: registers with its node credential over https, serves https itself,
    // and the server polls it over https.
    let agent_port = free_port();
    let listen = format!("127.0.0.1:{agent_port}");
    let advertise = format!("https://localhost:{agent_port}");
    let _agent = Agent::start(&[
        "serve",
        "--listen",
        &listen,
        "--node-name",
        "tls-node",
        "--token",
        "agent-secret",
        "--simulate-gpus",
        "2",
        "--interval-secs",
        "1",
        "--server",
        &server.base,
        "--credential-file",
        credential.to_str().unwrap(),
        "--ca-cert",
        ca_file.to_str().unwrap(),
        "--tls-cert",
        agent_tls.cert.to_str().unwrap(),
        "--tls-key",
        agent_tls.key.to_str().unwrap(),
        "--advertise-url",
        &advertise,
        "--heartbeat-secs",
        "1",
    ]);
    let view = eventually(
        Duration::from_secs(30),
        "the node polled over https",
        || {
            let (_, v) = get(&server, &ca_file, "/api/v1/nodes/gpus?nodes=tls-node")?;
            let view = v["nodes"][0].clone();
            (view["state"]["status"] == "live").then_some(view)
        },
    );
    assert_eq!(
        view["snapshot"]["gpus"].as_array().map(Vec::len),
        Some(2),
        "{view}"
    );
    let (_, nodes) = get(&server, &ca_file, "/api/v1/nodes").unwrap();
    assert_eq!(nodes["nodes"][0]["source"], "agent", "{nodes}");
    assert_eq!(nodes["nodes"][0]["url"], advertise.as_str(), "{nodes}");

    // A job over https: its lines and system metrics reach the server.
    let mut job = Agent::start(&[
        "run",
        "--server",
        &server.base,
        "--token",
        &server.token,
        "--ca-cert",
        ca_file.to_str().unwrap(),
        "--experiment",
        "tls-exp",
        "--node-name",
        "tls-node",
        "--interval-secs",
        "1",
        "--simulate-gpus",
        "1",
        "--",
        "sh",
        "-c",
        "for i in 1 2 3 4 5; do echo tls-line-$i; sleep 1; done",
    ]);
    let job_run = eventually(Duration::from_secs(30), "the job run", || {
        let (_, v) = get(&server, &ca_file, "/api/v1/job-runs")?;
        v["job_runs"][0]["job_run_id"].as_i64()
    });
    // `runlens logs --follow` over https, from while the job runs until it ends.
    let follow = Command::new(runlens_bin())
        .args([
            "logs",
            &job_run.to_string(),
            "--follow",
            "--server",
            &server.base,
        ])
        .arg("--ca-cert")
        .arg(&ca_file)
        .env("RUNLENS_TOKEN", &server.token)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn runlens logs");
    let status = job.wait(Duration::from_secs(60));
    assert!(status.success(), "{}", job.stderr());
    let out = follow.wait_with_output().expect("runlens logs");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{printed}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for i in 1..=5 {
        assert!(printed.contains(&format!("tls-line-{i}")), "{printed}");
    }
    let (_, exp) = get(
        &server,
        &ca_file,
        "/api/2.0/mlflow/experiments/get-by-name?experiment_name=tls-exp",
    )
    .unwrap();
    let exp_id = exp["experiment"]["experiment_id"]
        .as_str()
        .expect("experiment id");
    let runs = runtime().block_on(async {
        client(&ca_file)
            .post(format!("{}/api/2.0/mlflow/runs/search", server.base))
            .bearer_auth(&server.token)
            .json(&serde_json::json!({"experiment_ids": [exp_id]}))
            .send()
            .await
            .expect("runs/search")
            .json::<Value>()
            .await
            .expect("JSON")
    });
    let run = &runs["runs"][0];
    let keys: Vec<&str> = run["data"]["metrics"]
        .as_array()
        .map(|m| m.iter().filter_map(|m| m["key"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        keys.iter().any(|k| k.starts_with("system/")),
        "system metrics logged over https: {keys:?} in {runs}"
    );

    // Without the CA, or by a name the certificate lacks: a clear refusal, never http.
    let untrusted = Command::new(runlens_bin())
        .args(["logs", &job_run.to_string(), "--server", &server.base])
        .env("RUNLENS_TOKEN", &server.token)
        .env_remove("RUNLENS_CA_CERT")
        .output()
        .expect("runlens logs");
    let err = String::from_utf8_lossy(&untrusted.stderr);
    assert!(!untrusted.status.success());
    assert!(err.contains(&server.base), "names the URL: {err}");
    assert!(err.contains("certificate"), "names the cause: {err}");
    let by_ip = format!("https://127.0.0.1:{port}");
    let wrong_name = Command::new(runlens_bin())
        .args(["logs", &job_run.to_string(), "--server", &by_ip])
        .arg("--ca-cert")
        .arg(&ca_file)
        .env("RUNLENS_TOKEN", &server.token)
        .output()
        .expect("runlens logs");
    let err = String::from_utf8_lossy(&wrong_name.stderr);
    assert!(!wrong_name.status.success());
    assert!(err.contains(&by_ip) && err.contains("certificate"), "{err}");
}
