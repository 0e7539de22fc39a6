//! B and C: cross-site writes and login CSRF. Credentials a browser sends by itself (the
//! trusted proxy header, cached HTTP Basic, the session cookie) never make a cross-site or
//! non-JSON state change; programs (Bearer, or Basic with JSON and no Origin) keep working;
//! 401s to browsers carry no `WWW-Authenticate` (no Basic prompt to cache).

use axum::http::header::HeaderName;
use axum::http::{Method, StatusCode};
use serde_json::json;
use server::auth::{basic_header, AuthSettings};
use server::StaticConfig;

use crate::helpers::{Resp, TestApp, PASSWORD};

const USERS_CREATE: &str = "/api/2.0/mlflow/users/create";
const TOKENS: &str = "/api/v1/tokens";
const HOST: &str = "runlens.example";

/// An app trusting `X-Forwarded-User`, with administrator `boss` (password [`PASSWORD`]).
fn proxied() -> TestApp {
    let settings = AuthSettings {
        trusted_user_header: Some(HeaderName::from_static("x-forwarded-user")),
        ..Default::default()
    };
    let app = TestApp::with(settings, StaticConfig::default());
    app.user("boss", true);
    app
}

fn user_exists(app: &TestApp, name: &str) -> bool {
    let name = name.to_string();
    app.store
        .blocking(move |c| server::auth::users::find_user_id(c, &name))
        .expect("lookup")
        .is_some()
}

fn tokens_of(app: &TestApp, name: &str) -> i64 {
    let id = app
        .store
        .blocking(|c| server::auth::users::find_user_id(c, name))
        .expect("lookup")
        .expect("user");
    app.scalar(&format!(
        "SELECT count(*) FROM api_tokens WHERE user_id = {id}"
    ))
}

/// POSTs `body` with `ctype` and `headers` (plus `Host`).
async fn post(app: &TestApp, uri: &str, headers: &[(&str, &str)], ctype: &str, body: &str) -> Resp {
    let mut h = vec![("host", HOST)];
    h.extend_from_slice(headers);
    app.call_raw(Method::POST, uri, &h, ctype, body.to_string(), None)
        .await
}

/// The form encodings a cross-site page can send without a preflight.
const SIMPLE_TYPES: [&str; 4] = [
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "",
];

fn assert_refused(r: &Resp, ctx: &str) {
    assert!(
        r.status.is_client_error(),
        "{ctx}: answered {} {}",
        r.status,
        r.text
    );
}

