//! The real `runlens` binary: an admin registers an agent, a viewer polls it, and the
//! agent's token appears in no answer and in no line of the server's debug log.

use serde_json::{json, Value};

use super::agent::FakeAgent;
use crate::helpers::binary::Server;

const TOKEN: &str = "bin-agent-token-never-logged-91c2";

/// Runs a blocking admin request on the blocking pool (the fake agent shares the runtime).
async fn admin(
    server: &std::sync::Arc<Server>,
    method: &'static str,
    path: String,
    body: Option<Value>,
) -> (u16, Value) {
    let server = server.clone();
    tokio::task::spawn_blocking(move || server.http(method, &path, body.as_ref()).expect("request"))
        .await
        .expect("join")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_polls_a_registered_agent_and_never_shows_or_logs_its_token() {
    let agent = FakeAgent::start("bin-node", TOKEN).await;
    let dir = tempfile::tempdir().unwrap();
    let server = std::sync::Arc::new(tokio::task::block_in_place(|| {
        Server::start_with(dir.path(), &[], &[("RUNLENS_LOG", "debug")])
    }));
    let mut answers = Vec::new();
    let body = json!({"url": agent.url, "token": TOKEN, "interval_secs": 1,
        "driver": {"status": "available"}, "simulated": true,
        "gpus": [{"index": 0, "name": "Simulated H100"}]});
    let (status, v) = admin(&server, "PUT", "/api/v1/nodes/bin-node".into(), Some(body)).await;
    assert_eq!(status, 200, "{v}");
    answers.push(v.to_string());
    let (status, v) = admin(&server, "GET", "/api/v1/nodes".into(), None).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["nodes"][0]["source"], "agent");
    answers.push(v.to_string());
    let (status, v) = admin(
        &server,
        "GET",
        "/api/v1/nodes/gpus?nodes=bin-node&since=0".into(),
        None,
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["nodes"][0]["state"]["status"], "live", "{v}");
    assert_eq!(
        v["nodes"][0]["snapshot"]["history"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    answers.push(v.to_string());
    assert_eq!(agent.calls(), 1);
    let (status, v) = admin(
        &server,
        "POST",
        "/api/v1/nodes/embed-links".into(),
        Some(json!({"nodes": ["bin-node"]})),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let path = format!("/api/v1{}", v["path"].as_str().unwrap());
    let server2 = server.clone();
    let (status, v) = tokio::task::spawn_blocking(move || server2.get(&path).expect("get"))
        .await
        .unwrap();
    assert_eq!(status, 200, "embed without a session: {v}");
    answers.push(v.to_string());

    for a in &answers {
        assert!(!a.contains(TOKEN), "token in an answer: {a}");
    }
    let log = server.output();
    assert!(log.contains("DEBUG"), "debug logging is on: {log}");
    assert!(!log.contains(TOKEN), "token in the log:\n{log}");
}
