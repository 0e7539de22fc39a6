//! On-demand polling of node agents: one cache entry per node (the latest snapshot, a
//! 2 h history ring, reachability), refreshed at most once per node interval however many
//! requests ask, and only while requests ask (see the module documentation of `nodes`).

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use api_types::agent::{NodeSample, NodeSnapshot};
use api_types::nodes::{NodeState, NodeView};
use futures_util::future::join_all;

use super::registry::NodeRecord;
use crate::util::now_ms;

/// How much history the server keeps per node: 2 h.
pub const HISTORY_MS: i64 = 2 * 3600 * 1000;
/// Most samples kept per node: 2 h at the shortest interval (1 s).
pub(crate) const MAX_SAMPLES: usize = 7200;
/// How long one agent call may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3);
/// Largest answer read from an agent; a longer one is refused (the node shows as
/// unreachable with the reason) and the bytes read so far are let go. A sample of 8 GPUs
/// with every field is about 2.5 KB of JSON (about 280 B a GPU, 250 B of host metrics), so
/// the 2 h that a first call asks for are about 1.8 MB at the agent's default 10 s
/// interval (3.5 MB with 16 GPUs): 8 MiB holds that with room. At 1 s intervals 2 h of
/// 8 GPUs are about 18 MB: such a back-fill is refused, and the next calls ask for half
/// as long each time until it fits (see `MIN_BACKFILL_MS`).
pub const MAX_ANSWER_BYTES: usize = 8 << 20;
/// Most bytes of samples (counted as JSON) kept per node, beside `MAX_SAMPLES`: 2 h of
/// an 8-GPU node at 1 s (about 18 MB) with room; the oldest go first. This is also the
/// most history one answer of the server holds for a node.
pub const MAX_HISTORY_BYTES: usize = 24 << 20;
/// The shortest back-fill asked for after answers too large to read: the back-fill (2 h)
/// is halved after each, down to this.
pub(crate) const MIN_BACKFILL_MS: i64 = 60_000;

/// Polls agents on demand and keeps, per node, its latest answer and 2 h of samples.
pub struct Poller {
    client: reqwest::Client,
    timeout: Duration,
    caches: Mutex<HashMap<String, Arc<NodeCache>>>,
}

/// One node's cache entry. `state`'s async mutex is held across the agent call, so
/// concurrent requests for the node wait for that one call (single flight).
#[derive(Default)]
struct NodeCache {
    /// When a request last asked for this node (Unix ms): entries idle for the history's
    /// length are dropped.
    last_asked_ms: AtomicI64,
    state: tokio::sync::Mutex<CacheState>,
}

#[derive(Default)]
struct CacheState {
    /// When the last agent call ended (success or not); `None` before the first.
    checked: Option<Instant>,
    /// Why the last call failed; `None` when it succeeded.
    error: Option<String>,
    /// When the agent last answered (Unix ms).
    last_seen_ms: Option<i64>,
    /// The agent's last answer, its `history` emptied (the ring holds it).
    latest: Option<NodeSnapshot>,
    /// Samples, oldest first, strictly increasing `at_ms`, at most [`MAX_SAMPLES`],
    /// [`MAX_HISTORY_BYTES`] and [`HISTORY_MS`] from the newest; only the newest keeps its
    /// GPU processes.
    ring: VecDeque<Held>,
    /// The ring's samples' bytes (as JSON).
    ring_bytes: usize,
    /// How far back to ask for while the ring is empty; `None`: [`HISTORY_MS`]. Halved
    /// after each answer too large to read.
    backfill_ms: Option<i64>,
}

/// A sample in the ring, with its size as JSON.
struct Held {
    sample: NodeSample,
    bytes: usize,
}

/// Why an agent call failed.
#[derive(Debug, thiserror::Error)]
enum CallError {
    /// The answer went over [`MAX_ANSWER_BYTES`].
    #[error("the agent's answer is larger than the limit of {} MiB", MAX_ANSWER_BYTES >> 20)]
    TooLarge,
    /// Anything else, as a reason for a person.
    #[error("{0}")]
    Failed(String),
}

