//! The demo's running fine-tuning run `sft-13b-lr2e-5` keeps training while `runlens serve
//! --demo` serves: each tick of [`LiveDemo`](super::LiveDemo) logs its next step, one a
//! second (near the 0.8 s/step of the steps loaded before it):
//! - its metric series at their intervals ([`Curve`]), through the tracking functions
//!   behind the MLflow API, told to the live bus;
//! - the lines of that step on each node through the log store (which wakes the Logs
//!   tab's live follow): a progress line of each node with that step and its loss;
//! - every 10 s a system-metrics sample of each node, all [`DEMO_NODE_GPUS`] GPUs of it,
//!   as the GPU panel shows them.
//!
//! Its step never passes its `max_steps` param ([`RUNNING_MAX_STEPS`]): from the 11,200
//! steps loaded that is about a day of serving at one step a second. At that step the run
//! finishes: its job run SUCCEEDED, its MLflow run FINISHED, each node prints its closing
//! lines. Each tick reads where the run stands from the store (its latest `train/loss`
//! step, each node's latest sample, its `max_steps`), so a restarted server carries on
//! where the last one stopped.

use api_types::JobRunStatus;

use super::curves::Noise;
use super::job_logs::{self, Step};
use super::jobs::{lines_seed, running_attempt};
use super::llm::{self, Curve, DEMO_NODE, RUNNING_RUN};
use super::system::{node_prefix, sample, INTERVAL_MS};
#[cfg(doc)]
use super::{llm::RUNNING_MAX_STEPS, DEMO_NODE_GPUS};
use super::{people, SEED};
use crate::db::Conn;
use crate::jobs::{self, AttemptRef};
use crate::live::{BatchWatch, LiveBus, LiveEvent};
use crate::logs::{Batch as LogBatch, NewLine};
use crate::tracking::experiments::find_id_by_name;
use crate::tracking::log_batch::{log_batch, Batch};
use crate::tracking::model::{Metric, Point, RunInfo, RunStatus};
use crate::tracking::{runs, write};
use crate::{Error, Store};

/// Ticks to wait after a failed tick, or when the run is not running (finished, deleted,
/// the demo never loaded).
const BACKOFF_TICKS: u32 = 30;

/// The running run between ticks: only how long to wait before the next try (everything
/// else is read from the store).
#[derive(Default)]
pub(crate) struct LiveSft {
    wait: u32,
}

/// What one tick did to the run.
struct Advanced {
    attempt: AttemptRef,
    /// When the run started.
    start: i64,
    /// The run's `max_steps`.
    max_steps: i64,
    /// The run as it is after it finished here.
    ended: Option<RunInfo>,
    /// The step logged, with its loss; `None`: the run finished.
    step: Option<(i64, f64)>,
    /// The last step logged before the tick.
    last: i64,
}

impl LiveSft {
    /// One second of the running run at wall time `now` (ms), see the module doc.
    pub(crate) fn tick(&mut self, store: &Store, bus: &LiveBus, now: i64) -> Result<(), Error> {
        if self.wait > 0 {
            self.wait -= 1;
            return Ok(());
        }
        match advance(store, bus, now) {
            Ok(true) => Ok(()),
            Ok(false) => {
                self.wait = BACKOFF_TICKS;
                Ok(())
            }
            Err(e) => {
                self.wait = BACKOFF_TICKS;
                Err(e)
            }
        }
    }
}

/// Logs the next step (or finishes the run) and prints its lines; `false` when there is no
/// running run to advance.
fn advance(store: &Store, bus: &LiveBus, now: i64) -> Result<bool, Error> {
    let done = store.blocking(|c| write(c, |tx| log_step(tx, bus, now)))?;
    let Some((advanced, events)) = done else {
        return Ok(false);
    };
    bus.publish_all(events);
    if let Some(info) = &advanced.ended {
        bus.run_changed(info);
    }
    print(store, &advanced, now)?;
    Ok(true)
}

