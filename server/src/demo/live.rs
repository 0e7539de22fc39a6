//! The demo's live run: while `runlens serve --demo` serves, a run of the shared detection
//! experiment trains "now". Every second it logs the next [`STEPS_PER_TICK`] steps of
//! `loss` (every step), `lr` (every 100th) and `mAP` (once a second) through the tracking
//! functions behind the MLflow API, and tells the live streams as the MLflow endpoints do
//! (`crate::live`), so the experiment's table and charts and the run page move on their own.
//! At step [`LAST_STEP`] (about four minutes) the run finishes; after a pause of
//! [`PAUSE_TICKS`] seconds a fresh one starts. Finished live runs beyond the newest
//! [`KEEP_FINISHED`] are deleted (as `runs/delete` does), so the experiment does not fill
//! up. A run still going when the server stops is marked KILLED (when the task is dropped
//! with the runtime, else at the next start). Only `runlens serve --demo` spawns
//! [`live_runs`]; nothing here runs outside demo mode.
//!
//! The same tick advances the running fine-tuning job by a step (its metrics, log lines and
//! system metrics, see `live_sft`).

use std::time::Duration;

use super::curves::{decay, saturate, warmup_cosine, Noise};
use super::live_sft::LiveSft;
use super::people::DETECTION_EXPERIMENT;
use crate::db::Conn;
use crate::live::{BatchWatch, LiveBus};
use crate::store::meta;
use crate::tracking::experiments::find_id_by_name;
use crate::tracking::log_batch::{log_batch, Batch};
use crate::tracking::model::{Metric, Point, RunInfo, RunStatus};
use crate::tracking::runs::{self, NewRun};
use crate::tracking::write;
use crate::{Error, Store};

/// Names of the live runs: `detr-live-1`, `detr-live-2`, ...
pub const LIVE_RUN_PREFIX: &str = "detr-live-";
/// How often the live run logs.
pub(crate) const TICK: Duration = Duration::from_secs(1);
/// Training steps logged per tick (one `loss` point each).
pub const STEPS_PER_TICK: i64 = 40;
/// The step at which a live run finishes (250 ticks).
pub const LAST_STEP: i64 = 10_000;
/// Ticks between a live run's end and the next one's start.
pub const PAUSE_TICKS: u32 = 10;
/// Finished live runs kept; older ones are deleted.
pub(crate) const KEEP_FINISHED: usize = 3;
/// Ticks to wait after a failed tick (the experiment deleted, the run deleted by hand, ...).
const BACKOFF_TICKS: u32 = 30;
/// Who the live runs belong to (the detection sweep's author).
const USER: &str = "carol@example.com";
/// `meta` rows: the live run in progress, the number started, the finished ones (oldest
/// first, comma-separated).
const META_CURRENT: &str = "demo_live_run";
const META_COUNT: &str = "demo_live_count";
const META_FINISHED: &str = "demo_live_finished";

/// The live run in progress.
struct Current {
    run_id: String,
    /// Last step logged (-1 before the first).
    step: i64,
    lr: f64,
    /// Loss floor and time constant, as the sweep's children have them.
    floor: f64,
    tau: f64,
    noise: Noise,
}

/// The state of the demo's live runs between ticks (see the module doc).
pub struct LiveDemo {
    store: Store,
    current: Option<Current>,
    /// Ticks to wait before the next start.
    wait: u32,
    /// The running fine-tuning job.
    sft: LiveSft,
}

impl LiveDemo {
    /// A live demo writing into `store`; nothing is written before the first [`tick`].
    ///
    /// [`tick`]: LiveDemo::tick
    pub fn new(store: Store) -> Self {
        LiveDemo {
            store,
            current: None,
            wait: 0,
            sft: LiveSft::default(),
        }
    }

    /// The run being logged, if any.
    pub fn run_id(&self) -> Option<&str> {
        self.current.as_ref().map(|c| c.run_id.as_str())
    }

    /// One second of the live runs at wall time `now` (ms): the detection run starts, logs
    /// its next points, or finishes; the running fine-tuning job logs its next step (or
    /// finishes). Publishes what it committed to `bus`. After an error the run concerned is
    /// let go and nothing is tried for it for a while; the first error is answered.
    pub fn tick(&mut self, bus: &LiveBus, now: i64) -> Result<(), Error> {
        let detection = self.tick_detection(bus, now);
        let sft = self.sft.tick(&self.store, bus, now);
        detection.and(sft)
    }

