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
pub const MAX_SAMPLES: usize = 7200;
/// How long one agent call may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3);

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
    /// Samples, oldest first, strictly increasing `at_ms`, at most [`MAX_SAMPLES`] and
    /// [`HISTORY_MS`] from the newest; only the newest keeps its GPU processes.
    ring: VecDeque<NodeSample>,
}

impl Default for Poller {
    fn default() -> Self {
        Poller::new(DEFAULT_TIMEOUT)
    }
}

impl Poller {
    /// A poller whose agent calls time out after `timeout`, trusting the system's CA roots
    /// for agents served over https.
    pub fn new(timeout: Duration) -> Self {
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
    pub async fn views(&self, nodes: &[NodeRecord], since: Option<i64>) -> Vec<NodeView> {
        join_all(nodes.iter().map(|n| self.view(n, since))).await
    }

    /// Drops what is cached for node `name` (it was removed from the registry).
    pub fn forget(&self, name: &str) {
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
            let from = st
                .ring
                .back()
                .map(|s| s.at_ms)
                .unwrap_or_else(|| now_ms() - HISTORY_MS);
            match self.fetch(node, from).await {
                Ok(snapshot) => {
                    st.absorb(snapshot);
                    st.error = None;
                    st.last_seen_ms = Some(now_ms());
                }
                Err(reason) => {
                    tracing::debug!(node = %node.name, %reason, "node agent unreachable");
                    st.error = Some(reason);
                }
            }
            st.checked = Some(Instant::now());
        }
        st.view(&node.name, since)
    }

    /// One call to the agent: `GET {url}/v1/gpus?since=` with its bearer token. The error
    /// is a reason for a person; it never names the URL or the token.
    async fn fetch(&self, node: &NodeRecord, since: i64) -> Result<NodeSnapshot, String> {
        let call = async {
            let resp = self
                .client
                .get(format!("{}/v1/gpus", node.url))
                .query(&[("since", since)])
                .bearer_auth(node.token.expose())
                .send()
                .await
                .map_err(|e| self.reason(e))?;
            let status = resp.status();
            if !status.is_success() {
                return Err(format!("agent answered {}", status.as_u16()));
            }
            resp.json::<NodeSnapshot>().await.map_err(|e| {
                if e.is_decode() {
                    "the agent's answer is not a GPU snapshot".to_string()
                } else {
                    self.reason(e)
                }
            })
        };
        tokio::time::timeout(self.timeout, call)
            .await
            .unwrap_or_else(|_| Err(self.timed_out()))
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
            if sample.at_ms <= newest.at_ms {
                return;
            }
            // As the agent's own ring: only the newest sample lists processes.
            for gpu in &mut newest.gpus {
                gpu.processes = None;
            }
        }
        let cutoff = sample.at_ms - HISTORY_MS;
        self.ring.push_back(sample);
        while self.ring.len() > MAX_SAMPLES || self.ring.front().is_some_and(|s| s.at_ms <= cutoff)
        {
            self.ring.pop_front();
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
                let start = self.ring.partition_point(|x| x.at_ms <= since);
                s.history = self.ring.range(start..).cloned().collect();
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
pub fn unknown(name: &str) -> NodeView {
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
        let at: Vec<i64> = st.ring.iter().map(|s| s.at_ms).collect();
        assert_eq!(at, [1, 2, 3, 4]);
        let with_processes = st
            .ring
            .iter()
            .filter(|s| s.gpus[0].processes.is_some())
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
            st.ring.front().unwrap().at_ms > 20_000,
            "older than 2 h dropped"
        );
    }
}
