//! `runlens-agent serve --server ... --credential-file ...`: the node shows up in `GET
//! /api/v1/nodes` with a heartbeat, the server reaches it at the advertised URL with its
//! token, a server that is down at start learns of the node once it is up (one log line each
//! way), a credential registers its own node only, and a rotated one is used without a
//! restart.

use std::time::Duration;

use serde_json::Value;

use crate::helpers::{eventually, free_port, node_credential_file, request, Agent, TestServer};

const AGENT_TOKEN: &str = "agent-secret";

fn serve(
    port: u16,
    node: &str,
    server_url: &str,
    credential: &std::path::Path,
    heartbeat: &str,
) -> Agent {
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
        "--credential-file",
        credential.to_str().unwrap(),
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
    let credential = node_credential_file(dir.path(), "reg-node");
    let agent = serve(port, "reg-node", &server.url(), &credential, "1");
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
    let credential = node_credential_file(dir.path(), "late-node");
    let server_port = free_port();
    let agent_port = free_port();
    let url = format!("http://127.0.0.1:{server_port}");
    let agent = serve(agent_port, "late-node", &url, &credential, "30");

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

#[test]
fn a_credential_registers_its_own_node_only_and_rotates_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path());
    // A credential of another node: refused, and the agent says why.
    let other = node_credential_file(dir.path(), "other-node");
    let port = free_port();
    let wrong = serve(port, "mine", &server.url(), &other, "1");
    let stderr = eventually(Duration::from_secs(30), "the refusal", || {
        let text = wrong.stderr();
        text.contains("cannot register").then_some(text)
    });
    assert!(stderr.contains("403"), "{stderr}");
    assert!(
        stderr.contains("node credential is for node 'other-node'"),
        "{stderr}"
    );
    assert!(listed(&server, "mine").is_none());
    drop(wrong);

    // Its own: registered. Then a new credential replaces the file's and the old one is
    // revoked: the heartbeats go on with the new one.
    let credential = node_credential_file(dir.path(), "rot-node");
    let port = free_port();
    let agent = serve(port, "rot-node", &server.url(), &credential, "1");
    eventually(Duration::from_secs(30), "the registration", || {
        listed(&server, "rot-node")
    });
    let (_, list) = server.call("GET", "/api/v1/node-credentials?node=rot-node", None);
    let old_id = list["credentials"][0]["id"]
        .as_i64()
        .expect("credential id");
    let (status, made) = server.call(
        "POST",
        "/api/v1/node-credentials",
        Some(&serde_json::json!({"node": "rot-node"})),
    );
    assert_eq!(status, 201, "{made}");
    std::fs::write(&credential, made["credential"].as_str().unwrap()).unwrap();
    let (status, _) = server.call(
        "DELETE",
        &format!("/api/v1/node-credentials/{old_id}"),
        None,
    );
    assert_eq!(status, 204);
    let before = listed(&server, "rot-node").unwrap()["last_heartbeat_ms"]
        .as_i64()
        .unwrap();
    eventually(
        Duration::from_secs(15),
        "a heartbeat with the new credential",
        || {
            let now = listed(&server, "rot-node")?["last_heartbeat_ms"].as_i64()?;
            (now > before + 1000).then_some(())
        },
    );
    let (_, list) = server.call("GET", "/api/v1/node-credentials?node=rot-node", None);
    assert!(
        list["credentials"][0]["last_used"].as_i64().is_some(),
        "{list}"
    );
    drop(agent);
}
