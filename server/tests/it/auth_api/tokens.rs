//! `/api/v1/tokens`: create (secret shown once), list (never the secret), revoke; other
//! users' tokens only for admins.

use axum::http::{Method, StatusCode};
use serde_json::json;

use crate::helpers::TestApp;

#[tokio::test]
async fn create_list_revoke_own_tokens() {
    let app = TestApp::new();
    app.user("alice", false);
    let auth = format!("Bearer {}", app.token("alice"));
    let h = [("authorization", auth.as_str())];
    let r = app
        .call(
            Method::POST,
            "/api/v1/tokens",
            &h,
            Some(json!({ "name": "laptop" })),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let secret = r.body["token"].as_str().unwrap().to_string();
    assert!(secret.starts_with("rl_") && secret.len() == 43);
    assert_eq!(r.body["info"]["name"], "laptop");
    assert!(secret.starts_with(r.body["info"]["prefix"].as_str().unwrap()));
    let id = r.body["info"]["id"].as_i64().unwrap();

    let list = app.call(Method::GET, "/api/v1/tokens", &h, None).await;
    assert_eq!(list.status, StatusCode::OK);
    assert_eq!(list.body.as_array().unwrap().len(), 2);
    assert!(!list.text.contains(&secret), "list never shows secrets");
    assert_eq!(
        app.get_as(&secret, "/api/v1/session").await.body["username"],
        "alice"
    );

    let r = app
        .call(Method::DELETE, &format!("/api/v1/tokens/{id}"), &h, None)
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = app
        .call(Method::DELETE, &format!("/api/v1/tokens/{id}"), &h, None)
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = app
        .call(Method::DELETE, "/api/v1/tokens/abc", &h, None)
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = app
        .call(
            Method::POST,
            "/api/v1/tokens",
            &h,
            Some(json!({ "name": "  " })),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn other_users_tokens_are_admin_only() {
    let app = TestApp::new();
    app.user("alice", false);
    app.user("bob", false);
    let alice = app.token("alice");
    let bob = app.token("bob");
    let r = app.get_as(&bob, "/api/v1/tokens?user=alice").await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(r.body["code"], "PERMISSION_DENIED");
    let alice_id: i64 = app
        .store
        .blocking(|c| {
            Ok(c.query_row(
                "SELECT token_id FROM api_tokens WHERE prefix = ?1",
                [&alice[..9]],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    let bob_auth = format!("Bearer {bob}");
    let r = app
        .call(
            Method::DELETE,
            &format!("/api/v1/tokens/{alice_id}"),
            &[("authorization", &bob_auth)],
            None,
        )
        .await;
    assert_eq!(
        r.status,
        StatusCode::NOT_FOUND,
        "bob cannot revoke alice's token"
    );
    assert_eq!(
        app.get_as(&alice, "/api/v1/session").await.status,
        StatusCode::OK
    );

    let admin = app.admin_token.clone();
    let r = app.get_as(&admin, "/api/v1/tokens?user=alice").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body.as_array().unwrap().len(), 1);
    let admin_auth = format!("Bearer {admin}");
    let uri = format!("/api/v1/tokens/{alice_id}?user=alice");
    let r = app
        .call(
            Method::DELETE,
            &uri,
            &[("authorization", &admin_auth)],
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(
        app.get_as(&alice, "/api/v1/session").await.status,
        StatusCode::UNAUTHORIZED
    );
}
