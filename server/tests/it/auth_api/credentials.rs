//! Bearer and Basic credentials, 401 bodies in each dialect, revoked tokens and disabled
//! users.

use axum::http::{Method, StatusCode};
use server::auth::{basic_header, users};

use crate::helpers::{TestApp, PASSWORD};

const SEARCH: &str = "/api/2.0/mlflow/experiments/search?max_results=10";

#[tokio::test]
async fn bearer_basic_password_and_basic_token_all_work() {
    let app = TestApp::new();
    app.user("alice", false);
    let token = app.token("alice");
    let bearer = format!("Bearer {token}");
    let basic_pw = basic_header("alice", PASSWORD);
    let basic_tok = basic_header("alice", &token);
    for auth in [&bearer, &basic_pw, &basic_tok, &basic_pw] {
        let r = app
            .call(Method::GET, SEARCH, &[("authorization", auth)], None)
            .await;
        assert_eq!(r.status, StatusCode::OK, "{auth}: {}", r.text);
    }
    // A token only counts as the password of its own user.
    app.user("bob", false);
    let r = app
        .call(
            Method::GET,
            SEARCH,
            &[("authorization", &basic_header("bob", &token))],
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn unauthenticated_bodies_follow_the_dialect() {
    let app = TestApp::new();
    let r = app.call(Method::GET, SEARCH, &[], None).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.body["error_code"], "UNAUTHENTICATED");
    assert!(r.body["message"]
        .as_str()
        .unwrap()
        .contains("MLFLOW_TRACKING_TOKEN"));
    assert!(r.header("www-authenticate").starts_with("Basic"));

    let r = app
        .call(
            Method::GET,
            "/ajax-api/2.0/mlflow/experiments/search",
            &[],
            None,
        )
        .await;
    assert_eq!(r.body["error_code"], "UNAUTHENTICATED");
    assert!(
        r.header("www-authenticate").is_empty(),
        "no browser login box"
    );

    let r = app
        .call(
            Method::GET,
            "/api/3.0/mlflow/users/permissions/get",
            &[],
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.body["error_code"], "UNAUTHENTICATED");

    for uri in ["/api/v1/experiments", "/api/v1/tokens", "/api/v1/nope"] {
        let r = app.call(Method::GET, uri, &[], None).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{uri}");
        assert_eq!(r.body["code"], "UNAUTHENTICATED", "{uri}");
    }
    let bad = [("authorization", "Bearer rl_notavalidtoken")];
    let r = app.call(Method::GET, SEARCH, &bad, None).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.body["message"], "Invalid or revoked API token.");
    let r = app
        .call(Method::GET, SEARCH, &[("authorization", "Digest x")], None)
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn public_routes_answer_without_credentials() {
    let app = TestApp::new();
    assert_eq!(
        app.call(Method::GET, "/health", &[], None).await.status,
        StatusCode::OK
    );
    assert_eq!(
        app.call(Method::GET, "/version", &[], None).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn revoked_tokens_and_disabled_users_are_refused() {
    let app = TestApp::new();
    app.user("alice", false);
    let token = app.token("alice");
    assert_eq!(app.get_as(&token, SEARCH).await.status, StatusCode::OK);
    let id: i64 = app
        .store
        .blocking(|c| Ok(c.query_row("SELECT max(token_id) FROM api_tokens", [], |r| r.get(0))?))
        .unwrap();
    let r = app
        .call(
            Method::DELETE,
            &format!("/api/v1/tokens/{id}"),
            &[("authorization", &format!("Bearer {token}"))],
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(
        app.get_as(&token, SEARCH).await.status,
        StatusCode::UNAUTHORIZED
    );

    let token = app.token("alice");
    let (cookie, _, _) = app.login("alice", PASSWORD).await;
    app.store
        .blocking(|c| users::set_disabled(c, "alice", true))
        .unwrap();
    assert_eq!(
        app.get_as(&token, SEARCH).await.status,
        StatusCode::UNAUTHORIZED
    );
    let basic = basic_header("alice", PASSWORD);
    let r = app
        .call(Method::GET, SEARCH, &[("authorization", &basic)], None)
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    // A disabled account with the right password reads exactly like a wrong password
    // (the answer must not confirm the password).
    let wrong = basic_header("alice", "not alice's password");
    let w = app
        .call(Method::GET, SEARCH, &[("authorization", &wrong)], None)
        .await;
    assert_eq!((r.status, &r.body), (w.status, &w.body));
    assert!(!r.text.contains("disabled"), "{}", r.text);
    let r = app
        .call(Method::GET, "/api/v1/session", &[("cookie", &cookie)], None)
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let (_, _, r) = app.login("alice", PASSWORD).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let (_, _, w) = app.login("alice", "not alice's password").await;
    assert_eq!((r.status, &r.body), (w.status, &w.body));
    assert!(r.header("set-cookie").is_empty());
}

#[tokio::test]
async fn password_change_invalidates_cached_basic_credentials() {
    let app = TestApp::new();
    app.user("alice", false);
    let old = basic_header("alice", PASSWORD);
    assert_eq!(
        app.call(Method::GET, SEARCH, &[("authorization", &old)], None)
            .await
            .status,
        StatusCode::OK
    );
    app.store
        .blocking(|c| users::set_password(c, "alice", "a brand new password"))
        .unwrap();
    let r = app
        .call(Method::GET, SEARCH, &[("authorization", &old)], None)
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let new = basic_header("alice", "a brand new password");
    assert_eq!(
        app.call(Method::GET, SEARCH, &[("authorization", &new)], None)
            .await
            .status,
        StatusCode::OK
    );
}