/// In the write transaction: the running run's next step and system samples, or its end.
fn log_step(
    tx: &Conn,
    bus: &LiveBus,
    now: i64,
) -> Result<Option<(Advanced, Vec<LiveEvent>)>, Error> {
    let Some((info, attempt)) = find_running(tx)? else {
        return Ok(None);
    };
    let run = runs::get(tx, &info.run_id)?;
    let newest = |key: &str| run.metrics.iter().find(|m| m.key == key).map(|m| m.point);
    let last = newest(Curve::Loss.key()).map_or(-1, |p| p.step);
    let mut sft = llm::running(info.start_time);
    // The run's own `max_steps` (a data dir loaded by an older demo has another).
    sft.max_steps = max_steps(&run.params).unwrap_or(sft.max_steps);
    let mut advanced = Advanced {
        attempt,
        start: info.start_time,
        max_steps: sft.max_steps,
        ended: None,
        step: None,
        last,
    };
    if last >= sft.max_steps {
        let job_run = advanced.attempt.job_run_id;
        advanced.ended = jobs::set_status(tx, job_run, JobRunStatus::Succeeded)?;
        return Ok(Some((advanced, Vec::new())));
    }
    let step = last + 1;
    let mut noise = Noise::new(SEED ^ step as u64);
    let loss = Curve::Loss.value(&sft, step, &mut noise);
    let mut metrics = vec![point(Curve::Loss.key(), step, now, loss)];
    for c in &Curve::ALL[1..] {
        if step % c.every() == 0 || step == sft.max_steps {
            metrics.push(point(c.key(), step, now, c.value(&sft, step, &mut noise)));
        }
    }
    for node in &advanced.attempt.nodes {
        let prefix = node_prefix(node);
        let next = match newest(&format!("{prefix}cpu_utilization_percentage")) {
            Some(p) if now - p.timestamp < INTERVAL_MS => continue,
            Some(p) => p.step + 1,
            None => 0,
        };
        metrics.extend(sample(&prefix, next, now, DEMO_NODE, true, &mut noise));
    }
    let watch = BatchWatch::of(bus, &metrics, &[]);
    let batch = Batch {
        metrics,
        ..Batch::default()
    };
    let logged = log_batch(tx, &info.run_id, batch, false)?;
    let events = watch
        .map(|w| w.events(tx, &info.run_id, &logged))
        .unwrap_or_default();
    advanced.step = Some((step, loss));
    Ok(Some((advanced, events)))
}

/// The running run and its job attempt, if both are still running.
fn find_running(tx: &Conn) -> Result<Option<(RunInfo, AttemptRef)>, Error> {
    let Some(exp) = find_id_by_name(tx, people::ALICE_EXPERIMENT)? else {
        return Ok(None);
    };
    let Some(info) = runs::find_by_name(tx, exp, RUNNING_RUN)? else {
        return Ok(None);
    };
    if info.status != RunStatus::Running.as_str() || info.lifecycle_stage != "active" {
        return Ok(None);
    }
    let attempt = jobs::attempt_of_run(tx, &info.run_id)?.filter(|a| a.status.is_active());
    Ok(attempt.map(|a| (info, a)))
}

/// The `max_steps` param among `params`.
fn max_steps(params: &[(String, String)]) -> Option<i64> {
    let (_, v) = params.iter().find(|(k, _)| k == "max_steps")?;
    v.parse().ok()
}

fn point(key: &str, step: i64, timestamp: i64, value: f64) -> Metric {
    Metric {
        key: key.to_string(),
        point: Point {
            step,
            timestamp,
            value,
        },
    }
}

/// Each node's lines of the tick (the step's, or the closing ones), sequence numbers
/// continuing from the log store's.
fn print(store: &Store, advanced: &Advanced, now: i64) -> Result<(), Error> {
    let a = &advanced.attempt;
    let states = store
        .logs()
        .read(|c| crate::logs::store::nodes(c, a.attempt_id))?;
    let mut sft = llm::running(advanced.start);
    sft.max_steps = advanced.max_steps;
    let loss = |s| sft.expected_loss(s);
    let attempt = running_attempt(&sft, &loss);
    for (rank, node) in a.nodes.iter().enumerate() {
        let lines: Vec<NewLine> = match advanced.step {
            Some((step, loss)) => {
                let at = Step {
                    rank,
                    nodes: a.nodes.len(),
                    step,
                    ts: now,
                    loss,
                    every: 1,
                    all_ranks: true,
                };
                job_logs::live_lines(&attempt, &at, lines_seed(a.job_run_id, a.number))
            }
            None => {
                let loss = sft.expected_loss(advanced.last);
                job_logs::finished_lines(rank, now, advanced.last, loss)
            }
        };
        let next = states
            .iter()
            .find(|s| &s.node == node)
            .map_or(0, |s| s.next_seq);
        store.logs().ingest(LogBatch {
            job_run_id: a.attempt_id,
            node: node.clone(),
            first_seq: next,
            lines,
        })?;
    }
    Ok(())
}
