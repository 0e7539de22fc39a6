//! What the poller takes from an agent is bounded: an answer over
//! [`MAX_ANSWER_BYTES`] (an endless body, a huge declared length, a valid but huge
//! history) is refused with a reason the node's card shows, a back-fill too large to read
//! is asked for again over a shorter time, and the history kept per node (so what
//! `since=0` serves) stays within [`MAX_HISTORY_BYTES`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use api_types::agent::NodeSample;
use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use futures_util::StreamExt;
use server::nodes::poller::{HISTORY_MS, MAX_ANSWER_BYTES, MAX_HISTORY_BYTES};

use super::agent::{sample, FakeAgent};
use super::{gpus, history_at, register, view};
use crate::helpers::TestApp;

/// The reason a node shows after an answer over the limit.
fn too_large() -> String {
    format!(
        "the agent's answer is larger than the limit of {} MiB",
        MAX_ANSWER_BYTES >> 20
    )
}

/// An agent whose every answer is 200 with a body that never ends (the start of a
/// snapshot, then sample after sample), optionally declaring a length of 1 GiB; counts the
/// bytes it has handed to its connections. Returns its URL and that count.
async fn endless_agent(declare_length: bool) -> (String, Arc<AtomicUsize>) {
    let sent = Arc::new(AtomicUsize::new(0));
    let counted = sent.clone();
    let app = Router::new().route(
        "/v1/gpus",
        get(move || {
            let sent = counted.clone();
            async move {
                let one = serde_json::to_vec(&sample(1, 50)).unwrap();
                let head = Bytes::from_static(br#"{"node":"endless","history":["#);
                let body = futures_util::stream::iter(std::iter::once(head).chain(
                    std::iter::repeat_with(move || {
                        let mut chunk = Vec::with_capacity(64 * 1024 + one.len());
                        while chunk.len() < 64 * 1024 {
                            chunk.extend_from_slice(&one);
                            chunk.push(b',');
                        }
                        Bytes::from(chunk)
                    }),
                ))
                .map(move |b| {
                    sent.fetch_add(b.len(), Ordering::Relaxed);
                    Ok::<_, std::io::Error>(b)
                });
                let mut r = Response::builder().header(header::CONTENT_TYPE, "application/json");
                if declare_length {
                    r = r.header(header::CONTENT_LENGTH, (1u64 << 30).to_string());
                }
                r.body(Body::from_stream(body)).unwrap()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (url, sent)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_or_huge_answer_is_refused_with_the_limit_as_the_reason() {
    let app = TestApp::new();
    let (chunked, chunked_sent) = endless_agent(false).await;
    let (declared, declared_sent) = endless_agent(true).await;
    register(&app, "endless", &chunked, "tok", 60).await;
    register(&app, "declared", &declared, "tok", 60).await;
    let r = gpus(&app, &app.admin_token, "endless,declared", Some(0)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    for node in ["endless", "declared"] {
        assert_eq!(
            view(&r.body, node)["state"],
            serde_json::json!({"status": "unreachable", "reason": too_large()}),
            "{node}"
        );
        assert!(view(&r.body, node)["snapshot"].is_null());
    }
    // The server stopped reading at the limit: the agents handed over the limit and what
    // the connection's buffers hold, not what 3 s of loopback would carry (gigabytes).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let sent = chunked_sent.load(Ordering::Relaxed);
    assert!(
        sent > MAX_ANSWER_BYTES && sent < MAX_ANSWER_BYTES + (32 << 20),
        "the endless agent handed over {sent} bytes"
    );
    let sent = declared_sent.load(Ordering::Relaxed);
    assert!(
        sent < 32 << 20,
        "the agent declaring 1 GiB handed over {sent} bytes"
    );
}

/// Samples every `step_ms` over the last `span_ms`, each about `bytes` long as JSON (a
/// long GPU name).
fn samples(now: i64, span_ms: i64, step_ms: i64, bytes: usize) -> Vec<NodeSample> {
    (0..span_ms / step_ms)
        .map(|i| {
            let mut s = sample(now - span_ms + (i + 1) * step_ms, 50);
            s.gpus[0].name = Some("g".repeat(bytes));
            s
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_back_fill_too_large_to_read_is_refused_then_asked_for_over_less_time() {
    let app = TestApp::new();
    let agent = FakeAgent::start("dense", "tok").await;
    let now = server::util::now_ms();
    // 2 h of samples every 10 s (720), 16 KB each: 11.5 MB, over the limit; the last hour
    // is under it.
    agent.set_samples(samples(now, HISTORY_MS, 10_000, 16_000));
    register(&app, "dense", &agent.url, "tok", 1).await;

    let r = gpus(&app, &app.admin_token, "dense", Some(0)).await;
    assert_eq!(
        view(&r.body, "dense")["state"],
        serde_json::json!({"status": "unreachable", "reason": too_large()})
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let r = gpus(&app, &app.admin_token, "dense", Some(0)).await;
    assert_eq!(
        view(&r.body, "dense")["state"]["status"],
        "live",
        "{}",
        r.text
    );
    let sinces: Vec<i64> = agent.sinces().into_iter().flatten().collect();
    assert_eq!(sinces.len(), 2);
    assert!(
        (sinces[1] - sinces[0] - HISTORY_MS / 2).abs() < 5_000,
        "the second call asks for half as long: {sinces:?}"
    );
    let at = history_at(view(&r.body, "dense"));
    assert!(
        at.len() >= 355 && at.iter().all(|t| *t > sinces[1]),
        "the last hour is kept: {} samples",
        at.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_kept_and_served_with_since_0_stays_within_its_bytes() {
    let app = TestApp::new();
    let agent = FakeAgent::start("big", "tok").await;
    // Samples of 1 MB each: every call brings 6 new ones (6 MB, under the answer's limit);
    // after five calls the agent has sent 30 MB of valid history.
    let mb = 1_000_000;
    let t0 = server::util::now_ms() - 60_000;
    let big = |i: i64| {
        let mut s = sample(t0 + i * 100, 50);
        s.gpus[0].name = Some("g".repeat(mb));
        s
    };
    agent.set_samples(Vec::new());
    register(&app, "big", &agent.url, "tok", 1).await;
    let mut served = serde_json::Value::Null;
    for call in 0..5 {
        for i in 0..6 {
            agent.push(big(call * 6 + i));
        }
        if call > 0 {
            tokio::time::sleep(Duration::from_millis(1100)).await;
        }
        let r = gpus(&app, &app.admin_token, "big", Some(0)).await;
        assert_eq!(
            view(&r.body, "big")["state"]["status"],
            "live",
            "{}",
            r.text
        );
        served = view(&r.body, "big").clone();
    }
    assert_eq!(agent.calls(), 5);
    let history = &served["snapshot"]["history"];
    let bytes = history.to_string().len();
    assert!(
        bytes <= MAX_HISTORY_BYTES,
        "since=0 served {bytes} bytes of history"
    );
    let at = history_at(&served);
    let fit = (MAX_HISTORY_BYTES / mb) as i64;
    assert!(
        (fit - 1..=fit).contains(&(at.len() as i64)),
        "{} samples kept",
        at.len()
    );
    // The newest are kept, the oldest dropped.
    assert_eq!(at.last().copied(), Some(t0 + 29 * 100));
    assert!(at[0] > t0, "the oldest went first");
}
