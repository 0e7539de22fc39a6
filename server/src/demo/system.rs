//! MLflow-style system metrics (`system/...`, as `log_system_metrics=True` logs them): one
//! sample every 10 s of wall time, steps 0..N. The live demo logs the next samples of the
//! running run with [`sample`].

use super::curves::Noise;
use super::writer::Writer;
use crate::tracking::model::{Metric, Point};
use crate::Error;

/// Sampling interval of MLflow's system-metrics monitor.
pub(crate) const INTERVAL_MS: i64 = 10_000;

/// The machine a run trained on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Machine {
    /// Number of GPUs sampled (`system/gpu_{i}_...`); 0 for CPU-only jobs.
    pub gpus: u32,
    /// GPU memory in use while training, MB.
    pub gpu_memory_mb: f64,
    /// Host memory in use while training, MB.
    pub host_memory_mb: f64,
    /// Typical GPU utilisation, percent.
    pub gpu_busy: f64,
}

/// Logs system metrics for `[start, end)` of wall time, as MLflow's monitor does on one
/// machine (`system/<metric>`).
pub(crate) fn log_system_metrics(
    w: &mut Writer<'_>,
    run: &str,
    start: i64,
    end: i64,
    machine: Machine,
) -> Result<(), Error> {
    log_samples(w, run, "system/", false, start, end, machine)
}

/// Logs one node's system metrics for `[start, end)` of wall time, as `runlens-agent run`
/// does on each node of a multi-node run (`system/<node>/<metric>`, MLflow's node-id
/// layout), GPU temperatures included.
pub(crate) fn log_node_system_metrics(
    w: &mut Writer<'_>,
    run: &str,
    node: &str,
    start: i64,
    end: i64,
    machine: Machine,
) -> Result<(), Error> {
    log_samples(w, run, &node_prefix(node), true, start, end, machine)
}

/// The key prefix of node `node`'s system metrics.
pub(crate) fn node_prefix(node: &str) -> String {
    format!("system/{node}/")
}

fn log_samples(
    w: &mut Writer<'_>,
    run: &str,
    prefix: &str,
    temperatures: bool,
    start: i64,
    end: i64,
    machine: Machine,
) -> Result<(), Error> {
    let mut metrics = Vec::new();
    for (i, t) in sample_times(start, end) {
        metrics.extend(sample(prefix, i, t, machine, temperatures, &mut w.noise));
    }
    w.metrics(run, metrics)
}

/// The sample `(step, timestamp)`s of `[start, end)`, one per interval with some jitter.
fn sample_times(start: i64, end: i64) -> Vec<(i64, i64)> {
    let samples = ((end - start) / INTERVAL_MS).max(1);
    (0..samples)
        .map(|i| (i, start + i * INTERVAL_MS + (i * 37) % 400))
        .collect()
}

/// Sample `i` (the step) of `machine`'s system metrics, taken at `timestamp`: keys under
/// `prefix`, values rounded to 0.01, GPU temperatures with `temperatures` (a node's agent
/// reports them, MLflow's monitor does not).
pub(crate) fn sample(
    prefix: &str,
    i: i64,
    timestamp: i64,
    machine: Machine,
    temperatures: bool,
    n: &mut Noise,
) -> Vec<Metric> {
    let mut out = Vec::new();
    let mut put = |key: &str, value: f64| {
        out.push(Metric {
            key: format!("{prefix}{key}"),
            point: Point {
                step: i,
                timestamp,
                value: (value * 100.0).round() / 100.0,
            },
        })
    };
    // Load ramps up over the first minute (data loading, compilation), then holds.
    let ramp = (i as f64 / 6.0).min(1.0);
    let x = i as f64;
    put(
        "cpu_utilization_percentage",
        (8.0 + 40.0 * ramp + 6.0 * n.gauss()).clamp(0.5, 100.0),
    );
    let host = machine.host_memory_mb;
    put(
        "system_memory_usage_megabytes",
        host * (0.35 + 0.6 * ramp) + 0.02 * host * n.gauss() + x * 0.3,
    );
    put(
        "system_memory_usage_percentage",
        (100.0 * (0.35 + 0.6 * ramp) * host / 512_000.0 + 0.5 * n.gauss()).clamp(0.0, 100.0),
    );
    put("disk_usage_percentage", 41.0 + x * 0.002);
    put("network_receive_megabytes", x * 1.7 + n.uniform(0.0, 0.4));
    let (busy, mem) = (machine.gpu_busy, machine.gpu_memory_mb);
    for g in 0..machine.gpus {
        // Periodic evaluation and checkpointing leave the GPU idle for a moment.
        let dip = if i % 90 == 89 { 0.35 } else { 1.0 };
        put(
            &format!("gpu_{g}_utilization_percentage"),
            (busy * ramp * dip + 3.0 * n.gauss()).clamp(0.0, 100.0),
        );
        put(
            &format!("gpu_{g}_memory_usage_megabytes"),
            mem * ramp + 120.0 * n.gauss().abs(),
        );
        put(
            &format!("gpu_{g}_memory_usage_percentage"),
            (100.0 * mem * ramp / 81_559.0 + 0.2 * n.gauss()).clamp(0.0, 100.0),
        );
        put(
            &format!("gpu_{g}_power_usage_watts"),
            90.0 + 520.0 * ramp * busy / 100.0 + 25.0 * n.gauss(),
        );
        if temperatures {
            put(
                &format!("gpu_{g}_temperature_celsius"),
                (34.0 + 0.45 * busy * ramp + 1.5 * n.gauss()).round(),
            );
        }
    }
    out
}
