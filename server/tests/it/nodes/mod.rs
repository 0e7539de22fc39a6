//! GPU nodes: the registry and its validation, who may watch which node, the
//! on-demand poller (fan-out caching, unreachable and slow agents, back-fill), signed embed
//! links, and the real binary end to end. Agents are [`agent::FakeAgent`]s: real HTTP
//! servers that count their calls.

mod agent;
mod binary;
mod embed;
mod limits;
mod polling;
mod registry;
mod visibility;

use axum::http::Method;
use serde_json::{json, Value};

use crate::helpers::{Resp, TestApp};

/// `PUT /api/v1/nodes/{name}` as the administrator for a static node (no driver) with
/// this URL, token and interval; must answer 200.
pub async fn register(app: &TestApp, name: &str, url: &str, token: &str, interval: u64) -> Value {
    let body = json!({"url": url, "token": token, "interval_secs": interval});
    let (status, v) = app
        .call_as(
            &app.admin_token,
            "PUT",
            &format!("/api/v1/nodes/{name}"),
            Some(body),
        )
        .await;
    assert_eq!(status, 200, "register {name}: {v}");
    v
}

/// Lets the user or group (`kind` "user" or "group") `name` watch node `node` (as the
/// administrator).
pub async fn grant_node(app: &TestApp, node: &str, kind: &str, name: &str) {
    let body = json!({"principal": {"kind": kind, "name": name}});
    let (status, v) = app
        .call_as(
            &app.admin_token,
            "PUT",
            &format!("/api/v1/nodes/{node}/access"),
            Some(body),
        )
        .await;
    assert_eq!(status, 204, "{v}");
}

/// `GET /api/v1/nodes/gpus?nodes=..[&since=]` with a bearer token.
pub async fn gpus(app: &TestApp, token: &str, nodes: &str, since: Option<i64>) -> Resp {
    let mut uri = format!("/api/v1/nodes/gpus?nodes={nodes}");
    if let Some(s) = since {
        uri.push_str(&format!("&since={s}"));
    }
    app.get_as(token, &uri).await
}

/// A request without any credential.
pub async fn anonymous(app: &TestApp, method: Method, uri: &str) -> Resp {
    app.call(method, uri, &[], None).await
}

/// The view of `node` in a `NodeGpus` answer.
pub fn view<'a>(body: &'a Value, node: &str) -> &'a Value {
    body["nodes"]
        .as_array()
        .and_then(|a| a.iter().find(|v| v["node"] == node))
        .unwrap_or_else(|| panic!("no view of {node} in {body}"))
}

/// The `at_ms` of a view's history.
pub fn history_at(view: &Value) -> Vec<i64> {
    view["snapshot"]["history"]
        .as_array()
        .map(|h| h.iter().map(|s| s["at_ms"].as_i64().unwrap()).collect())
        .unwrap_or_default()
}
