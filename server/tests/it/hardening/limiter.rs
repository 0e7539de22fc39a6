//! G: the sign-in limiter reserves an attempt before verifying the password, so parallel
//! wrong attempts for one user from one address are checked at most 5 times; the lockout is
//! per address, so the right password from another address still signs in.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::http::{Method, StatusCode};
use server::auth::basic_header;

use crate::helpers::{TestApp, PASSWORD};

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
