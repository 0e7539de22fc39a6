//! `/metrics`: the Prometheus text format, with the DCGM exporter's GPU metric names and
//! labels (so existing Grafana dashboards work) and `runlens_host_*` host gauges. No
//! process names.

use std::fmt::Write;

use api_types::agent::{DriverStatus, GpuSample, HostSample};

use crate::node::Node;

/// The content type of the text exposition format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// dcgm-exporter reports framebuffer memory in whole MiB.
fn whole_mib(bytes: u64) -> f64 {
    (bytes >> 20) as f64
}

/// A GPU gauge: DCGM name, help text, and how to read it from a sample.
type GpuGauge = (&'static str, &'static str, fn(&GpuSample) -> Option<f64>);

const GPU_GAUGES: [GpuGauge; 5] = [
    ("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", |g| {
        g.utilization_percent.map(f64::from)
    }),
    (
        "DCGM_FI_DEV_FB_FREE",
        "Framebuffer memory free (in MiB).",
        |g| {
            Some(whole_mib(
                g.memory_total_bytes?.saturating_sub(g.memory_used_bytes?),
            ))
        },
    ),
    (
        "DCGM_FI_DEV_FB_USED",
        "Framebuffer memory used (in MiB).",
        |g| g.memory_used_bytes.map(whole_mib),
    ),
    ("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", |g| {
        g.temperature_celsius.map(f64::from)
    }),
    ("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", |g| {
        g.power_draw_watts
    }),
];

/// A host gauge: name, help text, and how to read it.
type HostGauge = (&'static str, &'static str, fn(&HostSample) -> f64);

const HOST_GAUGES: [HostGauge; 7] = [
    (
        "runlens_host_cpu_percent",
        "CPU use over all cores (in %).",
        |h| h.cpu_percent,
    ),
    (
        "runlens_host_memory_used_bytes",
        "Memory in use (bytes).",
        |h| h.memory_used_bytes as f64,
    ),
    (
        "runlens_host_memory_total_bytes",
        "Memory in all (bytes).",
        |h| h.memory_total_bytes as f64,
    ),
    (
        "runlens_host_disk_used_bytes",
        "Local disk space in use (bytes).",
        |h| h.disk_used_bytes as f64,
    ),
    (
        "runlens_host_disk_total_bytes",
        "Local disk space in all (bytes).",
        |h| h.disk_total_bytes as f64,
    ),
    (
        "runlens_host_network_receive_bytes_per_second",
        "Bytes received per second, all interfaces.",
        |h| h.net_rx_bytes_per_sec,
    ),
    (
        "runlens_host_network_transmit_bytes_per_second",
        "Bytes sent per second, all interfaces.",
        |h| h.net_tx_bytes_per_sec,
    ),
];

/// Escapes a label value for the text format (backslash, quote, newline).
fn escape(value: &str) -> String {
    value
        .replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

fn header(out: &mut String, name: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
}

/// The labels dcgm-exporter puts on every GPU metric.
fn gpu_labels(gpu: &GpuSample, host: &str) -> String {
    format!(
        "gpu=\"{i}\",UUID=\"{uuid}\",device=\"nvidia{i}\",modelName=\"{model}\",Hostname=\"{host}\"",
        i = gpu.index,
        uuid = escape(gpu.uuid.as_deref().unwrap_or_default()),
        model = escape(gpu.name.as_deref().unwrap_or_default()),
    )
}

/// The exposition of the node's latest sample, and how many `GET /v1/gpus` were answered
/// (`gpus_served`). A GPU field that is absent has no line.
pub fn render(node: &Node, gpus_served: u64) -> String {
    let mut out = String::new();
    let host = escape(&node.name);
    let latest = node.ring.latest();
    let gpus = latest.map(|s| s.gpus.as_slice()).unwrap_or_default();
    for (name, help, read) in GPU_GAUGES {
        header(&mut out, name, help);
        for gpu in gpus {
            if let Some(value) = read(gpu) {
                let _ = writeln!(out, "{name}{{{}}} {value}", gpu_labels(gpu, &host));
            }
        }
    }
    if let Some(sample) = latest {
        for (name, help, read) in HOST_GAUGES {
            header(&mut out, name, help);
            let _ = writeln!(out, "{name}{{Hostname=\"{host}\"}} {}", read(&sample.host));
        }
    }
    let driver = u8::from(matches!(node.driver, DriverStatus::Available { .. }));
    header(
        &mut out,
        "runlens_agent_driver_available",
        "1 when NVML is usable.",
    );
    let _ = writeln!(
        out,
        "runlens_agent_driver_available{{Hostname=\"{host}\"}} {driver}"
    );
    header(
        &mut out,
        "runlens_agent_simulated",
        "1 when the GPUs are simulated.",
    );
    let simulated = u8::from(node.simulated);
    let _ = writeln!(
        out,
        "runlens_agent_simulated{{Hostname=\"{host}\"}} {simulated}"
    );
    let served = "runlens_agent_gpus_requests_total";
    let _ = writeln!(
        out,
        "# HELP {served} GET /v1/gpus requests answered (the runlens server's polls).\n\
         # TYPE {served} counter\n{served}{{Hostname=\"{host}\"}} {gpus_served}"
    );
    out
}
