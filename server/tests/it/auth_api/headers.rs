//! Security headers on every response; `/embed/` may be framed by the configured origin.

use axum::http::{Method, StatusCode};
use server::auth::AuthSettings;
use server::StaticConfig;

use crate::helpers::TestApp;

fn dist() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let html = "<html><head><script>var t = 1;</script></head><body></body></html>";
    std::fs::write(d.path().join("index.html"), html).unwrap();
    d
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let d = dist();
    let statics = StaticConfig {
        dist_dir: Some(d.path().to_path_buf()),
        embed_origin: Some("https://nb.example.com".into()),
    };
    let app = TestApp::with(AuthSettings::default(), statics);
    for uri in [
        "/",
        "/experiments/3",
        "/health",
        "/api/2.0/mlflow/experiments/search",
        "/api/v1/session",
    ] {
        let r = app.call(Method::GET, uri, &[], None).await;
        let csp = r.header("content-security-policy");
        assert!(
            csp.contains("default-src 'self'") && csp.contains("'wasm-unsafe-eval'"),
            "{uri}: {csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{uri}: {csp}");
        assert!(
            csp.contains("'sha256-"),
            "inline script allowed by hash: {csp}"
        );
        assert_eq!(r.header("x-content-type-options"), "nosniff");
        assert_eq!(r.header("referrer-policy"), "same-origin");
        assert_eq!(r.header("x-frame-options"), "DENY");
    }
    let r = app.call(Method::GET, "/embed/gpus", &[], None).await;
    assert_eq!(r.status, StatusCode::OK, "SPA route");
    assert!(r
        .header("content-security-policy")
        .contains("frame-ancestors https://nb.example.com"));
    assert!(r.header("x-frame-options").is_empty());
    assert!(r.text.contains("var t = 1;"), "static files are public");
}

#[tokio::test]
async fn every_response_says_how_long_the_server_took() {
    let d = dist();
    let statics = StaticConfig {
        dist_dir: Some(d.path().to_path_buf()),
        embed_origin: None,
    };
    let app = TestApp::with(AuthSettings::default(), statics);
    for (method, uri) in [
        (Method::GET, "/"),
        (Method::GET, "/health"),
        (Method::GET, "/api/v1/session"),
        (Method::POST, "/api/2.0/mlflow/runs/log-batch"),
        (Method::GET, "/no/such/api/v1"),
    ] {
        let r = app.call(method, uri, &[], None).await;
        let timing = r.header("server-timing");
        let ms = timing
            .strip_prefix("app;dur=")
            .and_then(|v| v.parse::<u64>().ok());
        assert!(ms.is_some(), "{uri}: Server-Timing {timing:?}");
    }
}

#[tokio::test]
async fn answers_are_gzipped_only_when_big_enough_to_gain() {
    let app = TestApp::new();
    let asks_gzip = [
        ("authorization", app.admin_auth.as_str()),
        ("accept-encoding", "gzip"),
    ];
    // An MLflow write's answer (a few hundred bytes) goes as it is.
    let r = app
        .call(
            Method::POST,
            "/api/2.0/mlflow/experiments/create",
            &asks_gzip,
            Some(serde_json::json!({ "name": "gzip-small" })),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert!(
        r.header("content-encoding").is_empty(),
        "{} bytes compressed",
        r.bytes.len()
    );
    let id = r.body["experiment_id"].as_str().expect("id").to_string();
    let r = app
        .call(
            Method::GET,
            &format!("/api/2.0/mlflow/experiments/get?experiment_id={id}"),
            &asks_gzip,
            None,
        )
        .await;
    assert!(r.header("content-encoding").is_empty(), "{}", r.text);
    // A page of many experiments is gzipped.
    for i in 0..40 {
        let (status, _) = app
            .post(
                "/experiments/create",
                serde_json::json!({ "name": format!("gzip-large-{i:02}") }),
            )
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    let r = app
        .call(
            Method::GET,
            "/api/2.0/mlflow/experiments/search?max_results=100",
            &asks_gzip,
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header("content-encoding"), "gzip");
}
