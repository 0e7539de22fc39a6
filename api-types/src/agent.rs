//! Wire types of the node agent (`runlens-agent`): what `GET /v1/gpus` answers.
//!
//! Every GPU field is optional and absent from the JSON when the agent could not read it
//! (the GPU does not support it, or that one NVML call failed): the other fields are still
//! reported. Timestamps are Unix milliseconds.

use serde::{Deserialize, Serialize};

/// The query of `GET /v1/gpus`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpusQuery {
    /// Return the history strictly after this time (Unix ms), for back-fill; without it the
    /// answer carries no history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
}

/// One node's answer: the latest sample per GPU and of the host, plus history on request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeSnapshot {
    /// The node's name (`--node-name`).
    pub node: String,
    /// Whether the NVIDIA driver (libnvidia-ml) could be used on this node.
    pub driver: DriverStatus,
    /// True when the GPUs are simulated (`--simulate-gpus`): a badge, never real data.
    pub simulated: bool,
    /// When the latest sample was taken (Unix ms); absent before the first sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<i64>,
    /// The latest sample of each GPU, in index order (empty without a driver).
    pub gpus: Vec<GpuSample>,
    /// The latest host sample; absent before the first sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<HostSample>,
    /// The samples taken after the query's `since`, oldest first (empty without `since`).
    /// Only the newest of them lists GPU processes.
    pub history: Vec<NodeSample>,
}

/// Whether the agent could use NVML on its node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum DriverStatus {
    /// NVML answered (or the GPUs are simulated).
    Available {
        /// The driver's version, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        version: Option<String>,
    },
    /// NVML could not be loaded or initialised: the node serves host metrics only.
    Missing {
        /// Why, for a person: e.g. "NVML not found: install the NVIDIA driver".
        reason: String,
    },
}

/// Everything sampled on a node at one moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeSample {
    /// When the sample was taken (Unix ms).
    pub at_ms: i64,
    /// Each GPU, in index order.
    pub gpus: Vec<GpuSample>,
    /// The host.
    pub host: HostSample,
}

/// One GPU at one moment. A field the agent could not read is `None` (absent on the wire).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuSample {
    /// The NVML index of the GPU on its node (0-based).
    pub index: u32,
    /// The product name, e.g. "NVIDIA H100 80GB HBM3".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The GPU's UUID, e.g. "GPU-5b0f…".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Percent of the last sample period during which a kernel ran (0–100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utilization_percent: Option<u32>,
    /// Device memory in use, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_used_bytes: Option<u64>,
    /// Device memory in all, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_total_bytes: Option<u64>,
    /// Core temperature, °C.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature_celsius: Option<u32>,
    /// Power draw, watts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_draw_watts: Option<f64>,
    /// Enforced power limit, watts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_limit_watts: Option<f64>,
    /// The compute processes using the GPU; absent when they could not be listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processes: Option<Vec<GpuProcess>>,
    /// True when this GPU is simulated.
    #[serde(default)]
    pub simulated: bool,
}

/// A process using a GPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuProcess {
    /// The process id on the node.
    pub pid: u32,
    /// The process name (`/proc/PID/comm`), when readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Device memory the process uses, bytes, when the driver reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_used_bytes: Option<u64>,
}

/// The host (CPU, memory, disk, network) at one moment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostSample {
    /// CPU use over all cores since the previous sample, percent (0–100).
    pub cpu_percent: f64,
    /// Memory in use, bytes.
    pub memory_used_bytes: u64,
    /// Memory in all, bytes.
    pub memory_total_bytes: u64,
    /// Space in use on the local disks, bytes.
    pub disk_used_bytes: u64,
    /// Space in all on the local disks, bytes.
    pub disk_total_bytes: u64,
    /// Bytes received per second over all interfaces since the previous sample.
    pub net_rx_bytes_per_sec: f64,
    /// Bytes sent per second over all interfaces since the previous sample.
    pub net_tx_bytes_per_sec: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unread_fields_are_absent_and_driver_is_tagged() {
        let gpu = GpuSample {
            index: 0,
            name: Some("A".into()),
            ..GpuSample::default()
        };
        let json = serde_json::to_value(&gpu).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"index": 0, "name": "A", "simulated": false})
        );
        let missing = DriverStatus::Missing {
            reason: "NVML not found".into(),
        };
        assert_eq!(
            serde_json::to_value(&missing).unwrap(),
            serde_json::json!({"status": "missing", "reason": "NVML not found"})
        );
    }

    #[test]
    fn snapshot_round_trips() {
        let snap = NodeSnapshot {
            node: "n1".into(),
            driver: DriverStatus::Available {
                version: Some("550.54".into()),
            },
            simulated: false,
            at_ms: Some(5),
            gpus: vec![GpuSample {
                index: 1,
                temperature_celsius: Some(60),
                processes: Some(vec![GpuProcess {
                    pid: 7,
                    name: None,
                    memory_used_bytes: Some(1),
                }]),
                ..GpuSample::default()
            }],
            host: Some(HostSample::default()),
            history: vec![NodeSample {
                at_ms: 5,
                gpus: vec![],
                host: HostSample::default(),
            }],
        };
        let text = serde_json::to_string(&snap).unwrap();
        assert_eq!(serde_json::from_str::<NodeSnapshot>(&text).unwrap(), snap);
    }
}
