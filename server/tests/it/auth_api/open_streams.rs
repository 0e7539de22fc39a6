//! Open streams end with their credential: a log follow (`/runs/{id}/logs/stream`) and an
//! experiment's live stream (`/experiments/{id}/live`), opened with a token, a session or
//! a password, end with `event: unauthenticated` within about two seconds of the token's
//! revocation, the sign-out, an administrator's password reset or the account's disabling,
//! and deliver nothing written after it; a stream whose credential still holds goes on.

use std::time::{Duration, Instant};

use serde_json::json;
use server::auth::{basic_header, tokens, users};

use crate::logs_api::{Events, JobRun, LiveServer};

const PASSWORD: &str = "pw-of-a-stream-user";

/// The two kinds of stream, and how a write reaches each.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Logs,
    Live,
}

/// A user who may read the job run's experiment and logs: their token and its id.
fn reader(s: &LiveServer, name: &str) -> (String, i64) {
    s.store
        .blocking(|c| {
            let id = users::create_user(c, name, Some(PASSWORD), false)?;
            let t = tokens::create_token(c, id, "stream")?;
            Ok((t.token, t.info.id))
        })
        .expect("user")
}

async fn grant(s: &LiveServer, jr: &JobRun, name: &str) {
    for (path, level) in [
        (
            format!("/api/v1/experiments/{}/access", jr.experiment_id),
            "CAN_READ",
        ),
        (format!("/api/v1/jobs/{}/access", jr.job_id), "CAN_VIEW"),
    ] {
        let grant = json!({"principal": {"kind": "user", "name": name}, "level": level});
        s.ok(&s.admin, "PUT", &path, Some(grant)).await;
    }
}

fn path(kind: Kind, jr: &JobRun) -> String {
    match kind {
        Kind::Logs => format!("/api/v1/runs/{}/logs/stream", jr.runs[0]),
        Kind::Live => format!(
            "/api/v1/experiments/{}/live?run={}",
            jr.experiment_id, jr.runs[0]
        ),
    }
}

/// Writes `marker` where the stream reports it: a log line, or a metric key.
async fn write(s: &LiveServer, kind: Kind, jr: &JobRun, seq: u64, marker: &str) {
    match kind {
        Kind::Logs => {
            let (st, ack) = s.ship(jr.id, 1, "n0", seq, &[(1, marker)]).await;
            assert_eq!(st, 200, "{ack}");
        }
        Kind::Live => {
            let metric = json!({"key": marker, "value": 1.0, "timestamp": 1, "step": seq});
            let body = json!({"run_id": jr.runs[0], "metrics": [metric]});
            s.ok(
                &s.admin,
                "POST",
                "/api/2.0/mlflow/runs/log-batch",
                Some(body),
            )
            .await;
        }
    }
}

/// Reads `stream` until `marker` has arrived.
async fn receives(stream: &mut Events, marker: &str) {
    loop {
        let (_, _, data) = stream.next(Duration::from_secs(5)).await;
        if data.contains(marker) {
            return;
        }
    }
}

async fn streams_end_with_their_credential(kind: Kind) {
    let s = LiveServer::start().await;
    let jr = s.job_run("watched", &["n0"], 1).await;
    let (revoked, revoked_id) = reader(&s, "revoked");
    let (_, _) = reader(&s, "leaving");
    let (_, _) = reader(&s, "reset");
    let (disabled, _) = reader(&s, "disabled");
    let (kept, _) = reader(&s, "kept");
    for name in ["revoked", "leaving", "reset", "disabled", "kept"] {
        grant(&s, &jr, name).await;
    }
    let (leaving_cookie, leaving_csrf) = s.sign_in("leaving", PASSWORD).await;
    let (reset_cookie, _) = s.sign_in("reset", PASSWORD).await;
    let reset_basic = basic_header("reset", PASSWORD);
    let (revoked_auth, disabled_auth, kept_auth) = (
        format!("Bearer {revoked}"),
        format!("Bearer {disabled}"),
        format!("Bearer {kept}"),
    );
    let credentials: [(&str, (&str, &str)); 6] = [
        ("revoked token", ("authorization", revoked_auth.as_str())),
        ("signed-out session", ("cookie", leaving_cookie.as_str())),
        (
            "session of a reset password",
            ("cookie", reset_cookie.as_str()),
        ),
        ("reset password", ("authorization", reset_basic.as_str())),
        (
            "token of a disabled user",
            ("authorization", disabled_auth.as_str()),
        ),
        ("token kept", ("authorization", kept_auth.as_str())),
    ];
    let path = path(kind, &jr);
    let mut streams = Vec::new();
    for (what, header) in credentials {
        streams.push((what, Events::open_with(&s, &[header], &path).await));
    }
    // Every stream is live: it receives a write made after it opened.
    write(&s, kind, &jr, 0, "before_the_end").await;
    for (_, stream) in &mut streams {
        receives(stream, "before_the_end").await;
    }

    let ended_at = Instant::now();
    let revoke = format!("/api/v1/tokens/{revoked_id}");
    s.ok(&revoked, "DELETE", &revoke, None).await;
    let signed_out = s
        .send_with(
            &[("cookie", &leaving_cookie), ("x-csrf-token", &leaving_csrf)],
            "DELETE",
            "/api/v1/session",
            None,
        )
        .await;
    assert_eq!(signed_out.status().as_u16(), 204);
    let reset = json!({"username": "reset", "password": "a-new-password-123"});
    s.ok(
        &s.admin,
        "PATCH",
        "/api/2.0/mlflow/users/update-password",
        Some(reset),
    )
    .await;
    s.store
        .blocking(|c| users::set_disabled(c, "disabled", true))
        .expect("disable");

    // Once the streams have checked their callers again (every second), a write reaches
    // only the stream whose credential still holds.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    write(&s, kind, &jr, 1, "AFTER_THE_END").await;
    let (_, mut kept_stream) = streams.pop().expect("the kept stream");
    for (what, mut stream) in streams {
        let left =
            (ended_at + Duration::from_millis(2_500)).saturating_duration_since(Instant::now());
        let rest = stream.rest(left).await;
        let rest = match rest {
            Ok(rest) => rest,
            Err(rest) => panic!("{kind:?}: the stream of a {what} is open after 2.5 s: {rest}"),
        };
        assert!(
            rest.contains("event: unauthenticated") && rest.contains("\"UNAUTHENTICATED\""),
            "{kind:?}: the stream of a {what} ended without saying why: {rest}"
        );
        assert!(!rest.contains("AFTER_THE_END"), "{kind:?}, {what}: {rest}");
        // A new request with the same credential is refused too.
        let (name, value) = credentials
            .iter()
            .find(|(w, _)| *w == what)
            .expect("credential")
            .1;
        let again = s.send_with(&[(name, value)], "GET", &path, None).await;
        assert_eq!(again.status().as_u16(), 401, "{kind:?}, {what}");
    }
    receives(&mut kept_stream, "AFTER_THE_END").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_follow_ends_within_two_seconds_of_its_credential() {
    streams_end_with_their_credential(Kind::Logs).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_stream_ends_within_two_seconds_of_its_credential() {
    streams_end_with_their_credential(Kind::Live).await;
}
