//! MLflow-style system metrics (`system/...`, as `log_system_metrics=True` logs them): one
//! sample every 10 s of wall time, steps 0..N.

use super::curves::Noise;
use super::writer::Writer;
use crate::Error;

/// Sampling interval of MLflow's system-metrics monitor.
const INTERVAL_MS: i64 = 10_000;

/// The machine a run trained on.
#[derive(Debug, Clone, Copy)]
pub struct Machine {
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
pub fn log_system_metrics(
    w: &mut Writer<'_>,
    run: &str,
    start: i64,
    end: i64,
    machine: Machine,
) -> Result<(), Error> {
    log_with_prefix(w, run, "system/", start, end, machine)
}

/// Logs one node's system metrics for `[start, end)` of wall time, as `runlens-agent run`
/// does on each node of a multi-node run (`system/<node>/<metric>`, MLflow's node-id
/// layout), GPU temperatures included.
pub fn log_node_system_metrics(
    w: &mut Writer<'_>,
    run: &str,
    node: &str,
    start: i64,
    end: i64,
    machine: Machine,
) -> Result<(), Error> {
    let prefix = format!("system/{node}/");
    log_with_prefix(w, run, &prefix, start, end, machine)?;
    let times = sample_times(start, end);
    for g in 0..machine.gpus {
        let key = format!("{prefix}gpu_{g}_temperature_celsius");
        let busy = machine.gpu_busy;
        sample(w, run, &key, &times, &mut |i, n| {
            (34.0 + 0.45 * busy * (i as f64 / 6.0).min(1.0) + 1.5 * n.gauss()).round()
        })?;
    }
    Ok(())
}

/// The sample `(step, timestamp)`s of `[start, end)`, one per interval with some jitter.
fn sample_times(start: i64, end: i64) -> Vec<(i64, i64)> {
    let samples = ((end - start) / INTERVAL_MS).max(1);
    (0..samples)
        .map(|i| (i, start + i * INTERVAL_MS + (i * 37) % 400))
        .collect()
}

fn log_with_prefix(
    w: &mut Writer<'_>,
    run: &str,
    prefix: &str,
    start: i64,
    end: i64,
    machine: Machine,
) -> Result<(), Error> {
    let times = sample_times(start, end);
    let series = |w: &mut Writer<'_>, key: &str, f: &mut dyn FnMut(i64, &mut Noise) -> f64| {
        sample(w, run, &format!("{prefix}{key}"), &times, f)
    };
    // Load ramps up over the first minute (data loading, compilation), then holds.
    let ramp = |i: i64| (i as f64 / 6.0).min(1.0);
    series(w, "cpu_utilization_percentage", &mut |i, n| {
        (8.0 + 40.0 * ramp(i) + 6.0 * n.gauss()).clamp(0.5, 100.0)
    })?;
    let host = machine.host_memory_mb;
    series(w, "system_memory_usage_megabytes", &mut |i, n| {
        host * (0.35 + 0.6 * ramp(i)) + 0.02 * host * n.gauss() + i as f64 * 0.3
    })?;
    series(w, "system_memory_usage_percentage", &mut |i, n| {
        (100.0 * (0.35 + 0.6 * ramp(i)) * host / 512_000.0 + 0.5 * n.gauss()).clamp(0.0, 100.0)
    })?;
    series(w, "disk_usage_percentage", &mut |i, _| {
        41.0 + i as f64 * 0.002
    })?;
    series(w, "network_receive_megabytes", &mut |i, n| {
        i as f64 * 1.7 + n.uniform(0.0, 0.4)
    })?;
    for g in 0..machine.gpus {
        let busy = machine.gpu_busy;
        series(
            w,
            &format!("gpu_{g}_utilization_percentage"),
            &mut |i, n| {
                // Periodic evaluation and checkpointing leave the GPU idle for a moment.
                let dip = if i % 90 == 89 { 0.35 } else { 1.0 };
                (busy * ramp(i) * dip + 3.0 * n.gauss()).clamp(0.0, 100.0)
            },
        )?;
        let mem = machine.gpu_memory_mb;
        series(
            w,
            &format!("gpu_{g}_memory_usage_megabytes"),
            &mut |i, n| mem * ramp(i) + 120.0 * n.gauss().abs(),
        )?;
        series(
            w,
            &format!("gpu_{g}_memory_usage_percentage"),
            &mut |i, n| (100.0 * mem * ramp(i) / 81_559.0 + 0.2 * n.gauss()).clamp(0.0, 100.0),
        )?;
        series(w, &format!("gpu_{g}_power_usage_watts"), &mut |i, n| {
            90.0 + 520.0 * ramp(i) * busy / 100.0 + 25.0 * n.gauss()
        })?;
    }
    Ok(())
}

/// Logs one system metric at the sample `times` (`(step, timestamp)`), rounded to 0.01.
fn sample(
    w: &mut Writer<'_>,
    run: &str,
    key: &str,
    times: &[(i64, i64)],
    f: &mut dyn FnMut(i64, &mut Noise) -> f64,
) -> Result<(), Error> {
    let points: Vec<(i64, i64, f64)> = times
        .iter()
        .map(|&(i, t)| (i, t, (f(i, &mut w.noise) * 100.0).round() / 100.0))
        .collect();
    w.metric(run, key, &points)
}
