//! System metrics of a run: samples this node's GPUs and host on a thread of their own
//! every interval and logs them into the attempt's MLflow run with `runs/log-batch` as
//! `system/<node>/...` (at most one call per 5 s; a failed call never stops the command:
//! the metrics wait in a bounded backlog and go with the next call).

use std::time::{Duration, Instant};

use api_types::agent::NodeSample;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::metrics::{system_metrics, Backlog, MAX_BATCH};
use super::mlflow::Tracking;
use crate::gpu::GpuSource;
use crate::host::NetworkTotals;
use crate::node::Sampler;

/// At most this many metrics wait while the server is unreachable (about 1,800 samples of
/// an 8-GPU node: half an hour at 1 s, five hours at the default 10 s).
const BACKLOG_METRICS: usize = 100_000;

/// How long the last flush may take after the command ended.
const FINAL_FLUSH: Duration = Duration::from_secs(15);

/// At most one `runs/log-batch` call per this period (plus one when a batch is full): at a
/// 1 s interval five samples go in one call, each with its own step and time; at the
/// default 10 s every sample goes at once. A call costs the node more than a sample.
const LOG_EVERY: Duration = Duration::from_secs(5);

/// Samples queued between the sampler thread and the shipper (a full queue drops a sample,
/// which only happens if the shipper is stuck for this many intervals).
const QUEUED_SAMPLES: usize = 16;

/// One sample and the network totals at that moment.
#[derive(Debug)]
struct Tick {
    sample: NodeSample,
    network: NetworkTotals,
}

/// Samples on its own thread and logs the samples as system metrics from a task.
#[derive(Debug)]
pub struct Shipper {
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl Shipper {
    /// Starts sampling `source` every `interval` into run `run_id` as node `node`.
    pub fn start(
        tracking: Tracking,
        run_id: String,
        node: String,
        source: Box<dyn GpuSource>,
        interval: Duration,
    ) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::channel(QUEUED_SAMPLES);
        Sampler::new(source).spawn_each(interval, move |sample, sampler| {
            let tick = Tick {
                sample,
                network: sampler.network_totals(),
            };
            match tx.try_send(tick) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    tracing::debug!("shipper busy; a sample was skipped");
                    true
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            }
        })?;
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(ship(tracking, run_id, node, rx, stopped));
        Ok(Self { stop, task })
    }

    /// Stops sampling and logs what is left (for at most `FINAL_FLUSH`).
    pub async fn finish(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}

/// Whether logging is failing, to log one line when it starts failing and one when it
/// recovers.
#[derive(Debug, Default)]
struct Health {
    failing: bool,
}

/// The shipping loop: each sample becomes metrics in the backlog; the backlog is sent when
/// [`LOG_EVERY`] has passed since the last call, when a batch is full, and at the end.
async fn ship(
    tracking: Tracking,
    run_id: String,
    node: String,
    mut samples: mpsc::Receiver<Tick>,
    mut stopped: oneshot::Receiver<()>,
) {
    let mut backlog = Backlog::new(BACKLOG_METRICS);
    let mut health = Health::default();
    let mut step = 0;
    let mut last_call = Instant::now();
    loop {
        tokio::select! {
            tick = samples.recv() => {
                let Some(tick) = tick else { break };
                backlog.push(system_metrics(&node, &tick.sample, tick.network, step));
                step += 1;
                // Due, with a little slack so that a 1 s interval logs every fifth tick.
                let due = last_call.elapsed() + Duration::from_millis(250) >= LOG_EVERY;
                if due || backlog.len() >= MAX_BATCH {
                    last_call = Instant::now();
                    flush(&tracking, &run_id, &mut backlog, &mut health).await;
                }
            }
            _ = &mut stopped => break,
        }
    }
    drop(samples);
    let last = flush(&tracking, &run_id, &mut backlog, &mut health);
    if tokio::time::timeout(FINAL_FLUSH, last).await.is_err() || !backlog.is_empty() {
        tracing::warn!(
            "{} system metrics could not be logged before the end",
            backlog.len()
        );
    }
    if backlog.dropped() > 0 {
        tracing::warn!(
            "{} system metrics were dropped while the server was unreachable",
            backlog.dropped()
        );
    }
}

/// Sends the backlog, oldest first, until it is empty or a call fails. A batch the server
/// refuses as invalid (4xx other than 408/429) is dropped, so one bad batch cannot block
/// the rest; anything else is kept for the next tick.
async fn flush(tracking: &Tracking, run_id: &str, backlog: &mut Backlog, health: &mut Health) {
    while !backlog.is_empty() {
        let batch = backlog.batch();
        match tracking.log_batch(run_id, &batch).await {
            Ok(()) => {
                backlog.logged(batch.len());
                if std::mem::take(&mut health.failing) {
                    tracing::info!("logging system metrics recovered");
                }
            }
            Err(err) => {
                let refused = err
                    .status()
                    .is_some_and(|s| s.is_client_error() && s.as_u16() != 408 && s.as_u16() != 429);
                if !health.failing {
                    let what = if refused {
                        "dropping them"
                    } else {
                        "keeping them and retrying each interval (the command goes on)"
                    };
                    tracing::warn!("cannot log system metrics: {err}; {what}");
                    health.failing = true;
                }
                if !refused {
                    return;
                }
                backlog.logged(batch.len());
            }
        }
    }
}
