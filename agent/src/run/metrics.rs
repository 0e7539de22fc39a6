//! Node samples as MLflow system metrics (`system/<node>/<name>`, MLflow's names and units,
//! plus `gpu_{i}_temperature_celsius`), and the bounded backlog of metrics not yet logged.

use std::collections::VecDeque;

use api_types::agent::NodeSample;
use serde::Serialize;

use crate::host::NetworkTotals;

/// One metric as `runs/log-batch` takes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metric {
    /// The key, e.g. `system/gpu-node-1/gpu_0_utilization_percentage`.
    pub key: String,
    /// The value.
    pub value: f64,
    /// When it was sampled (Unix ms).
    pub timestamp: i64,
    /// The sample's number, 0, 1, 2, ... like MLflow's monitor.
    pub step: i64,
}

/// MLflow's megabytes are 10^6 bytes.
fn megabytes(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// One decimal, as MLflow's monitor rounds its averages.
fn round1(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

/// `part` of `whole` in percent (0 when `whole` is 0).
fn percent(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part / whole * 100.0
    } else {
        0.0
    }
}

/// The system metrics of one sample of node `node`: host (CPU, memory, disk, network since
/// the start of the run) and, per GPU, each field it reported (a field the GPU could not
/// read has no metric, the others are kept).
pub fn system_metrics(
    node: &str,
    sample: &NodeSample,
    network: NetworkTotals,
    step: i64,
) -> Vec<Metric> {
    let mut out = Vec::with_capacity(8 + 6 * sample.gpus.len());
    let mut push = |name: &str, value: f64| {
        out.push(Metric {
            key: format!("system/{node}/{name}"),
            value,
            timestamp: sample.at_ms,
            step,
        });
    };
    let host = &sample.host;
    let (memory_used, memory_total) = (host.memory_used_bytes, host.memory_total_bytes);
    let (disk_used, disk_total) = (host.disk_used_bytes, host.disk_total_bytes);
    push("cpu_utilization_percentage", round1(host.cpu_percent));
    push(
        "system_memory_usage_megabytes",
        round1(megabytes(memory_used)),
    );
    push(
        "system_memory_usage_percentage",
        round1(percent(memory_used as f64, memory_total as f64)),
    );
    push(
        "disk_usage_percentage",
        round1(percent(disk_used as f64, disk_total as f64)),
    );
    push("disk_usage_megabytes", round1(megabytes(disk_used)));
    push(
        "disk_available_megabytes",
        round1(megabytes(disk_total.saturating_sub(disk_used))),
    );
    // Not rounded, like MLflow's network monitor.
    push(
        "network_receive_megabytes",
        megabytes(network.received_bytes),
    );
    push(
        "network_transmit_megabytes",
        megabytes(network.transmitted_bytes),
    );
    for gpu in &sample.gpus {
        let i = gpu.index;
        if let Some(util) = gpu.utilization_percent {
            push(&format!("gpu_{i}_utilization_percentage"), f64::from(util));
        }
        if let Some(used) = gpu.memory_used_bytes {
            push(
                &format!("gpu_{i}_memory_usage_megabytes"),
                round1(megabytes(used)),
            );
            if let Some(total) = gpu.memory_total_bytes {
                push(
                    &format!("gpu_{i}_memory_usage_percentage"),
                    round1(percent(used as f64, total as f64)),
                );
            }
        }
        if let Some(watts) = gpu.power_draw_watts {
            push(&format!("gpu_{i}_power_usage_watts"), round1(watts));
            if let Some(limit) = gpu.power_limit_watts {
                push(
                    &format!("gpu_{i}_power_usage_percentage"),
                    round1(percent(watts, limit)),
                );
            }
        }
        if let Some(celsius) = gpu.temperature_celsius {
            push(&format!("gpu_{i}_temperature_celsius"), f64::from(celsius));
        }
    }
    out
}

/// Most metrics one `runs/log-batch` call takes.
pub const MAX_BATCH: usize = 1000;

/// Metrics waiting to be logged, oldest first, at most `capacity`: while the server is
/// down the oldest are dropped (and counted) so memory stays bounded.
#[derive(Debug)]
pub struct Backlog {
    metrics: VecDeque<Metric>,
    capacity: usize,
    dropped: u64,
}

impl Backlog {
    /// An empty backlog of at most `capacity` (at least [`MAX_BATCH`]) metrics.
    pub fn new(capacity: usize) -> Self {
        Self {
            metrics: VecDeque::new(),
            capacity: capacity.max(MAX_BATCH),
            dropped: 0,
        }
    }

    /// Appends `metrics`, dropping the oldest beyond the capacity.
    pub fn push(&mut self, metrics: Vec<Metric>) {
        self.metrics.extend(metrics);
        let over = self.metrics.len().saturating_sub(self.capacity);
        if over > 0 {
            self.metrics.drain(..over);
            self.dropped += over as u64;
        }
    }

    /// The oldest metrics, at most one batch.
    pub fn batch(&self) -> Vec<Metric> {
        self.metrics.iter().take(MAX_BATCH).cloned().collect()
    }

    /// Forgets the oldest `n` metrics (a batch that was logged).
    pub fn logged(&mut self, n: usize) {
        let n = n.min(self.metrics.len());
        self.metrics.drain(..n);
    }

    /// How many metrics wait.
    pub fn len(&self) -> usize {
        self.metrics.len()
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.metrics.is_empty()
    }

    /// How many metrics were dropped because the backlog was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_types::agent::{GpuSample, HostSample};

    const GB: u64 = 1_000_000_000;

    fn sample() -> NodeSample {
        NodeSample {
            at_ms: 1_700_000_000_123,
            gpus: vec![
                GpuSample {
                    index: 0,
                    utilization_percent: Some(87),
                    memory_used_bytes: Some(20 * GB),
                    memory_total_bytes: Some(80 * GB),
                    temperature_celsius: Some(71),
                    power_draw_watts: Some(350.04),
                    power_limit_watts: Some(700.0),
                    ..GpuSample::default()
                },
                // A GPU whose memory and power calls failed.
                GpuSample {
                    index: 1,
                    utilization_percent: Some(3),
                    temperature_celsius: Some(40),
                    ..GpuSample::default()
                },
            ],
            host: HostSample {
                cpu_percent: 31.25,
                memory_used_bytes: 4 * GB,
                memory_total_bytes: 16 * GB,
                disk_used_bytes: 300 * GB,
                disk_total_bytes: 1000 * GB,
                net_rx_bytes_per_sec: 1.0,
                net_tx_bytes_per_sec: 1.0,
            },
        }
    }

    #[test]
    fn mlflow_names_units_and_node_prefix() {
        let network = NetworkTotals {
            received_bytes: 2_500_000,
            transmitted_bytes: 1_234_567,
        };
        let metrics = system_metrics("gpu-a", &sample(), network, 7);
        let got: Vec<(String, f64)> = metrics
            .iter()
            .map(|m| {
                (
                    m.key.trim_start_matches("system/gpu-a/").to_owned(),
                    m.value,
                )
            })
            .collect();
        let want: Vec<(&str, f64)> = vec![
            ("cpu_utilization_percentage", 31.3),
            ("system_memory_usage_megabytes", 4000.0),
            ("system_memory_usage_percentage", 25.0),
            ("disk_usage_percentage", 30.0),
            ("disk_usage_megabytes", 300_000.0),
            ("disk_available_megabytes", 700_000.0),
            ("network_receive_megabytes", 2.5),
            ("network_transmit_megabytes", 1.234567),
            ("gpu_0_utilization_percentage", 87.0),
            ("gpu_0_memory_usage_megabytes", 20_000.0),
            ("gpu_0_memory_usage_percentage", 25.0),
            ("gpu_0_power_usage_watts", 350.0),
            ("gpu_0_power_usage_percentage", 50.0),
            ("gpu_0_temperature_celsius", 71.0),
            ("gpu_1_utilization_percentage", 3.0),
            ("gpu_1_temperature_celsius", 40.0),
        ];
        let want: Vec<(String, f64)> = want.into_iter().map(|(k, v)| (k.into(), v)).collect();
        assert_eq!(got, want);
        assert!(metrics.iter().all(|m| m.key.starts_with("system/gpu-a/")
            && m.step == 7
            && m.timestamp == 1_700_000_000_123));
    }

    #[test]
    fn an_empty_host_gives_zero_percentages_not_nan() {
        let s = NodeSample {
            at_ms: 1,
            gpus: vec![],
            host: HostSample::default(),
        };
        let metrics = system_metrics("n", &s, NetworkTotals::default(), 0);
        assert_eq!(metrics.len(), 8);
        assert!(metrics.iter().all(|m| m.value == 0.0));
    }

    fn metrics(from: i64, n: i64) -> Vec<Metric> {
        (from..from + n)
            .map(|step| Metric {
                key: "k".into(),
                value: 0.0,
                timestamp: 1,
                step,
            })
            .collect()
    }

    #[test]
    fn backlog_batches_oldest_first_and_drops_the_oldest_when_full() {
        let mut b = Backlog::new(1500);
        b.push(metrics(0, 1200));
        let first = b.batch();
        assert_eq!(first.len(), MAX_BATCH);
        assert_eq!((first[0].step, first[999].step), (0, 999));
        b.logged(first.len());
        assert_eq!(b.len(), 200);
        b.push(metrics(1200, 1400));
        assert_eq!((b.len(), b.dropped()), (1500, 100));
        assert_eq!(b.batch()[0].step, 1100);
        b.logged(5000);
        assert!(b.is_empty());
        assert_eq!(Backlog::new(1).capacity, MAX_BATCH);
    }
}
