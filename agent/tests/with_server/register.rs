//! `runlens-agent serve --server ...`: the node shows up in `GET /api/v1/nodes` with a
//! heartbeat, the server reaches it at the advertised URL with its token, and a server that
//! is down at start learns of the node once it is up (one log line each way).

use std::time::Duration;

use serde_json::Value;

use crate::helpers::{eventually, free_port, request, Agent, TestServer};

const AGENT_TOKEN: &str = "agent-secret";

fn serve(port: u16, node: &str, server_url: &str, admin_token: &str, heartbeat: &str) -> Agent {
    let listen = format!("127.0.0.1:{port}");
    Agent::start(&[
        "serve",
        "--listen",
        &listen,
        "--node-name",
        node,
        "--token",
        AGENT_TOKEN,
        "--simulate-gpus",
        "2",
        "--interval-secs",
        "1",
        "--server",
        server_url,
        "--server-token",
        admin_token,
        "--heartbeat-secs",
        heartbeat,
    ])
}

/// The node named `name` in `GET /api/v1/nodes`, as the administrator sees it.
fn listed(server: &TestServer, name: &str) -> Option<Value> {
    let (status, list) = server.call("GET", "/api/v1/nodes", None);
    assert_eq!(status, 200, "{list}");
    list["nodes"]
        .as_array()?
        .iter()
        .find(|n| n["name"] == name)
        .cloned()
}

#[test]
fn a_serving_agent_registers_heartbeats_and_is_reachable_by_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path());
    let port = free_port();
    let agent = serve(port, "reg-node", &server.url(), &server.token, "1");
    let node = eventually(Duration::from_secs(30), "the registration", || {
        listed(&server, "reg-node")
    });
    assert_eq!(node["source"], "agent");
    assert_eq!(node["url"], format!("http://127.0.0.1:{port}"));
    assert_eq!(node["interval_secs"], 1);
    assert_eq!(node["simulated"], true);
    assert_eq!(node["driver"]["status"], "available");
    let gpus = node["gpus"].as_array().unwrap();
    assert_eq!(gpus.len(), 2, "{node}");
    assert!(gpus[1]["uuid"].as_str().unwrap().starts_with("GPU-"));
    assert_eq!(gpus[1]["memory_total_bytes"], 80u64 << 30);
    let first = node["last_heartbeat_ms"]
        .as_i64()
        .expect("last_heartbeat_ms");

    // The heartbeat moves last_heartbeat_ms on.
    eventually(Duration::from_secs(10), "a heartbeat", || {
        let now = listed(&server, "reg-node")?["last_heartbeat_ms"].as_i64()?;
        (now > first).then_some(())
    });

    // The server calls the agent at the advertised URL with the agent's token.
    let (status, gpus) = server.call("GET", "/api/v1/nodes/gpus?nodes=reg-node", None);
    assert_eq!(status, 200, "{gpus}");
    let view = &gpus["nodes"][0];
    assert_eq!(view["state"]["status"], "live", "{view}");
    assert_eq!(view["snapshot"]["gpus"].as_array().map(Vec::len), Some(2));

    let stderr = agent.stderr();
    assert_eq!(
        stderr.matches("registered node reg-node with").count(),
        1,
        "{stderr}"
    );
    assert!(!stderr.contains("cannot register"), "{stderr}");
}

#[test]
fn a_server_down_at_start_learns_of_the_node_once_it_is_up() {
    let dir = tempfile::tempdir().unwrap();
    let admin_token = TestServer::prepare(dir.path());
    let server_port = free_port();
    let agent_port = free_port();
    let url = format!("http://127.0.0.1:{server_port}");
    let agent = serve(agent_port, "late-node", &url, &admin_token, "30");

    // No server: the agent samples and serves all the same.
    let (status, snapshot) = eventually(Duration::from_secs(30), "the agent to serve", || {
        request(agent_port, "GET", "/v1/gpus", Some(AGENT_TOKEN), None)
    });
    assert_eq!(status, 200, "{snapshot}");
    assert_eq!(snapshot["gpus"].as_array().map(Vec::len), Some(2));
    // Attempts at about 0, 1 and 3 s: one line only.
    eventually(Duration::from_secs(10), "the failure line", || {
        agent
            .stderr()
            .contains("cannot register with")
            .then_some(())
    });
    std::thread::sleep(Duration::from_millis(3500));
    let stderr = agent.stderr();
    assert_eq!(
        stderr.matches("cannot register with").count(),
        1,
        "one line when registration starts failing, not one per attempt:\n{stderr}"
    );

    let server = TestServer::start_on(dir.path(), server_port, admin_token);
    let node = eventually(Duration::from_secs(30), "the late registration", || {
        listed(&server, "late-node")
    });
    assert_eq!(node["url"], format!("http://127.0.0.1:{agent_port}"));
    assert!(node["last_heartbeat_ms"].as_i64().is_some());
    let stderr = eventually(Duration::from_secs(5), "the recovery line", || {
        let text = agent.stderr();
        text.contains("recovered").then_some(text)
    });
    assert_eq!(
        stderr.matches("cannot register with").count(),
        1,
        "{stderr}"
    );
    assert_eq!(stderr.matches("registration with").count(), 1, "{stderr}");
}
