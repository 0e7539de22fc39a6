//! A fake node agent for the tests: a real HTTP server on 127.0.0.1 that serves
//! `GET /v1/gpus[?since=]` like `runlens-agent` (bearer token, latest sample, history after
//! `since`) from samples the test pushes, and counts every call.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use api_types::agent::{DriverStatus, GpuSample, HostSample, NodeSample, NodeSnapshot};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use tokio::sync::oneshot;

/// What the fake agent serves and what it saw.
struct Shared {
    node: String,
    token: String,
    calls: AtomicUsize,
    sinces: Mutex<Vec<Option<i64>>>,
    samples: Mutex<Vec<NodeSample>>,
    delay: Mutex<Duration>,
}

/// A running fake agent; stopped on drop.
pub struct FakeAgent {
    /// Its base URL, `http://127.0.0.1:PORT`.
    pub url: String,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

#[derive(Deserialize)]
struct GpusQuery {
    since: Option<i64>,
}

/// A sample at `at_ms` with one GPU at `util` % (it lists one process, as a real agent's
/// newest sample does).
pub fn sample(at_ms: i64, util: u32) -> NodeSample {
    NodeSample {
        at_ms,
        gpus: vec![GpuSample {
            index: 0,
            name: Some("Simulated H100".into()),
            utilization_percent: Some(util),
            memory_used_bytes: Some(1 << 30),
            memory_total_bytes: Some(80 << 30),
            temperature_celsius: Some(60),
            simulated: true,
            ..GpuSample::default()
        }],
        host: HostSample::default(),
    }
}

async fn gpus(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    Query(q): Query<GpusQuery>,
) -> Response {
    s.calls.fetch_add(1, Ordering::SeqCst);
    s.sinces.lock().unwrap().push(q.since);
    let delay = *s.delay.lock().unwrap();
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let want = format!("Bearer {}", s.token);
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(want.as_str()) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let samples = s.samples.lock().unwrap().clone();
    let latest = samples.last().cloned();
    let history = match q.since {
        Some(since) => samples.into_iter().filter(|x| x.at_ms > since).collect(),
        None => Vec::new(),
    };
    Json(NodeSnapshot {
        node: s.node.clone(),
        driver: DriverStatus::Available { version: None },
        simulated: true,
        at_ms: latest.as_ref().map(|l| l.at_ms),
        gpus: latest.as_ref().map(|l| l.gpus.clone()).unwrap_or_default(),
        host: latest.map(|l| l.host),
        history,
    })
    .into_response()
}

impl FakeAgent {
    /// Starts an agent for `node` requiring `token`, holding one sample taken now.
    pub async fn start(node: &str, token: &str) -> FakeAgent {
        let shared = Arc::new(Shared {
            node: node.into(),
            token: token.into(),
            calls: AtomicUsize::new(0),
            sinces: Mutex::new(Vec::new()),
            samples: Mutex::new(vec![sample(server::util::now_ms(), 50)]),
            delay: Mutex::new(Duration::ZERO),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let app = Router::new()
            .route("/v1/gpus", get(gpus))
            .with_state(shared.clone());
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await
                .expect("serve");
        });
        FakeAgent {
            url,
            shared,
            stop: Some(tx),
            task: Some(task),
        }
    }

    /// How many calls it has answered (or begun answering).
    pub fn calls(&self) -> usize {
        self.shared.calls.load(Ordering::SeqCst)
    }

    /// The `since` of every call, in order.
    pub fn sinces(&self) -> Vec<Option<i64>> {
        self.shared.sinces.lock().unwrap().clone()
    }

    /// Replaces its samples.
    pub fn set_samples(&self, samples: Vec<NodeSample>) {
        *self.shared.samples.lock().unwrap() = samples;
    }

    /// Appends a sample (newer than the others).
    pub fn push(&self, s: NodeSample) {
        self.shared.samples.lock().unwrap().push(s);
    }

    /// Makes every answer wait this long first.
    pub fn set_delay(&self, d: Duration) {
        *self.shared.delay.lock().unwrap() = d;
    }

    /// Stops listening and closes its connections: later calls are refused.
    pub async fn stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
        }
    }
}

impl Drop for FakeAgent {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}
