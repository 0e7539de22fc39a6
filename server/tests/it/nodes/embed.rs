//! Signed embed links: a valid link shows its nodes with no session at all; an expired,
//! tampered or re-scoped link is a 403; only nodes the caller may watch can be signed.

use axum::http::Method;
use serde_json::json;
use server::nodes::embed;

use super::agent::FakeAgent;
use super::{anonymous, grant_node, register, view};
use crate::helpers::TestApp;

/// The API URI of an embed link's page path (`/embed/gpus?...` -> `/api/v1/embed/gpus?...`).
fn api(path: &str) -> String {
    format!("/api/v1{path}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embed_links_work_without_a_session_and_refuse_expired_tampered_or_rescoped_links() {
    let app = TestApp::new();
    let alice = app.user_token("alice", false);
    let bob = app.user_token("bob", false);
    let a = FakeAgent::start("emb-a", "tok-emb").await;
    let b = FakeAgent::start("emb-b", "tok-emb").await;
    register(&app, "emb-a", &a.url, "tok-emb", 10).await;
    register(&app, "emb-b", &b.url, "tok-emb", 10).await;
    grant_node(&app, "emb-a", "user", "alice").await;

    // Alice signs a link for her node; default lifetime 7 days.
    let body = json!({"nodes": ["emb-a"]});
    let (status, link) = app
        .call_as(&alice, "POST", "/api/v1/nodes/embed-links", Some(body))
        .await;
    assert_eq!(status, 200, "{link}");
    let path = link["path"].as_str().unwrap().to_string();
    assert!(path.starts_with("/embed/gpus?nodes=emb-a&exp="), "{path}");
    // No --embed-origin: the link says no page may frame it.
    assert_eq!(link["frame_origin"], serde_json::Value::Null, "{link}");
    let week = 7 * 24 * 3600 * 1000;
    let left = link["expires_at_ms"].as_i64().unwrap() - server::util::now_ms();
    assert!((week - 10_000..=week).contains(&left), "{left}");

    // No cookie, no token: it works, read-only, for exactly that node.
    let r = anonymous(&app, Method::GET, &api(&path)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(view(&r.body, "emb-a")["state"]["status"], "live");
    assert_eq!(r.body["nodes"].as_array().unwrap().len(), 1);
    assert!(
        !r.text.contains("tok-emb") && !r.text.contains(&a.url),
        "{}",
        r.text
    );
    assert_eq!(r.header("cache-control"), "no-store");
    let r = anonymous(&app, Method::GET, &format!("{}&since=0", api(&path))).await;
    assert_eq!(r.status, 200, "with since: {}", r.text);

    let not_valid = |r: &crate::helpers::Resp, what: &str| {
        assert_eq!(r.status, 403, "{what}: {}", r.text);
        assert_eq!(r.body["code"], "PERMISSION_DENIED", "{what}");
        assert_eq!(r.body["message"], "This embed link is not valid", "{what}");
    };
    // Tampered signature (one hex digit changed).
    let mut tampered = path.clone();
    let last = tampered.pop().unwrap();
    tampered.push(if last == '0' { '1' } else { '0' });
    not_valid(
        &anonymous(&app, Method::GET, &api(&tampered)).await,
        "tampered",
    );
    // Other nodes with the same signature.
    let rescoped = path.replace("nodes=emb-a", "nodes=emb-a,emb-b");
    not_valid(
        &anonymous(&app, Method::GET, &api(&rescoped)).await,
        "more nodes",
    );
    let swapped = path.replace("nodes=emb-a", "nodes=emb-b");
    not_valid(
        &anonymous(&app, Method::GET, &api(&swapped)).await,
        "other node",
    );
    // A later expiry with the same signature.
    let exp_s = link["expires_at_ms"].as_i64().unwrap() / 1000;
    let extended = path.replace(&format!("exp={exp_s}"), &format!("exp={}", exp_s + 86_400));
    not_valid(
        &anonymous(&app, Method::GET, &api(&extended)).await,
        "extended",
    );
    not_valid(
        &anonymous(&app, Method::GET, "/api/v1/embed/gpus?nodes=emb-a").await,
        "unsigned",
    );

    // Expired: correctly signed with the server's secret, but in the past.
    let secret = app
        .store
        .blocking(embed::load_or_create_secret)
        .expect("secret");
    let past = 1_700_000_000; // 2023-11-14T22:13:20Z
    let sig = embed::sign(&secret, "emb-a", past);
    let expired = format!("/api/v1/embed/gpus?nodes=emb-a&exp={past}&sig={sig}");
    let r = anonymous(&app, Method::GET, &expired).await;
    assert_eq!(r.status, 403, "{}", r.text);
    assert_eq!(
        r.body["message"],
        "This embed link expired on 2023-11-14T22:13:20Z"
    );
    // The same, unexpired, works: the 403 above is the expiry alone.
    let future = server::util::now_ms() / 1000 + 60;
    let sig = embed::sign(&secret, "emb-a", future);
    let fresh = format!("/api/v1/embed/gpus?nodes=emb-a&exp={future}&sig={sig}");
    assert_eq!(anonymous(&app, Method::GET, &fresh).await.status, 200);

    // Only watchable nodes can be signed; bad lifetimes are 400s.
    for (token, nodes) in [(&alice, json!(["emb-b"])), (&bob, json!(["emb-a"]))] {
        let (status, v) = app
            .call_as(
                token,
                "POST",
                "/api/v1/nodes/embed-links",
                Some(json!({"nodes": nodes})),
            )
            .await;
        assert_eq!(status, 404, "{v}");
    }
    for ttl in [0, 30 * 24 * 3600 + 1] {
        let body = json!({"nodes": ["emb-a"], "ttl_secs": ttl});
        let (status, v) = app
            .call_as(&alice, "POST", "/api/v1/nodes/embed-links", Some(body))
            .await;
        assert_eq!(status, 400, "ttl {ttl}: {v}");
    }
    let r = anonymous(&app, Method::POST, "/api/v1/nodes/embed-links").await;
    assert_eq!(r.status, 401, "signing needs a session");

    // A signed node removed later shows as unknown, not as an error.
    let (status, _) = app
        .call_as(&app.admin_token, "DELETE", "/api/v1/nodes/emb-a", None)
        .await;
    assert_eq!(status, 204);
    let r = anonymous(&app, Method::GET, &api(&path)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(view(&r.body, "emb-a")["state"]["status"], "unknown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embed_link_names_the_origin_that_may_frame_it() {
    let statics = server::StaticConfig {
        dist_dir: None,
        embed_origin: Some("http://localhost:8888".into()),
    };
    let app = TestApp::with(server::auth::AuthSettings::default(), statics);
    let alice = app.user_token("alice", false);
    let a = FakeAgent::start("emb-o", "tok-emb").await;
    register(&app, "emb-o", &a.url, "tok-emb", 10).await;
    grant_node(&app, "emb-o", "user", "alice").await;
    let (status, link) = app
        .call_as(
            &alice,
            "POST",
            "/api/v1/nodes/embed-links",
            Some(json!({"nodes": ["emb-o"]})),
        )
        .await;
    assert_eq!(status, 200, "{link}");
    assert_eq!(link["frame_origin"], "http://localhost:8888", "{link}");
}
