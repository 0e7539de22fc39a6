//! Registering, heartbeating and removing nodes: admins only, every field validated, and
//! the agent's token never in any answer.

use axum::http::Method;
use serde_json::json;

use super::{anonymous, gpus, register};
use crate::helpers::TestApp;

const TOKEN: &str = "agent-token-do-not-show-7f3a";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registration_is_validated_admin_only_and_never_returns_the_token() {
    let app = TestApp::new();
    let alice = app.user_token("alice", false);
    let mut answers = Vec::new();
    let put = |name: &str, body: serde_json::Value| {
        let uri = format!("/api/v1/nodes/{name}");
        let app = &app;
        async move { app.call_as(&app.admin_token, "PUT", &uri, Some(body)).await }
    };
    let good = json!({"url": "http://10.0.0.7:9400/", "token": TOKEN, "interval_secs": 5});

    // Bad input: 400 INVALID_PARAMETER naming what is wrong.
    let long = "n".repeat(129);
    let bad_names = ["bad%20name", "caf%C3%A9", long.as_str()];
    for name in bad_names {
        let (status, v) = put(name, good.clone()).await;
        assert_eq!(status, 400, "{name}: {v}");
        assert_eq!(v["code"], "INVALID_PARAMETER", "{v}");
        assert!(v["message"].as_str().unwrap().contains("node name"), "{v}");
    }
    for url in [
        "ftp://x",
        "http://",
        "http://a b",
        "10.0.0.7:9400",
        "http://h:0",
        "http://u@h",
    ] {
        let (status, v) = put("n1", json!({"url": url, "token": TOKEN})).await;
        assert_eq!(status, 400, "{url}: {v}");
        assert!(v["message"].as_str().unwrap().contains("agent URL"), "{v}");
    }
    for body in [
        json!({"url": "http://h", "token": ""}),
        json!({"url": "http://h", "token": "with space"}),
        json!({"url": "http://h", "token": "t".repeat(513)}),
        json!({"url": "http://h", "token": "t", "interval_secs": 0}),
        json!({"url": "http://h"}),
        json!("not an object"),
    ] {
        let (status, v) = put("n1", body.clone()).await;
        assert_eq!(status, 400, "{body}: {v}");
        answers.push(v.to_string());
    }

    // A body over the app API's 64 KiB limit: refused before parsing, as an ApiError.
    let (status, v) = put(
        "n1",
        json!({"url": "http://h", "token": "t".repeat(70_000)}),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["code"], "BAD_REQUEST", "{v}");
    assert!(v["message"].as_str().unwrap().contains("too large"), "{v}");

    // Non-admins and anonymous callers are refused, before anything is validated.
    let (status, v) = app
        .call_as(&alice, "PUT", "/api/v1/nodes/n1", Some(good.clone()))
        .await;
    assert_eq!(
        (status, v["code"].as_str()),
        (403, Some("PERMISSION_DENIED")),
        "{v}"
    );
    let (status, _) = app
        .call_as(&alice, "DELETE", "/api/v1/nodes/n1", None)
        .await;
    assert_eq!(status, 403);
    let r = anonymous(&app, Method::PUT, "/api/v1/nodes/n1").await;
    assert_eq!(r.status, 401);

    // A static node (no driver): no heartbeat; then the agent itself registers.
    let (status, v) = put("n1", good.clone()).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["source"], "static");
    assert_eq!(v["url"], "http://10.0.0.7:9400");
    assert_eq!(v["interval_secs"], 5);
    assert!(v.get("last_heartbeat_ms").is_none(), "{v}");
    answers.push(v.to_string());
    let agent = json!({"url": "http://10.0.0.7:9400", "token": TOKEN, "interval_secs": 1,
        "driver": {"status": "missing", "reason": "NVML not found: install the NVIDIA driver"},
        "simulated": false, "gpus": []});
    let (status, v) = put("n1", agent).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["source"], "agent");
    assert!(v["last_heartbeat_ms"].as_i64().unwrap() > 0, "{v}");
    assert_eq!(v["driver"]["status"], "missing");
    answers.push(v.to_string());

    // Lists, as admin (with URL) and as a user who may watch nothing.
    let r = app.get_as(&app.admin_token, "/api/v1/nodes").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["nodes"][0]["name"], "n1");
    assert_eq!(r.body["nodes"][0]["url"], "http://10.0.0.7:9400");
    answers.push(r.text);
    let r = app.get_as(&alice, "/api/v1/nodes").await;
    assert_eq!(r.body, json!({"nodes": []}));

    // The poller's answer for an unreachable agent carries no URL or token either.
    let r = gpus(&app, &app.admin_token, "n1", Some(0)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    answers.push(r.text);

    for text in &answers {
        assert!(!text.contains(TOKEN), "the agent token leaked: {text}");
    }

    // Removal: 204, then 404; the list is empty.
    let (status, _) = app
        .call_as(&app.admin_token, "DELETE", "/api/v1/nodes/n1", None)
        .await;
    assert_eq!(status, 204);
    let (status, v) = app
        .call_as(&app.admin_token, "DELETE", "/api/v1/nodes/n1", None)
        .await;
    assert_eq!(status, 404, "{v}");
    let r = app.get_as(&app.admin_token, "/api/v1/nodes").await;
    assert_eq!(r.body, json!({"nodes": []}));
    // The token is stored (the server must send it), but nowhere else than its row.
    register(&app, "n2", "http://h", TOKEN, 10).await;
    let stored = app.text("SELECT token FROM nodes WHERE name = ?1", "n2");
    assert_eq!(stored, TOKEN);
}