    /// The detection run's part of [`tick`](LiveDemo::tick).
    fn tick_detection(&mut self, bus: &LiveBus, now: i64) -> Result<(), Error> {
        let store = self.store.clone();
        if self.wait > 0 {
            self.wait -= 1;
            return Ok(());
        }
        let done = match self.current.as_mut() {
            None => {
                self.current =
                    start(&store, bus, now).inspect_err(|_| self.wait = BACKOFF_TICKS)?;
                if self.current.is_none() {
                    // No detection experiment (the demo was never loaded, or it was deleted).
                    self.wait = BACKOFF_TICKS;
                }
                return Ok(());
            }
            Some(run) => match log_next(&store, bus, run, now) {
                Ok(done) => done,
                Err(e) => {
                    self.current = None;
                    self.wait = BACKOFF_TICKS;
                    return Err(e);
                }
            },
        };
        if done {
            if let Some(run) = self.current.take() {
                finish(&store, bus, &run.run_id, RunStatus::Finished, now)?;
            }
            self.wait = PAUSE_TICKS;
        }
        Ok(())
    }
}

impl Drop for LiveDemo {
    /// The server stops (the task is dropped with its runtime): the run in progress is
    /// marked KILLED, so it does not stay RUNNING in the data dir.
    fn drop(&mut self) {
        if let Some(run) = self.current.take() {
            let ended = finish(
                &self.store,
                &LiveBus::default(),
                &run.run_id,
                RunStatus::Killed,
                crate::util::now_ms(),
            );
            if let Err(e) = ended {
                tracing::warn!("demo live run {} left running: {e}", run.run_id);
            }
        }
    }
}

/// Logs the live run once a `TICK` while the server runs (`runlens serve --demo` spawns
/// it; it ends when the runtime drops it, marking the run in progress KILLED).
pub async fn live_runs(store: Store, bus: LiveBus) {
    let mut demo = LiveDemo::new(store.clone());
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let b = bus.clone();
        let done = tokio::task::spawn_blocking(move || {
            let r = demo.tick(&b, crate::util::now_ms());
            (demo, r)
        })
        .await;
        demo = match done {
            Ok((d, r)) => {
                if let Err(e) = r {
                    tracing::warn!("demo live run: {e}");
                }
                d
            }
            Err(e) => {
                tracing::warn!("demo live run: {e}");
                LiveDemo::new(store.clone())
            }
        };
    }
}

/// The run's knobs: the n-th live run repeats one of the sweep's AdamW configurations.
fn knobs(n: i64) -> (f64, f64, f64) {
    let lr = [2e-4, 1e-4, 5e-4][(n.rem_euclid(3)) as usize];
    let floor = 1.1 + 900.0 * (lr - 2e-4f64).abs();
    let tau = 2_600.0 * (1e-4 / lr).sqrt();
    (lr, floor, tau)
}

/// Starts the next live run (killing one a stopped server left running and deleting old
/// finished ones); `None` without the detection experiment.
fn start(store: &Store, bus: &LiveBus, now: i64) -> Result<Option<Current>, Error> {
    let started = store.blocking(|c| {
        write(c, |tx| {
            let Some(exp) = find_id_by_name(tx, DETECTION_EXPERIMENT)? else {
                return Ok(None);
            };
            let mut changed = Vec::new();
            if let Some(old) = meta::get(tx, META_CURRENT)?.filter(|id| !id.is_empty()) {
                changed.extend(end_run(tx, &old, RunStatus::Killed, now)?);
            }
            let n = meta::get(tx, META_COUNT)?
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or(0)
                + 1;
            let (lr, floor, tau) = knobs(n);
            let note = "Live demo run: `runlens serve --demo` logs it every second while the \
                        server runs, then starts a fresh one.";
            let tags = [
                ("mlflow.user", USER),
                ("mlflow.source.name", "train_detr.py"),
                ("mlflow.source.type", "LOCAL"),
                ("mlflow.note.content", note),
            ];
            let id = runs::create(
                tx,
                NewRun {
                    experiment_id: exp,
                    user_id: USER.to_string(),
                    run_name: Some(format!("{LIVE_RUN_PREFIX}{n}")),
                    start_time: Some(now),
                    tags: owned(&tags),
                },
            )?;
            let (lr_s, seed) = (format!("{lr:e}"), n.to_string());
            let batch = Batch {
                params: owned(&[
                    ("model", "detr-r50"),
                    ("lr", &lr_s),
                    ("batch_size", "32"),
                    ("optimizer", "adamw"),
                    ("backbone_lr", "1e-5"),
                    ("seed", &seed),
                ]),
                tags: owned(&[("team", "vision"), ("live", "true")]),
                ..Batch::default()
            };
            log_batch(tx, &id, batch, false)?;
            meta::set(tx, META_CURRENT, &id)?;
            meta::set(tx, META_COUNT, &n.to_string())?;
            changed.extend(prune(tx)?);
            changed.push(runs::get_info(tx, &id)?);
            let noise = Noise::new(super::SEED ^ n as u64);
            let current = Current {
                run_id: id,
                step: -1,
                lr,
                floor,
                tau,
                noise,
            };
            Ok(Some((current, changed)))
        })
    })?;
    Ok(started.map(|(current, changed)| {
        for info in &changed {
            bus.run_changed(info);
        }
        current
    }))
}

