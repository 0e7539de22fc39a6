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
