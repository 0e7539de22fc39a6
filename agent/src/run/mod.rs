//! `runlens-agent run ... -- CMD`: submits CMD as a job run and runs it, or joins a running
//! job run as one more node.
//!
//! Submitting: the experiment is got or created through the MLflow API, the job got or
//! created (`POST /api/v1/jobs`), a job run submitted with its node labels; then per attempt
//! the server creates the attempt and its MLflow run (`POST /job-runs/{id}/attempts`), and
//! the K processes start with the run in their environment ([`launch`]). Their output goes
//! to the terminal unchanged and, line by line, through a disk spool per node ([`spool`],
//! [`lines`]) to the server ([`ship`]); the node's GPUs and host go into the run as system
//! metrics ([`system`]). A failed attempt with retries left is followed by the next one; a
//! signal is forwarded and stops the job run (CANCELED). At the end the agent waits (bounded)
//! for the spools to drain, sets the job run's status and exits with the command's status.
//!
//! Joining (`--join ID --node N`): CMD runs as node N of the job run's latest attempt; its
//! lines and metrics go there; the job run's status is left to the submitter.

pub mod child;
pub mod jobs;
pub mod launch;
pub mod lines;
pub mod metrics;
pub mod mlflow;
pub mod ship;
pub mod spool;
pub mod system;

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use api_types::jobs::{Attempt, CreateJobRun, JobRunStatus};

use self::child::{Ending, Signals};
use self::jobs::Jobs;
use self::launch::{Outcome, Proc};
use self::mlflow::{RunStatus, Tracking};
use self::ship::{LogShipper, Target};
use crate::cli::RunArgs;
use crate::client::{ClientError, ServerClient};
use crate::gpu;
use crate::node::{hostname, now_ms, valid_node_name, MAX_NODE_NAME};

/// The agent's exit code when it could not start the run at all (the command did not run);
/// like `docker run`'s 125, distinct from any code of the command's own.
pub const START_FAILED: u8 = 125;

/// How long one call to the server may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a call that must happen (the next attempt, the final status) is retried while
/// the server is unreachable or failing.
const MUST_RETRY_FOR: Duration = Duration::from_secs(30);