/// Logs the next [`STEPS_PER_TICK`] steps, the last one at `now`; answers whether the run
/// reached [`LAST_STEP`].
fn log_next(store: &Store, bus: &LiveBus, run: &mut Current, now: i64) -> Result<bool, Error> {
    let first = run.step + 1;
    let last = (run.step + STEPS_PER_TICK).min(LAST_STEP);
    let step_ms = TICK.as_millis() as i64 / STEPS_PER_TICK;
    let at = |s: i64| now - (last - s) * step_ms;
    let mut metrics = Vec::new();
    let mut point = |key: &str, step: i64, value: f64| {
        metrics.push(Metric {
            key: key.to_string(),
            point: Point {
                step,
                timestamp: at(step),
                value,
            },
        })
    };
    for s in first..=last {
        let loss = run.noise.jitter(decay(s, 6.5, run.floor, run.tau), 0.05);
        point("loss", s, loss);
        if s % 100 == 0 {
            point(
                "lr",
                s,
                warmup_cosine(s, 300, LAST_STEP, run.lr, run.lr * 0.01),
            );
        }
    }
    let ceiling = 0.44 - 0.3 * (run.floor - 1.1);
    let map = (saturate(last, 0.0, ceiling, run.tau * 1.5) + 0.003 * run.noise.gauss()).max(0.0);
    point("mAP", last, map);
    let watch = BatchWatch::of(bus, &metrics, &[]);
    let run_id = run.run_id.clone();
    let events = store.blocking(move |c| {
        write(c, |tx| {
            let batch = Batch {
                metrics,
                ..Batch::default()
            };
            let logged = log_batch(tx, &run_id, batch, false)?;
            Ok(watch
                .map(|w| w.events(tx, &run_id, &logged))
                .unwrap_or_default())
        })
    })?;
    bus.publish_all(events);
    run.step = last;
    Ok(last >= LAST_STEP)
}

/// Ends the live run `run_id` with `status` at `now`, remembers it among the finished ones
/// and publishes the changes.
fn finish(
    store: &Store,
    bus: &LiveBus,
    run_id: &str,
    status: RunStatus,
    now: i64,
) -> Result<(), Error> {
    let changed = store.blocking(|c| {
        write(c, |tx| {
            let mut changed: Vec<RunInfo> = end_run(tx, run_id, status, now)?.into_iter().collect();
            changed.extend(prune(tx)?);
            Ok(changed)
        })
    })?;
    for info in &changed {
        bus.run_changed(info);
    }
    Ok(())
}

/// Ends `run_id` if it is still RUNNING (and not deleted) and records it as finished;
/// answers its new info.
fn end_run(tx: &Conn, run_id: &str, status: RunStatus, now: i64) -> Result<Option<RunInfo>, Error> {
    meta::set(tx, META_CURRENT, "")?;
    let info = match runs::get_info(tx, run_id) {
        Ok(info) => info,
        Err(Error::NotFound(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut finished = finished_runs(tx)?;
    if !finished.iter().any(|id| id == run_id) {
        finished.push(run_id.to_string());
        meta::set(tx, META_FINISHED, &finished.join(","))?;
    }
    if info.status != "RUNNING" || info.lifecycle_stage != "active" {
        return Ok(None);
    }
    runs::update(tx, run_id, Some(status), Some(now), None).map(Some)
}

/// Deletes the finished live runs beyond the newest [`KEEP_FINISHED`]; answers the infos of
/// those it deleted.
fn prune(tx: &Conn) -> Result<Vec<RunInfo>, Error> {
    let finished = finished_runs(tx)?;
    let cut = finished.len().saturating_sub(KEEP_FINISHED);
    let mut deleted = Vec::new();
    for id in &finished[..cut] {
        match runs::get_info(tx, id) {
            Ok(info) if info.lifecycle_stage == "active" => {
                runs::set_deleted(tx, id, true)?;
                deleted.push(runs::get_info(tx, id)?);
            }
            Ok(_) | Err(Error::NotFound(_)) => {}
            Err(e) => return Err(e),
        }
    }
    meta::set(tx, META_FINISHED, &finished[cut..].join(","))?;
    Ok(deleted)
}

fn finished_runs(tx: &Conn) -> Result<Vec<String>, Error> {
    Ok(meta::get(tx, META_FINISHED)?
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect())
}

fn owned(kv: &[(&str, &str)]) -> Vec<(String, String)> {
    kv.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}