#[tokio::test]
async fn proxy_header_writes_need_json() {
    let app = proxied();
    let cred = [("x-forwarded-user", "boss")];
    let user = r#"{"username": "evil", "password": "evil-password-1"}"#;
    for ctype in SIMPLE_TYPES {
        let r = post(&app, USERS_CREATE, &cred, ctype, user).await;
        assert_refused(&r, &format!("users/create as {ctype:?}"));
        assert!(!user_exists(&app, "evil"), "{ctype:?} created the user");
        let r = post(&app, TOKENS, &cred, ctype, r#"{"name": "evil"}"#).await;
        assert_refused(&r, &format!("tokens as {ctype:?}"));
        assert_eq!(tokens_of(&app, "boss"), 0, "{ctype:?} created a token");
    }
    // The same with JSON from the same origin works (the proxy's own app).
    let same = [
        ("x-forwarded-user", "boss"),
        ("origin", "https://runlens.example"),
    ];
    let r = post(&app, TOKENS, &same, "application/json", r#"{"name": "ok"}"#).await;
    assert!(r.status.is_success(), "{} {}", r.status, r.text);
    assert_eq!(tokens_of(&app, "boss"), 1);
}

#[tokio::test]
async fn cached_basic_writes_need_json() {
    let app = TestApp::new();
    app.user("boss", true);
    let basic = basic_header("boss", PASSWORD);
    let cred = [("authorization", basic.as_str())];
    let user = r#"{"username": "evil", "password": "evil-password-1"}"#;
    for ctype in SIMPLE_TYPES {
        let r = post(&app, USERS_CREATE, &cred, ctype, user).await;
        assert_refused(&r, &format!("users/create as {ctype:?}"));
        assert!(!user_exists(&app, "evil"), "{ctype:?} created the user");
        let r = post(&app, TOKENS, &cred, ctype, r#"{"name": "evil"}"#).await;
        assert_refused(&r, &format!("tokens as {ctype:?}"));
        assert_eq!(tokens_of(&app, "boss"), 0, "{ctype:?} created a token");
    }
    // A program (JSON, no Origin) with Basic keeps working, as the mlflow client does.
    let r = post(&app, USERS_CREATE, &cred, "application/json", user).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert!(user_exists(&app, "evil"));
}

#[tokio::test]
async fn cross_site_writes_are_refused_even_with_json() {
    let app = proxied();
    app.user("cookie-user", true);
    let (cookie, csrf, _) = app.login("cookie-user", PASSWORD).await;
    let basic = basic_header("boss", PASSWORD);
    let creds: [(&str, Vec<(&str, &str)>); 3] = [
        ("proxy header", vec![("x-forwarded-user", "boss")]),
        ("basic", vec![("authorization", basic.as_str())]),
        (
            "cookie",
            vec![("cookie", cookie.as_str()), ("x-csrf-token", csrf.as_str())],
        ),
    ];
    let evil: [(&str, &str); 5] = [
        ("origin", "https://evil.example"),
        ("origin", "null"),
        ("origin", "http://runlens.example.evil.example"),
        ("sec-fetch-site", "cross-site"),
        ("sec-fetch-site", "same-site"),
    ];
    for (what, cred) in &creds {
        for marker in evil {
            let mut h = cred.clone();
            h.push(marker);
            let ctx = format!("{what} with {}: {}", marker.0, marker.1);
            let name = format!("evil{}", what.len() * 10 + marker.1.len());
            let user = json!({"username": name, "password": "evil-password-1"}).to_string();
            let r = post(&app, USERS_CREATE, &h, "application/json", &user).await;
            assert_eq!(r.status, StatusCode::FORBIDDEN, "{ctx}: {}", r.text);
            assert_eq!(r.body["error_code"], "PERMISSION_DENIED", "{ctx}");
            assert!(!user_exists(&app, &name), "{ctx}: created the user");
            let r = post(&app, TOKENS, &h, "application/json", r#"{"name": "x"}"#).await;
            assert_eq!(r.status, StatusCode::FORBIDDEN, "{ctx}: {}", r.text);
        }
    }
    assert_eq!(tokens_of(&app, "boss"), 0);
    assert_eq!(tokens_of(&app, "cookie-user"), 0);
}

#[tokio::test]
async fn bearer_tokens_are_not_affected() {
    let app = TestApp::new();
    let bearer = format!("Bearer {}", app.admin_token);
    let h = [
        ("authorization", bearer.as_str()),
        ("origin", "https://evil.example"),
    ];
    let user = r#"{"username": "fine", "password": "fine-password-1"}"#;
    let r = post(&app, USERS_CREATE, &h, "application/json", user).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

#[tokio::test]
async fn browsers_get_no_basic_prompt() {
    let app = TestApp::new();
    let search = "/api/2.0/mlflow/experiments/search";
    for browser in [
        [
            ("sec-fetch-mode", "cors"),
            ("sec-fetch-site", "same-origin"),
        ],
        [
            ("user-agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/130"),
            ("accept", "*/*"),
        ],
    ] {
        let r = app.call(Method::GET, search, &browser, None).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
        assert_eq!(r.header("www-authenticate"), "", "{browser:?}");
        let r = app
            .call(Method::POST, "/api/v1/tokens", &browser, Some(json!({})))
            .await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
        assert_eq!(r.header("www-authenticate"), "", "{browser:?}");
    }
    // Programs keep the challenge (the mlflow client relies on it).
    let r = app
        .call(
            Method::GET,
            search,
            &[("user-agent", "mlflow-python-client/3.1")],
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.header("www-authenticate"), "Basic realm=\"runlens\"");
}

#[tokio::test]
async fn sign_in_needs_json_and_the_same_origin() {
    let app = TestApp::new();
    app.user("dave", false);
    let body = json!({"username": "dave", "password": PASSWORD}).to_string();
    for ctype in SIMPLE_TYPES {
        let r = post(&app, "/api/v1/session", &[], ctype, &body).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{ctype:?}: {}", r.text);
        assert_eq!(r.body["code"], "BAD_REQUEST", "{ctype:?}");
        assert_eq!(r.header("set-cookie"), "", "{ctype:?} signed in");
    }
    for marker in [
        ("origin", "https://evil.example"),
        ("origin", "null"),
        ("sec-fetch-site", "cross-site"),
    ] {
        let r = post(
            &app,
            "/api/v1/session",
            &[marker],
            "application/json",
            &body,
        )
        .await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{marker:?}: {}", r.text);
        assert_eq!(r.header("set-cookie"), "", "{marker:?} signed in");
    }
    let same = [
        ("origin", "http://runlens.example"),
        ("sec-fetch-site", "same-origin"),
    ];
    let r = post(&app, "/api/v1/session", &same, "application/json", &body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert!(r.header("set-cookie").contains("runlens_session="));
}