/// Why `run` could not start (the command did not run).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A node label cannot be used.
    #[error(
        "the node name {0:?} cannot be used: pass --node-name (or --node) with 1 to \
         {MAX_NODE_NAME} of A-Z a-z 0-9 . _ - (not only dots, not gpus or embed-links; with \
         --nodes K the label is NAME-RANK)"
    )]
    BadNodeName(String),
    /// The server URL is unusable.
    #[error(transparent)]
    Url(ClientError),
    /// The experiment, job, job run or attempt could not be made.
    #[error("cannot start the run on {server}: {source}")]
    Start {
        /// The server.
        server: String,
        /// Why.
        source: ClientError,
    },
    /// `--join` names a job run without an attempt.
    #[error("job run {0} has no attempt yet: nothing to join")]
    NoAttempt(i64),
    /// The spool directory or file cannot be made.
    #[error("cannot create the log spool in {dir}: {source} (pass --spool-dir)")]
    Spool {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Signal handlers or the sampler thread could not be set up.
    #[error("cannot start: {0}")]
    Io(#[from] std::io::Error),
}

/// One node of an attempt, before it starts.
struct Planned {
    label: String,
    env: Vec<(String, String)>,
    with_stdin: bool,
}

/// What every step needs.
struct Ctx {
    args: RunArgs,
    client: ServerClient,
    tracking: Tracking,
    jobs: Jobs,
    spool_dir: PathBuf,
    signals: Signals,
}

impl Ctx {
    fn start_failed(&self, source: ClientError) -> RunError {
        RunError::Start {
            server: self.client.base().to_owned(),
            source,
        }
    }

    /// The MLflow variables every process gets.
    fn mlflow_env(&self, experiment_id: &str, run_id: &str) -> Vec<(String, String)> {
        let mut env = vec![
            (
                "MLFLOW_TRACKING_URI".to_owned(),
                self.client.base().to_owned(),
            ),
            ("MLFLOW_RUN_ID".to_owned(), run_id.to_owned()),
            ("MLFLOW_EXPERIMENT_ID".to_owned(), experiment_id.to_owned()),
        ];
        if let Some(token) = self.args.token.as_deref().filter(|t| !t.trim().is_empty()) {
            env.push(("MLFLOW_TRACKING_TOKEN".to_owned(), token.trim().to_owned()));
        }
        // The mlflow client verifies an https server against this CA file too.
        if let Some(ca) = &self.args.ca_cert {
            if std::env::var_os("MLFLOW_TRACKING_SERVER_CERT_PATH").is_none() {
                env.push((
                    "MLFLOW_TRACKING_SERVER_CERT_PATH".to_owned(),
                    ca.display().to_string(),
                ));
            }
        }
        // Python buffers a pipe's output in blocks; lines should go out as they are printed.
        if std::env::var_os("PYTHONUNBUFFERED").is_none() {
            env.push(("PYTHONUNBUFFERED".to_owned(), "1".to_owned()));
        }
        env
    }
}

/// Runs the command of `args` (see the module documentation); the exit code to leave with
/// (the command's).
pub async fn run(args: RunArgs) -> Result<u8, RunError> {
    let signals = Signals::install()?;
    let client = ServerClient::new(
        &args.server,
        args.token.as_deref(),
        REQUEST_TIMEOUT,
        args.ca_cert.as_deref(),
    )
    .map_err(RunError::Url)?;
    let spool_dir = args.spool_dir.clone().unwrap_or_else(spool::default_dir);
    std::fs::create_dir_all(&spool_dir).map_err(|source| RunError::Spool {
        dir: spool_dir.clone(),
        source,
    })?;
    let join = args.join.zip(args.node.clone());
    let mut ctx = Ctx {
        tracking: Tracking::new(client.clone()),
        jobs: Jobs::new(client.clone()),
        client,
        args,
        spool_dir,
        signals,
    };
    match join {
        Some((job_run_id, node)) => join_run(&mut ctx, job_run_id, node).await,
        None => submit(&mut ctx).await,
    }
}

/// The node labels of a submission: the node name alone, or `NAME-0` .. `NAME-(K-1)`.
fn node_labels(node: &str, k: u32) -> Result<Vec<String>, RunError> {
    let labels: Vec<String> = if k == 1 {
        vec![node.to_owned()]
    } else {
        (0..k).map(|i| format!("{node}-{i}")).collect()
    };
    match labels.iter().find(|l| !valid_node_name(l)) {
        Some(bad) => Err(RunError::BadNodeName(bad.clone())),
        None => Ok(labels),
    }
}

/// Submits a job run and runs its attempts.
async fn submit(ctx: &mut Ctx) -> Result<u8, RunError> {
    let node = ctx.args.node_name.clone().unwrap_or_else(hostname);
    let labels = node_labels(&node, ctx.args.nodes)?;
    let experiment = ctx.args.experiment.clone().unwrap_or_default();
    let experiment_id = ctx
        .tracking
        .experiment_id(&experiment)
        .await
        .map_err(|e| ctx.start_failed(e))?;
    let job_name = ctx.args.job.clone().unwrap_or_else(|| experiment.clone());
    let job = ctx
        .jobs
        .job(&job_name)
        .await
        .map_err(|e| ctx.start_failed(e))?;
    let submitted = CreateJobRun {
        experiment_id: experiment_id.clone(),
        nodes: labels.clone(),
        max_retries: ctx.args.max_retries,
    };
    let job_run = ctx
        .jobs
        .submit(job.job_id, &submitted)
        .await
        .map_err(|e| ctx.start_failed(e))?;
    let id = job_run.job_run_id;
    tracing::info!(
        "job {job_name:?} run {id} in experiment {experiment:?} ({experiment_id}), nodes {}",
        labels.join(", ")
    );
    let mut shippers = Vec::new();
    let mut last: Option<Outcome> = None;
    for number in 1..=ctx.args.max_retries + 1 {
        if let Some(caught) = ctx.signals.try_recv() {
            last = Some(Outcome {
                ending: last.map_or(Ending::Signalled(caught.number()), |o| o.ending),
                caught: Some(caught),
            });
            break;
        }
        let run_name = ctx.args.run_name.as_ref().map(|name| match number {
            1 => name.clone(),
            n => format!("{name}-attempt-{n}"),
        });
        let attempt = if number == 1 {
            ctx.jobs.start_attempt(id, run_name).await
        } else {
            must(&format!("start attempt {number}"), || {
                ctx.jobs.start_attempt(id, run_name.clone())
            })
            .await
        };
        let attempt = match attempt {
            Ok(attempt) => attempt,
            Err(err) if last.is_none() => {
                let _ = ctx.jobs.set_status(id, JobRunStatus::Failed).await;
                return Err(ctx.start_failed(err));
            }
            Err(err) => {
                tracing::error!("cannot start attempt {number}: {err}; the job run fails");
                break;
            }
        };
        tracing::info!(
            "attempt {number} of {}: run {} ({})",
            ctx.args.max_retries + 1,
            attempt.run_id,
            attempt.run_name
        );
        let world = labels.len().to_string();
        let procs = labels
            .iter()
            .enumerate()
            .map(|(rank, label)| {
                let mut env = ctx.mlflow_env(&experiment_id, &attempt.run_id);
                for key in ["RANK", "NODE_RANK"] {
                    env.push((key.to_owned(), rank.to_string()));
                }
                env.push(("LOCAL_RANK".to_owned(), "0".to_owned()));
                env.push(("WORLD_SIZE".to_owned(), world.clone()));
                Planned {
                    label: label.clone(),
                    env,
                    with_stdin: rank == 0,
                }
            })
            .collect();
        let outcome = match run_attempt(ctx, &attempt, procs, &mut shippers).await {
            Ok(outcome) => outcome,
            Err(err) if last.is_none() => {
                let _ = ctx.jobs.set_status(id, JobRunStatus::Failed).await;
                return Err(err);
            }
            Err(err) => {
                tracing::error!("cannot start attempt {number}: {err}; the job run fails");
                break;
            }
        };
        let status = match outcome.caught {
            Some(_) => RunStatus::Killed,
            None => outcome.ending.run_status(),
        };
        if let Err(err) = ctx
            .tracking
            .end_run(&attempt.run_id, status, now_ms())
            .await
        {
            tracing::error!(
                "could not mark run {} {}: {err}",
                attempt.run_id,
                status.as_str()
            );
        }
        last = Some(outcome);
        if outcome.ending.succeeded() || outcome.caught.is_some() {
            break;
        }
        if number <= ctx.args.max_retries {
            tracing::warn!(
                "attempt {number} failed ({:?}); starting attempt {} of {}",
                outcome.ending,
                number + 1,
                ctx.args.max_retries + 1
            );
        }
    }
    let drain = Duration::from_secs(ctx.args.drain_timeout_secs);
    ship::drain(shippers, drain, &mut ctx.signals).await;
    let (status, code) = match last {
        Some(Outcome {
            caught: Some(_),
            ending,
        }) => (JobRunStatus::Canceled, ending.exit_code()),
        Some(Outcome { ending, .. }) if ending.succeeded() => (JobRunStatus::Succeeded, 0),
        Some(Outcome { ending, .. }) => (JobRunStatus::Failed, ending.exit_code()),
        None => (JobRunStatus::Failed, 1),
    };
    match must("set the job run's status", || {
        ctx.jobs.set_status(id, status)
    })
    .await
    {
        Ok(_) => tracing::info!("job run {id} {}", status.as_str()),
        Err(err) => tracing::error!("could not set job run {id} {}: {err}", status.as_str()),
    }
    Ok(code)
}

/// Joins job run `job_run_id`'s latest attempt as node `node`.
async fn join_run(ctx: &mut Ctx, job_run_id: i64, node: String) -> Result<u8, RunError> {
    if !valid_node_name(&node) {
        return Err(RunError::BadNodeName(node));
    }
    let job_run = ctx
        .jobs
        .job_run(job_run_id)
        .await
        .map_err(|e| ctx.start_failed(e))?;
    let attempt = job_run
        .attempts
        .last()
        .cloned()
        .ok_or(RunError::NoAttempt(job_run_id))?;
    ctx.jobs
        .add_node(job_run_id, &node)
        .await
        .map_err(|e| ctx.start_failed(e))?;
    tracing::info!(
        "joined job run {job_run_id} (job {:?}) as node {node}: attempt {}, run {}",
        job_run.job.name,
        attempt.number,
        attempt.run_id
    );
    let env = ctx.mlflow_env(&job_run.experiment_id, &attempt.run_id);
    let mut shippers = Vec::new();
    let outcome = run_attempt(
        ctx,
        &attempt,
        vec![Planned {
            label: node,
            env,
            with_stdin: true,
        }],
        &mut shippers,
    )
    .await?;
    let drain = Duration::from_secs(ctx.args.drain_timeout_secs);
    ship::drain(shippers, drain, &mut ctx.signals).await;
    Ok(outcome.ending.exit_code())
}

/// Runs one attempt's processes, with a
/// spool and a log shipper per node (added to `shippers`, which outlive the attempt) and
/// system metrics per node.
async fn run_attempt(
    ctx: &mut Ctx,
    attempt: &Attempt,
    procs: Vec<Planned>,
    shippers: &mut Vec<LogShipper>,
) -> Result<Outcome, RunError> {
    let program = ctx.args.command.first().map_or("", String::as_str);
    let tags = [
        ("mlflow.source.name", program),
        ("mlflow.source.type", "LOCAL"),
    ];
    if let Err(err) = ctx.tracking.set_tags(&attempt.run_id, &tags).await {
        tracing::warn!("could not tag run {}: {err}", attempt.run_id);
    }
    let mut started = Vec::new();
    let mut metrics = Vec::new();
    for Planned {
        label,
        env,
        with_stdin,
    } in procs
    {
        let name = spool_name(attempt, &label);
        let (writer, reader) =
            spool::create(&ctx.spool_dir, &name).map_err(|source| RunError::Spool {
                dir: ctx.spool_dir.clone(),
                source,
            })?;
        let target = Target {
            job_run_id: attempt.job_run_id,
            attempt: attempt.number,
            node: label.clone(),
        };
        shippers.push(LogShipper::start(ctx.jobs.clone(), target, reader));
        metrics.push(system::Shipper::start(
            ctx.tracking.clone(),
            attempt.run_id.clone(),
            label,
            gpu::source(ctx.args.simulate_gpus, ctx.args.seed),
            Duration::from_secs(ctx.args.interval_secs),
        )?);
        started.push(Proc {
            env,
            spool: writer,
            with_stdin,
        });
    }
    let outcome = launch::run(&ctx.args.command, started, &mut ctx.signals).await;
    for shipper in metrics {
        shipper.finish().await;
    }
    Ok(outcome)
}

/// The spool file of one node of one attempt (the agent's pid keeps two agents apart).
fn spool_name(attempt: &Attempt, node: &str) -> String {
    format!(
        "job-run-{}-attempt-{}-{node}-{}.jsonl",
        attempt.job_run_id,
        attempt.number,
        std::process::id()
    )
}

/// Whether a failed call may succeed if made again (no answer, a timeout, a 5xx).
fn transient(err: &ClientError) -> bool {
    err.is_transient()
}

/// Makes `call` until it succeeds, fails for good, or [`MUST_RETRY_FOR`] has passed (back-off
/// 1 s, 2 s, 4 s, ...), saying once that it is retrying.
async fn must<T, F, Fut>(what: &str, mut call: F) -> Result<T, ClientError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, ClientError>>,
{
    let deadline = tokio::time::Instant::now() + MUST_RETRY_FOR;
    let mut backoff = net::Backoff::new(Duration::from_secs(1), MUST_RETRY_FOR);
    let mut said = false;
    loop {
        match call().await {
            Err(err)
                if transient(&err) && tokio::time::Instant::now() + backoff.peek() < deadline =>
            {
                if !std::mem::replace(&mut said, true) {
                    tracing::warn!("cannot {what}: {err}; retrying");
                }
                tokio::time::sleep(backoff.failed()).await;
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_labels_are_the_name_or_name_rank() {
        assert_eq!(node_labels("gpu", 1).unwrap(), ["gpu"]);
        assert_eq!(node_labels("gpu", 3).unwrap(), ["gpu-0", "gpu-1", "gpu-2"]);
        assert!(matches!(
            node_labels("a b", 1),
            Err(RunError::BadNodeName(_))
        ));
        let long = "x".repeat(MAX_NODE_NAME - 1);
        assert!(node_labels(&long, 1).is_ok());
        assert!(
            matches!(node_labels(&long, 2), Err(RunError::BadNodeName(l)) if l.ends_with("-0"))
        );
    }

    #[test]
    fn spool_names_are_per_attempt_node_and_agent() {
        let attempt = Attempt {
            job_run_id: 7,
            number: 2,
            run_id: "r".into(),
            run_name: "n".into(),
            status: "RUNNING".into(),
            start_time: 0,
            end_time: None,
        };
        assert_eq!(
            spool_name(&attempt, "gpu-1"),
            format!("job-run-7-attempt-2-gpu-1-{}.jsonl", std::process::id())
        );
    }

    #[test]
    fn only_transient_failures_are_retried() {
        let status = |code: u16| ClientError::Status {
            method: reqwest::Method::POST,
            path: "/p".into(),
            status: reqwest::StatusCode::from_u16(code).unwrap(),
            message: String::new(),
        };
        assert!(transient(&status(503)) && transient(&status(429)));
        assert!(!transient(&status(400)) && !transient(&status(403)));
        let down = ClientError::Unreachable {
            url: "u".into(),
            reason: "refused".into(),
        };
        assert!(transient(&down));
        assert!(!transient(&ClientError::BadUrl("x".into())));
    }
}
