//! G: the sign-in limiter reserves an attempt before verifying the password, so parallel
//! wrong attempts for one user from one address are checked at most 5 times; the lockout is
//! per address, so the right password from another address still signs in.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::http::{Method, StatusCode};
use server::auth::basic_header;

use crate::helpers::{Resp, TestApp, PASSWORD};

const SEARCH: &str = "/api/2.0/mlflow/experiments/search?max_results=1";
const WRONG: &str = "Invalid username or password.";
/// The start of the lockout (and rate-limit) messages.
const LOCKED: &str = "Too many";

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn parallel_wrong_attempts_verify_at_most_five_times() {
    let app = Arc::new(TestApp::new());
    app.user("alice", false);
    let attacker: SocketAddr = "10.9.8.7:40000".parse().unwrap();
    let wrong = basic_header("alice", "not alice's password");
    let tasks: Vec<_> = (0..40)
        .map(|_| {
            let (app, wrong) = (app.clone(), wrong.clone());
            tokio::spawn(async move {
                app.call_raw(
                    Method::GET,
                    SEARCH,
                    &[("authorization", &wrong)],
                    "",
                    "",
                    Some(attacker),
                )
                .await
            })
        })
        .collect();
    let (mut wrong_answers, mut locked_answers) = (0, 0);
    for t in tasks {
        let r = t.await.unwrap();
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text);
        let msg = r.body["message"].as_str().unwrap_or("").to_string();
        if msg == WRONG {
            wrong_answers += 1;
        } else if msg.contains(LOCKED) {
            locked_answers += 1;
        } else {
            panic!("unexpected answer {msg:?}");
        }
    }
    assert!(
        wrong_answers <= 5,
        "{wrong_answers} of 40 parallel attempts were checked against the password"
    );
    assert_eq!(wrong_answers + locked_answers, 40);

    // The lockout is per address: the right password from the attacker's address is still
    // locked out, from another address it signs in.
    let right = basic_header("alice", PASSWORD);
    let r = app
        .call_raw(
            Method::GET,
            SEARCH,
            &[("authorization", &right)],
            "",
            "",
            Some(attacker),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text);
    let home: SocketAddr = "10.1.1.1:50000".parse().unwrap();
    let r = app
        .call_raw(
            Method::GET,
            SEARCH,
            &[("authorization", &right)],
            "",
            "",
            Some(home),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

/// The probe's sequence: about 40 other sign-ins (other users and unknown names, right and
/// wrong, over Basic and sessions, alice and bob among them), then five wrong passwords
/// and the right one for one user. The right password had been verified before, so this
/// replica's basic-auth cache knew it: the lockout must hold all the same (401 "Too
/// many ..." for Basic, 429 for a session sign-in).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lockout_holds_for_a_password_verified_before() {
    let app = TestApp::new();
    for name in ["alice", "bob", "carol", "dave"] {
        app.user(name, false);
    }
    let probe: SocketAddr = "10.7.7.7:40000".parse().unwrap();
    let others: SocketAddr = "10.7.7.8:40000".parse().unwrap();
    // alice and bob only sign in (their failures come after); carol, dave and unknown
    // names fail now and then, never five times.
    let users = ["alice", "bob", "carol", "dave"];
    for i in 0..40 {
        let (user, from, password) = match i % 5 {
            0 | 1 => (users[i % 4].to_string(), probe, PASSWORD.to_string()),
            2 => (users[i % 4].to_string(), others, PASSWORD.to_string()),
            3 => (users[2 + i % 2].to_string(), probe, format!("wrong-{i}")),
            _ => (format!("ghost{i}"), probe, format!("wrong-{i}")),
        };
        let r = if i % 2 == 0 {
            basic(&app, &user, &password, from).await
        } else {
            session(&app, &user, &password, from).await
        };
        let want = if password == PASSWORD { 200 } else { 401 };
        assert_eq!(r.status.as_u16(), want, "sign-in {i} as {user}: {}", r.text);
    }

    for _ in 0..5 {
        let r = basic(&app, "alice", "not alice's password", probe).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text);
        assert_eq!(r.body["message"], WRONG);
    }
    let by_basic = basic(&app, "alice", PASSWORD, probe).await;
    for _ in 0..5 {
        let r = session(&app, "bob", "not bob's password", probe).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text);
    }
    let by_session = session(&app, "bob", PASSWORD, probe).await;
    let answers = format!(
        "Basic: {} {}; session: {} {}",
        by_basic.status, by_basic.text, by_session.status, by_session.text
    );
    assert_eq!(by_basic.status, StatusCode::UNAUTHORIZED, "{answers}");
    assert!(by_basic.text.contains(LOCKED), "{answers}");
    assert_eq!(
        by_session.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{answers}"
    );
    assert!(by_session.text.contains(LOCKED), "{answers}");

    // Elsewhere, both still sign in (the lockout is per address).
    assert_eq!(
        basic(&app, "alice", PASSWORD, others).await.status,
        StatusCode::OK
    );
    assert_eq!(
        session(&app, "bob", PASSWORD, others).await.status,
        StatusCode::OK
    );
}

/// A request with HTTP Basic credentials from `from`.
async fn basic(app: &TestApp, user: &str, password: &str, from: SocketAddr) -> Resp {
    let auth = basic_header(user, password);
    app.call_raw(
        Method::GET,
        SEARCH,
        &[("authorization", &auth)],
        "",
        "",
        Some(from),
    )
    .await
}

/// A session sign-in (`POST /api/v1/session`) from `from`.
async fn session(app: &TestApp, user: &str, password: &str, from: SocketAddr) -> Resp {
    let body = serde_json::json!({ "username": user, "password": password }).to_string();
    app.call_raw(
        Method::POST,
        "/api/v1/session",
        &[],
        "application/json",
        body,
        Some(from),
    )
    .await
}