/// The size of `value` as JSON, without writing it anywhere.
fn json_len(value: &impl serde::Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            self.0 += data.len();
            Ok(data.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Serializing these plain structs into a counter cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

impl Default for Poller {
    fn default() -> Self {
        Poller::new(DEFAULT_TIMEOUT)
    }
}

impl Poller {
    /// A poller whose agent calls time out after `timeout`, trusting the system's CA roots
    /// for agents served over https.
    pub(crate) fn new(timeout: Duration) -> Self {
        Poller::with_ca(timeout, None).unwrap_or_else(|e| {
            tracing::error!("HTTP client for node agents: {e}; using the default one");
            Poller::over(reqwest::Client::new(), timeout)
        })
    }

    /// A poller whose agent calls time out after `timeout`, trusting the system's CA roots
    /// and the certificates of the PEM file `ca_cert` (agents served with a private CA).
    /// Calls go straight to the agent (no proxy from the environment, which would see the
    /// agent's token) and follow no redirects. An unreadable CA file: the error names it.
    pub fn with_ca(timeout: Duration, ca_cert: Option<&Path>) -> Result<Self, net::NetError> {
        let client = net::client_builder(ca_cert)?
            .no_proxy()
            .connect_timeout(timeout)
            .timeout(timeout)
            .user_agent(concat!("runlens/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| net::NetError::Tls(net::describe(&e)))?;
        Ok(Poller::over(client, timeout))
    }

    fn over(client: reqwest::Client, timeout: Duration) -> Self {
        Poller {
            client,
            timeout,
            caches: Mutex::new(HashMap::new()),
        }
    }

    /// What the server knows of each of `nodes` now, in order, refreshing those whose
    /// interval has passed (concurrently, so one slow agent holds up no other node).
    /// Each snapshot's `history` holds the samples after `since` (none without it).
    pub(crate) async fn views(&self, nodes: &[NodeRecord], since: Option<i64>) -> Vec<NodeView> {
        join_all(nodes.iter().map(|n| self.view(n, since))).await
    }

    /// Drops what is cached for node `name` (it was removed from the registry).
    pub(crate) fn forget(&self, name: &str) {
        self.lock_caches().remove(name);
    }

    fn lock_caches(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<NodeCache>>> {
        self.caches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The cache entry of `name`, marked as asked for now; drops entries nobody asked for
    /// within the history's length.
    fn cache(&self, name: &str) -> Arc<NodeCache> {
        let now = now_ms();
        let mut caches = self.lock_caches();
        caches.retain(|_, c| now - c.last_asked_ms.load(Ordering::Relaxed) < HISTORY_MS);
        let entry = caches.entry(name.to_string()).or_default().clone();
        entry.last_asked_ms.store(now, Ordering::Relaxed);
        entry
    }

    async fn view(&self, node: &NodeRecord, since: Option<i64>) -> NodeView {
        let cache = self.cache(&node.name);
        let mut st = cache.state.lock().await;
        let interval = Duration::from_secs(node.interval_secs.max(1));
        if st.checked.is_none_or(|t| t.elapsed() >= interval) {
            let from = st.ring.back().map_or_else(
                || now_ms() - st.backfill_ms.unwrap_or(HISTORY_MS),
                |h| h.sample.at_ms,
            );
            match self.fetch(node, from).await {
                Ok(snapshot) => {
                    st.absorb(snapshot);
                    st.error = None;
                    st.last_seen_ms = Some(now_ms());
                }
                Err(e) => {
                    if matches!(e, CallError::TooLarge) {
                        let half = st.backfill_ms.unwrap_or(HISTORY_MS) / 2;
                        st.backfill_ms = Some(half.max(MIN_BACKFILL_MS));
                    }
                    let reason = e.to_string();
                    tracing::debug!(node = %node.name, %reason, "node agent unreachable");
                    st.error = Some(reason);
                }
            }
            st.checked = Some(Instant::now());
        }
        st.view(&node.name, since)
    }

    /// One call to the agent: `GET {url}/v1/gpus?since=` with its bearer token, its answer
    /// read up to [`MAX_ANSWER_BYTES`]. The error is a reason for a person; it never names
    /// the URL or the token.
    async fn fetch(&self, node: &NodeRecord, since: i64) -> Result<NodeSnapshot, CallError> {
        let call = async {
            let resp = self
                .client
                .get(format!("{}/v1/gpus", node.url))
                .query(&[("since", since)])
                .bearer_auth(node.token.expose())
                .send()
                .await
                .map_err(|e| self.failed(e))?;
            let status = resp.status();
            if !status.is_success() {
                return Err(CallError::Failed(format!(
                    "agent answered {}",
                    status.as_u16()
                )));
            }
            let body = self.read_capped(resp).await?;
            serde_json::from_slice::<NodeSnapshot>(&body).map_err(|_| {
                CallError::Failed("the agent's answer is not a GPU snapshot".to_string())
            })
        };
        tokio::time::timeout(self.timeout, call)
            .await
            .unwrap_or_else(|_| Err(CallError::Failed(self.timed_out())))
    }

    /// The body of `resp`, read a chunk at a time; refused as soon as it (or its declared
    /// length) goes over [`MAX_ANSWER_BYTES`].
    async fn read_capped(&self, mut resp: reqwest::Response) -> Result<Vec<u8>, CallError> {
        if resp
            .content_length()
            .is_some_and(|n| n > MAX_ANSWER_BYTES as u64)
        {
            return Err(CallError::TooLarge);
        }
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| self.failed(e))? {
            if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(CallError::TooLarge);
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    fn failed(&self, e: reqwest::Error) -> CallError {
        CallError::Failed(self.reason(e))
    }

    fn timed_out(&self) -> String {
        let ms = self.timeout.as_millis();
        if ms.is_multiple_of(1000) {
            format!("timed out after {} s", ms / 1000)
        } else {
            format!("timed out after {ms} ms")
        }
    }

    fn reason(&self, e: reqwest::Error) -> String {
        if e.is_timeout() {
            return self.timed_out();
        }
        let e = e.without_url();
        let mut root: &dyn std::error::Error = &e;
        while let Some(next) = root.source() {
            root = next;
        }
        if e.is_connect() {
            format!("cannot connect: {root}")
        } else {
            format!("request failed: {root}")
        }
    }
}

impl CacheState {
    /// Takes in an agent's answer: new samples (after the newest held) into the ring, the
    /// rest as the latest snapshot.
    fn absorb(&mut self, mut snapshot: NodeSnapshot) {
        let mut history = std::mem::take(&mut snapshot.history);
        history.sort_by_key(|s| s.at_ms);
        for sample in history {
            self.push(sample);
        }
        if let (Some(at_ms), Some(host)) = (snapshot.at_ms, &snapshot.host) {
            self.push(NodeSample {
                at_ms,
                gpus: snapshot.gpus.clone(),
                host: host.clone(),
            });
        }
        self.latest = Some(snapshot);
    }

    /// Appends a sample newer than every one held, then trims to the bounds.
    fn push(&mut self, sample: NodeSample) {
        if let Some(newest) = self.ring.back_mut() {
            if sample.at_ms <= newest.sample.at_ms {
                return;
            }
            // As the agent's own ring: only the newest sample lists processes.
            if newest.sample.gpus.iter().any(|g| g.processes.is_some()) {
                for gpu in &mut newest.sample.gpus {
                    gpu.processes = None;
                }
                let bytes = json_len(&newest.sample);
                self.ring_bytes = self.ring_bytes - newest.bytes + bytes;
                newest.bytes = bytes;
            }
        }
        let cutoff = sample.at_ms - HISTORY_MS;
        let bytes = json_len(&sample);
        self.ring_bytes += bytes;
        self.ring.push_back(Held { sample, bytes });
        while self.ring.len() > MAX_SAMPLES
            || self.ring_bytes > MAX_HISTORY_BYTES
            || self.ring.front().is_some_and(|h| h.sample.at_ms <= cutoff)
        {
            let Some(oldest) = self.ring.pop_front() else {
                break;
            };
            self.ring_bytes -= oldest.bytes;
        }
    }

    fn view(&self, name: &str, since: Option<i64>) -> NodeView {
        let state = match &self.error {
            None => NodeState::Live,
            Some(reason) => NodeState::Unreachable {
                reason: reason.clone(),
            },
        };
        let snapshot = self.latest.clone().map(|mut s| {
            if let Some(since) = since {
                let start = self.ring.partition_point(|h| h.sample.at_ms <= since);
                s.history = self.ring.range(start..).map(|h| h.sample.clone()).collect();
            }
            s
        });
        NodeView {
            node: name.to_string(),
            state,
            last_seen_ms: self.last_seen_ms,
            snapshot,
        }
    }
}

/// The view of a node that is not (or no longer) registered.
pub(crate) fn unknown(name: &str) -> NodeView {
    NodeView {
        node: name.to_string(),
        state: NodeState::Unknown,
        last_seen_ms: None,
        snapshot: None,
    }
}

#[cfg(test)]
mod tests {
    use api_types::agent::{DriverStatus, GpuProcess, GpuSample, HostSample};

    use super::*;

    fn sample(at_ms: i64) -> NodeSample {
        NodeSample {
            at_ms,
            gpus: vec![GpuSample {
                index: 0,
                processes: Some(vec![GpuProcess {
                    pid: 1,
                    name: None,
                    memory_used_bytes: None,
                }]),
                ..GpuSample::default()
            }],
            host: HostSample::default(),
        }
    }

    fn snapshot(history: Vec<NodeSample>) -> NodeSnapshot {
        let latest = history.last().cloned();
        NodeSnapshot {
            node: "n".into(),
            driver: DriverStatus::Available { version: None },
            simulated: true,
            at_ms: latest.as_ref().map(|s| s.at_ms),
            gpus: latest.as_ref().map(|s| s.gpus.clone()).unwrap_or_default(),
            host: latest.map(|s| s.host),
            history,
        }
    }

    #[test]
    fn the_ring_is_ordered_deduplicated_and_bounded() {
        let mut st = CacheState::default();
        st.absorb(snapshot(vec![sample(3), sample(1), sample(2)]));
        st.absorb(snapshot(vec![sample(2), sample(3), sample(4)]));
        let at: Vec<i64> = st.ring.iter().map(|h| h.sample.at_ms).collect();
        assert_eq!(at, [1, 2, 3, 4]);
        let with_processes = st
            .ring
            .iter()
            .filter(|h| h.sample.gpus[0].processes.is_some())
            .count();
        assert_eq!(with_processes, 1, "only the newest lists processes");
        let view = st.view("n", Some(2));
        let history: Vec<i64> = view
            .snapshot
            .unwrap()
            .history
            .iter()
            .map(|s| s.at_ms)
            .collect();
        assert_eq!(history, [3, 4]);
        assert!(st.view("n", None).snapshot.unwrap().history.is_empty());

        let many: Vec<NodeSample> = (10..10 + MAX_SAMPLES as i64 + 50).map(sample).collect();
        st.absorb(snapshot(many));
        assert_eq!(st.ring.len(), MAX_SAMPLES);
        st.absorb(snapshot(vec![sample(HISTORY_MS + 20_000)]));
        assert!(
            st.ring.front().unwrap().sample.at_ms > 20_000,
            "older than 2 h dropped"
        );
        let bytes: usize = st.ring.iter().map(|h| json_len(&h.sample)).sum();
        assert_eq!(st.ring_bytes, bytes, "the byte count follows the ring");
    }

    #[test]
    fn the_ring_keeps_the_newest_samples_within_its_bytes() {
        let big = |at_ms: i64| {
            let mut s = sample(at_ms);
            s.gpus[0].name = Some("g".repeat(100_000));
            s
        };
        let mut st = CacheState::default();
        let per = json_len(&big(1));
        let n = (MAX_HISTORY_BYTES / per) as i64 + 50;
        st.absorb(snapshot((1..=n).map(big).collect()));
        assert!(st.ring_bytes <= MAX_HISTORY_BYTES, "{}", st.ring_bytes);
        let fit = MAX_HISTORY_BYTES / per;
        assert!(
            (fit - 1..=fit).contains(&st.ring.len()),
            "{}",
            st.ring.len()
        );
        assert_eq!(st.ring.back().unwrap().sample.at_ms, n, "the newest kept");
        let served = st.view("n", Some(0)).snapshot.unwrap().history;
        assert!(json_len(&served) <= MAX_HISTORY_BYTES);
        let bytes: usize = st.ring.iter().map(|h| json_len(&h.sample)).sum();
        assert_eq!(st.ring_bytes, bytes);
    }
}
