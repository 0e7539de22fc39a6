//! The node's state (identity, driver, history) and the sampling loop that fills it.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use api_types::agent::{DriverStatus, NodeSample, NodeSnapshot};

use crate::gpu::{sample_gpus, GpuSource};
use crate::host::{HostSampler, NetworkTotals};
use crate::ring::Ring;

/// What the agent knows about its node: who it is and the last samples.
#[derive(Debug)]
pub struct Node {
    /// The node's name (`--node-name`).
    pub name: String,
    /// Whether NVML is usable.
    pub driver: DriverStatus,
    /// True when the GPUs are simulated.
    pub simulated: bool,
    /// The history, newest last.
    pub ring: Ring,
}

/// The node shared between the sampling thread and the HTTP handlers.
pub type SharedNode = Arc<RwLock<Node>>;

impl Node {
    /// The latest sample, plus the history after `since` when given.
    pub fn snapshot(&self, since: Option<i64>) -> NodeSnapshot {
        let latest = self.ring.latest();
        NodeSnapshot {
            node: self.name.clone(),
            driver: self.driver.clone(),
            simulated: self.simulated,
            at_ms: latest.map(|s| s.at_ms),
            gpus: latest.map(|s| s.gpus.clone()).unwrap_or_default(),
            host: latest.map(|s| s.host.clone()),
            history: since.map(|ms| self.ring.since(ms)).unwrap_or_default(),
        }
    }
}

/// Reads a shared node, even after a panic elsewhere (the data is plain values).
pub fn read(node: &SharedNode) -> std::sync::RwLockReadGuard<'_, Node> {
    node.read().unwrap_or_else(PoisonError::into_inner)
}

/// The current time in Unix milliseconds.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Takes node samples from a GPU source and the host.
pub struct Sampler {
    gpus: Box<dyn GpuSource>,
    host: HostSampler,
}

impl Sampler {
    /// A sampler over `gpus` and this host.
    pub fn new(gpus: Box<dyn GpuSource>) -> Self {
        Self {
            gpus,
            host: HostSampler::new(),
        }
    }

    /// An empty node named `name`, described by this sampler's source.
    pub fn node(&self, name: String, capacity: usize) -> Node {
        Node {
            name,
            driver: self.gpus.driver(),
            simulated: self.gpus.simulated(),
            ring: Ring::new(capacity),
        }
    }

    /// One sample of every GPU and the host, stamped `at_ms`.
    pub fn sample(&mut self, at_ms: i64) -> NodeSample {
        self.gpus.advance(at_ms);
        NodeSample {
            at_ms,
            gpus: sample_gpus(self.gpus.as_ref()),
            host: self.host.sample(),
        }
    }

    /// Bytes received and sent since this sampler was made, as of the last sample.
    pub fn network_totals(&self) -> NetworkTotals {
        self.host.network_totals()
    }

    /// Samples into `node` every `interval` from one interval from now, on its own thread
    /// (NVML calls block), for the life of the process. The lock is held only to append.
    pub fn spawn(self, node: SharedNode, interval: Duration) -> std::io::Result<()> {
        self.spawn_each(interval, move |sample, _| {
            node.write()
                .unwrap_or_else(PoisonError::into_inner)
                .ring
                .push(sample);
            true
        })
    }

    /// Takes a sample every `interval`, from one interval from now, on its own thread (NVML
    /// calls block) and hands it to `each` with the sampler; stops when `each` says false.
    pub fn spawn_each<F>(mut self, interval: Duration, mut each: F) -> std::io::Result<()>
    where
        F: FnMut(NodeSample, &Sampler) -> bool + Send + 'static,
    {
        std::thread::Builder::new()
            .name("sampler".into())
            .spawn(move || {
                let mut next = Instant::now();
                loop {
                    // Fixed-rate ticks: a slow sample does not shift the later ones.
                    next += interval;
                    let now = Instant::now();
                    std::thread::sleep(next.saturating_duration_since(now));
                    if next < now {
                        next = now;
                    }
                    let sample = self.sample(now_ms());
                    if !each(sample, &self) {
                        break;
                    }
                }
            })
            .map(drop)
    }
}

pub use api_types::nodes::{is_valid_node_name as valid_node_name, MAX_NODE_NAME};

/// This machine's host name (`uname -n`), the default node name of `run`.
pub fn hostname() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names() {
        for ok in ["gpu-node-1", "a", "n.example_2", &"x".repeat(128)] {
            assert!(valid_node_name(ok), "{ok}");
        }
        for bad in [
            "",
            "a b",
            "a/b",
            "é",
            "a:b",
            ".",
            "..",
            "gpus",
            &"x".repeat(129),
        ] {
            assert!(!valid_node_name(bad), "{bad}");
        }
        assert!(!hostname().is_empty());
    }
}
