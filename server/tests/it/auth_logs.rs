//! Secrets never leak: with every log level captured, sign-ins, tokens, basic auth and
//! password changes leave no password, token or session id in the logs, and no response
//! repeats a secret it was not created to show.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::helpers::{TestApp, PASSWORD};
use axum::http::Method;
use serde_json::json;
use server::auth::basic_header;

/// A log sink that keeps what is written while recording. The subscriber is global (the
/// server logs from tokio's blocking threads too), so it stays installed for the rest of
/// the test binary; recording stops when this test ends.
#[derive(Clone, Default)]
struct Captured {
    bytes: Arc<Mutex<Vec<u8>>>,
    recording: Arc<AtomicBool>,
}

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.recording.load(Ordering::Relaxed) {
            self.bytes.lock().unwrap().extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_in_logs_or_responses() {
    let logs = Captured::default();
    logs.recording.store(true, Ordering::Relaxed);
    let writer = logs.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .try_init()
        .expect("the only global subscriber of the test binary");
    tracing::info!("capture works");

    let app = TestApp::new();
    app.user("alice", false);
    let mut bodies = Vec::new();
    let (cookie, csrf, r) = app.login("alice", PASSWORD).await;
    bodies.push(r.text);
    bodies.push(app.login("alice", "a wrong password").await.2.text);
    let session_id = cookie.trim_start_matches("runlens_session=").to_string();

    let basic = basic_header("alice", PASSWORD);
    let h = [("cookie", cookie.as_str()), ("x-csrf-token", csrf.as_str())];
    let created = app
        .call(
            Method::POST,
            "/api/v1/tokens",
            &h,
            Some(json!({ "name": "ci" })),
        )
        .await;
    let token = created.body["token"].as_str().unwrap().to_string();
    for (auth, uri) in [
        (
            format!("Bearer {token}"),
            "/api/2.0/mlflow/experiments/search?max_results=5",
        ),
        (basic.clone(), "/api/v1/tokens"),
        (basic_header("alice", &token), "/api/v1/session"),
        (format!("Bearer {token}x"), "/api/v1/session"),
        (
            basic_header("alice", "a wrong password"),
            "/api/2.0/mlflow/runs/search",
        ),
    ] {
        bodies.push(
            app.call(Method::GET, uri, &[("authorization", &auth)], None)
                .await
                .text,
        );
    }
    let admin = format!("Bearer {}", app.admin_token);
    let a = [("authorization", admin.as_str())];
    let new_user = json!({ "username": "zed", "password": "zed secret pw" });
    bodies.push(
        app.call(
            Method::POST,
            "/api/2.0/mlflow/users/create",
            &a,
            Some(new_user),
        )
        .await
        .text,
    );
    let change = json!({ "username": "zed", "password": "zed newer pw" });
    bodies.push(
        app.call(
            Method::PATCH,
            "/api/2.0/mlflow/users/update-password",
            &a,
            Some(change),
        )
        .await
        .text,
    );
    bodies.push(
        app.call(Method::GET, "/api/2.0/mlflow/users/list", &a, None)
            .await
            .text,
    );
    bodies.push(
        app.call(
            Method::POST,
            "/api/v1/tokens",
            &[("cookie", &cookie)],
            Some(json!({"name": "x"})),
        )
        .await
        .text,
    );

    logs.recording.store(false, Ordering::Relaxed);
    let logs = String::from_utf8_lossy(&logs.bytes.lock().unwrap()).to_string();
    assert!(logs.contains("capture works"), "the capture itself works");
    let secrets = [
        PASSWORD,
        "a wrong password",
        "zed secret pw",
        "zed newer pw",
        &token,
        &session_id,
        &app.admin_token,
    ];
    for s in secrets {
        assert!(
            !logs.contains(s),
            "a secret reached the logs: {s:?}\n{logs}"
        );
        for b in &bodies {
            assert!(!b.contains(s), "a secret reached a response: {s:?} in {b}");
        }
    }
    assert!(!created.text.contains(&session_id) && !created.text.contains(PASSWORD));
}
