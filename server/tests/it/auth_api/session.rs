//! Sign-in, sessions, cookie flags, CSRF, expiry, sign-out and rate limiting.

use axum::http::{HeaderName, Method, StatusCode};
use serde_json::json;
use server::auth::AuthSettings;
use server::StaticConfig;

use crate::helpers::{TestApp, PASSWORD};

#[tokio::test]
async fn sign_in_sets_a_strict_cookie_and_returns_me() {
    let app = TestApp::new();
    app.user("alice", false);
    let (cookie, csrf, r) = app.login("alice", PASSWORD).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["username"], "alice");
    assert_eq!(r.body["is_admin"], false);
    assert!(csrf.len() >= 32);
    let set = r.header("set-cookie");
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Lax") && set.contains("Path=/"),
        "{set}"
    );
    assert!(!set.contains("Secure"), "plain http: no Secure flag: {set}");
    assert!(cookie.starts_with("runlens_session=") && cookie.len() > 40);
    let me = app
        .call(Method::GET, "/api/v1/session", &[("cookie", &cookie)], None)
        .await;
    assert_eq!(me.status, StatusCode::OK);
    assert_eq!(me.body["username"], "alice");
    assert_eq!(me.body["csrf_token"], csrf.as_str());
    // The database keeps only a digest of the session id.
    let id = cookie.trim_start_matches("runlens_session=").to_string();
    let stored: i64 = app
        .store
        .blocking(move |c| {
            Ok(c.query_row(
                "SELECT count(*) FROM sessions WHERE session_hash = ?1",
                [id],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert_eq!(stored, 0);
}

#[tokio::test]
async fn secure_flag_when_configured_or_forwarded_https() {
    let settings = AuthSettings {
        secure_cookies: true,
        ..Default::default()
    };
    let app = TestApp::with(settings, StaticConfig::default());
    app.user("alice", false);
    let (_, _, r) = app.login("alice", PASSWORD).await;
    assert!(
        r.header("set-cookie").contains("; Secure"),
        "{}",
        r.header("set-cookie")
    );

    let app = TestApp::new();
    app.user("alice", false);
    let body = json!({ "username": "alice", "password": PASSWORD });
    let r = app
        .call(
            Method::POST,
            "/api/v1/session",
            &[("x-forwarded-proto", "https")],
            Some(body),
        )
        .await;
    assert!(r.header("set-cookie").contains("; Secure"));
}

#[tokio::test]
async fn wrong_password_and_unknown_user_read_the_same() {
    let app = TestApp::new();
    app.user("alice", false);
    let (_, _, wrong) = app.login("alice", "nope-nope-nope").await;
    let (_, _, unknown) = app.login("mallory", "nope-nope-nope").await;
    for r in [&wrong, &unknown] {
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
        assert_eq!(r.body["code"], "UNAUTHENTICATED");
        assert_eq!(r.body["message"], "Invalid username or password.");
        assert!(r.header("set-cookie").is_empty());
    }
    let bad = app
        .call(Method::POST, "/api/v1/session", &[], Some(json!([1])))
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn cookie_writes_need_the_csrf_token() {
    let app = TestApp::new();
    app.user("alice", false);
    let (cookie, csrf, _) = app.login("alice", PASSWORD).await;
    let body = || Some(json!({ "name": "/Users/alice/csrf" }));
    let uri = "/api/2.0/mlflow/experiments/create";
    let r = app
        .call(Method::POST, uri, &[("cookie", &cookie)], body())
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    assert_eq!(r.body["error_code"], "PERMISSION_DENIED");
    assert!(r.body["message"].as_str().unwrap().contains("CSRF"));
    let bad = [("cookie", cookie.as_str()), ("x-csrf-token", "forged")];
    assert_eq!(
        app.call(Method::POST, uri, &bad, body()).await.status,
        StatusCode::FORBIDDEN
    );
    let good = [("cookie", cookie.as_str()), ("x-csrf-token", csrf.as_str())];
    let r = app.call(Method::POST, uri, &good, body()).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    // Reads need no token.
    let r = app
        .call(
            Method::GET,
            "/api/v1/experiments",
            &[("cookie", &cookie)],
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

#[tokio::test]
async fn sign_out_needs_csrf_then_clears_the_session() {
    let app = TestApp::new();
    app.user("alice", false);
    let (cookie, csrf, _) = app.login("alice", PASSWORD).await;
    let r = app
        .call(
            Method::DELETE,
            "/api/v1/session",
            &[("cookie", &cookie)],
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let h = [("cookie", cookie.as_str()), ("x-csrf-token", csrf.as_str())];
    let r = app.call(Method::DELETE, "/api/v1/session", &h, None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert!(r.header("set-cookie").contains("Max-Age=0"));
    let me = app
        .call(Method::GET, "/api/v1/session", &[("cookie", &cookie)], None)
        .await;
    assert_eq!(me.status, StatusCode::UNAUTHORIZED);
    assert_eq!(me.body["code"], "UNAUTHENTICATED");
}

#[tokio::test]
async fn sessions_expire_when_idle_and_after_seven_days() {
    let app = TestApp::new();
    app.user("alice", false);
    let hour = 3_600_000i64;
    for (created_ago, seen_ago) in [(13 * hour, 13 * hour), (8 * 24 * hour, 0)] {
        let (cookie, _, _) = app.login("alice", PASSWORD).await;
        let me = app
            .call(Method::GET, "/api/v1/session", &[("cookie", &cookie)], None)
            .await;
        assert_eq!(me.status, StatusCode::OK);
        let now = server::util::now_ms();
        app.store
            .blocking(move |c| {
                c.execute(
                    "UPDATE sessions SET created = ?1, last_seen = ?2",
                    [now - created_ago, now - seen_ago],
                )?;
                Ok(())
            })
            .unwrap();
        let me = app
            .call(Method::GET, "/api/v1/session", &[("cookie", &cookie)], None)
            .await;
        assert_eq!(me.status, StatusCode::UNAUTHORIZED, "{}", me.text);
        assert!(me.body["message"].as_str().unwrap().contains("expired"));
    }
}

#[tokio::test]
async fn sign_in_is_rate_limited() {
    let app = TestApp::new();
    app.user("alice", false);
    for _ in 0..5 {
        let (_, _, r) = app.login("alice", "wrong-password").await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    }
    let (_, _, r) = app.login("alice", PASSWORD).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text);
    assert_eq!(r.body["code"], "TOO_MANY_REQUESTS");
    assert!(r.body["message"]
        .as_str()
        .unwrap()
        .contains("Too many failed sign-in attempts"));
    // HTTP basic counts against the same limit.
    let auth = server::auth::basic_header("alice", PASSWORD);
    let r = app
        .call(
            Method::GET,
            "/api/2.0/mlflow/experiments/search",
            &[("authorization", &auth)],
            None,
        )
        .await;
    // ... but answers 401 there: the mlflow client would retry a 429 for minutes.
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.body["error_code"], "UNAUTHENTICATED");
    assert!(r.body["message"]
        .as_str()
        .unwrap()
        .contains("Too many failed sign-in attempts"));
    // Other users are not locked out.
    app.user("bob", false);
    assert_eq!(app.login("bob", PASSWORD).await.2.status, StatusCode::OK);
}

/// A sign-in from behind a proxy, as the proxy forwards it: `X-Forwarded-For` `chain`.
async fn sign_in_via(app: &TestApp, chain: &str, password: &str) -> StatusCode {
    let body = json!({ "username": "alice", "password": password });
    let h = [("x-forwarded-for", chain)];
    app.call(Method::POST, "/api/v1/session", &h, Some(body))
        .await
        .status
}

/// With `--trusted-forwarded-for` the client is the last `X-Forwarded-For` entry (the one
/// the proxy appended): entries a client put first are its own words and change nothing,
/// so varying them does not escape the lockout, and naming a locked-out address there
/// does not lock anyone else out.
#[tokio::test]
async fn trusted_forwarded_for_counts_the_proxys_entry_not_the_clients() {
    let settings = AuthSettings {
        trusted_forwarded_for: true,
        ..Default::default()
    };
    let app = TestApp::with(settings, StaticConfig::default());
    app.user("alice", false);
    for i in 0..5 {
        let chain = format!("203.0.113.{i}, 10.0.0.7");
        let status = sign_in_via(&app, &chain, "wrong-password").await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    let locked = sign_in_via(&app, "198.51.100.9, 10.0.0.7", PASSWORD).await;
    assert_eq!(
        locked,
        StatusCode::TOO_MANY_REQUESTS,
        "a spoofed first entry escaped"
    );
    let other = sign_in_via(&app, "10.0.0.7, 10.0.0.8", PASSWORD).await;
    assert_eq!(
        other,
        StatusCode::OK,
        "the client's first entry was taken as its address"
    );
}

/// Without `--trusted-forwarded-for` the header is ignored: a client cannot pick the
/// address its failures count against.
#[tokio::test]
async fn forwarded_for_is_ignored_unless_trusted() {
    let app = TestApp::new();
    app.user("alice", false);
    for i in 0..5 {
        let status = sign_in_via(&app, &format!("10.0.0.{i}"), "wrong-password").await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    let fresh = sign_in_via(&app, "10.0.0.99", PASSWORD).await;
    assert_eq!(fresh, StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn proxy_header_only_when_configured_and_creates_the_user() {
    let app = TestApp::new();
    let h = [("x-forwarded-user", "dora")];
    let r = app.call(Method::GET, "/api/v1/session", &h, None).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let settings = AuthSettings {
        trusted_user_header: Some(HeaderName::from_static("x-forwarded-user")),
        ..Default::default()
    };
    let app = TestApp::with(settings, StaticConfig::default());
    let r = app.call(Method::GET, "/api/v1/session", &h, None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["username"], "dora");
    assert_eq!(r.body["is_admin"], false);
    let bad = app
        .call(
            Method::GET,
            "/api/v1/session",
            &[("x-forwarded-user", "../etc")],
            None,
        )
        .await;
    assert_eq!(bad.status, StatusCode::UNAUTHORIZED);
}
