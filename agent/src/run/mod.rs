//! `runlens-agent run ... -- CMD`: runs a command as an MLflow run and logs this node's GPUs
//! and host into it as system metrics.
//!
//! Through the MLflow REST API it gets (or creates) the experiment, creates the run tagged
//! `runlens.nodes = <node>`, starts CMD with `MLFLOW_TRACKING_URI`, `MLFLOW_RUN_ID`,
//! `MLFLOW_EXPERIMENT_ID` and `MLFLOW_TRACKING_TOKEN` so the stock mlflow client inside it
//! logs into the same run, samples every interval and logs the samples with `runs/log-batch`
//! (at most one call per 5 s; a failed call never stops the command: the metrics wait in a
//! bounded backlog and go with the next call), forwards SIGINT/SIGTERM, and when CMD ends marks the run FINISHED, FAILED
//! or KILLED and exits with CMD's status.
//!
//! Layout, so the launcher can grow (jobs, log shipping, retries): [`child`] runs the
//! command, [`mlflow`] holds the tracking calls, [`metrics`] turns samples into metrics, and
//! [`Shipper`] here moves samples from the sampler thread to the server.

pub mod child;
pub mod metrics;
pub mod mlflow;

use std::time::{Duration, Instant};

use api_types::nodes::RUN_NODES_TAG;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use self::child::{Ending, Signals};
use self::metrics::{system_metrics, Backlog, MAX_BATCH};
use self::mlflow::Tracking;
use crate::cli::RunArgs;
use crate::client::{ClientError, ServerClient};
use crate::gpu::{self, GpuSource};
use crate::host::NetworkTotals;
use crate::node::{hostname, now_ms, valid_node_name, Sampler, MAX_NODE_NAME};
use api_types::agent::NodeSample;

/// The agent's exit code when it could not start the run at all (the command did not run);
/// like `docker run`'s 125, distinct from any code of the command's own.
pub const START_FAILED: u8 = 125;

/// How long one call to the server may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

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

/// Why `run` could not start the run (the command did not run).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The node name cannot go into metric keys or the registry.
    #[error(
        "the node name {0:?} cannot be used: pass --node-name with 1 to {MAX_NODE_NAME} of \
         A-Z a-z 0-9 . _ - (not only dots, not gpus or embed-links)"
    )]
    BadNodeName(String),
    /// The server URL is unusable.
    #[error(transparent)]
    Url(ClientError),
    /// The experiment or run could not be made.
    #[error("cannot start the run on {server}: {source}")]
    Start {
        /// The server.
        server: String,
        /// Why.
        source: ClientError,
    },
    /// Signal handlers or the sampler thread could not be set up.
    #[error("cannot start: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs the command of `args` as an MLflow run; the exit code to leave with (the command's).
pub async fn run(args: RunArgs) -> Result<u8, RunError> {
    let node = args.node_name.clone().unwrap_or_else(hostname);
    if !valid_node_name(&node) {
        return Err(RunError::BadNodeName(node));
    }
    let mut signals = Signals::install()?;
    let client = ServerClient::new(&args.server, args.token.as_deref(), REQUEST_TIMEOUT)
        .map_err(RunError::Url)?;
    let tracking = Tracking::new(client.clone());
    let start_failed = |source| RunError::Start {
        server: client.base().to_owned(),
        source,
    };
    let experiment_id = tracking
        .experiment_id(&args.experiment)
        .await
        .map_err(start_failed)?;
    let program = args.command.first().map_or("", String::as_str);
    let tags = [
        (RUN_NODES_TAG, node.as_str()),
        ("mlflow.source.name", program),
        ("mlflow.source.type", "LOCAL"),
    ];
    let run_id = tracking
        .create_run(&experiment_id, args.run_name.as_deref(), now_ms(), &tags)
        .await
        .map_err(start_failed)?;
    tracing::info!(
        "run {run_id} in experiment {:?} ({experiment_id}) on node {node}",
        args.experiment
    );
    let shipper = Shipper::start(
        tracking.clone(),
        run_id.clone(),
        node,
        gpu::source(args.simulate_gpus, args.seed),
        Duration::from_secs(args.interval_secs),
    )?;
    let mut env = vec![
        ("MLFLOW_TRACKING_URI", client.base().to_owned()),
        ("MLFLOW_RUN_ID", run_id.clone()),
        ("MLFLOW_EXPERIMENT_ID", experiment_id),
    ];
    if let Some(token) = args.token.as_deref().filter(|t| !t.trim().is_empty()) {
        env.push(("MLFLOW_TRACKING_TOKEN", token.trim().to_owned()));
    }
    let ending = match child::spawn(&args.command, &env) {
        Ok(child) => child.wait(&mut signals).await.unwrap_or_else(|err| {
            tracing::error!("lost track of {program}: {err}");
            Ending::Exited(1)
        }),
        Err(err) => {
            tracing::error!("cannot run {program}: {err}");
            // The shell's codes: 127 not found, 126 found but not runnable.
            let code = if err.kind() == std::io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            Ending::Exited(code)
        }
    };
    shipper.finish().await;
    let status = ending.run_status();
    match tracking.end_run(&run_id, status, now_ms()).await {
        Ok(()) => tracing::info!("run {run_id} {}", status.as_str()),
        Err(err) => tracing::error!("could not mark run {run_id} {}: {err}", status.as_str()),
    }
    Ok(ending.exit_code())
}

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

    /// Stops sampling and logs what is left (for at most [`FINAL_FLUSH`]).
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
