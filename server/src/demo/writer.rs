//! Writes demo experiments, runs, params, tags and metric series through the tracking
//! domain's functions (the ones behind the MLflow API: `runs::create`, `log_batch`, ...),
//! inside the caller's transaction. Only the values and times are the demo's own.

use crate::db::Conn;

use super::curves::Noise;
use crate::tracking::experiments;
use crate::tracking::log_batch::{log_batch, Batch};
use crate::tracking::model::{Metric, Point, RunStatus};
use crate::tracking::runs::{self, NewRun};
use crate::tracking::validation::MAX_METRICS_PER_BATCH;
use crate::Error;

/// When a run's steps happen: step `s` is logged at about `start + (s - first) * step_ms`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeline {
    /// Wall time of `first`, ms since the epoch.
    pub start: i64,
    /// Milliseconds per step.
    pub step_ms: i64,
    /// First logged step.
    pub first: i64,
    /// Last logged step.
    pub last: i64,
}

impl Timeline {
    /// Timestamp of `step`, with a small deterministic jitter that keeps time increasing.
    pub(crate) fn at(&self, step: i64) -> i64 {
        let jitter = (step.wrapping_mul(7_919)).rem_euclid((self.step_ms / 3).max(1));
        self.start + (step - self.first) * self.step_ms + jitter
    }

    /// Wall time just after the last step.
    pub(crate) fn end(&self) -> i64 {
        self.at(self.last) + self.step_ms
    }
}

/// A run to insert.
pub(crate) struct RunSpec<'a> {
    /// Experiment id.
    pub experiment_id: i64,
    /// Run name (also tag `mlflow.runName`).
    pub name: &'a str,
    /// User (also tag `mlflow.user`).
    pub user: &'a str,
    /// RUNNING, FINISHED, FAILED or KILLED.
    pub status: &'a str,
    /// Start, ms since the epoch.
    pub start: i64,
    /// End; `None` while running.
    pub end: Option<i64>,
    /// Entry point (tag `mlflow.source.name`).
    pub source: &'a str,
    /// Description (tag `mlflow.note.content`).
    pub note: Option<&'a str>,
    /// Parent run id (tag `mlflow.parentRunId`).
    pub parent: Option<&'a str>,
}

/// Writes demo data through the tracking domain, on one connection (a transaction).
pub(crate) struct Writer<'c> {
    conn: &'c Conn,
    /// The seeded randomness all demo values come from.
    pub noise: Noise,
}

/// Owned `(key, value)` pairs from borrowed ones.
fn pairs(kv: &[(&str, &str)]) -> Vec<(String, String)> {
    kv.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

impl<'c> Writer<'c> {
    /// A writer over `conn`, with randomness seeded by `seed`.
    pub(crate) fn new(conn: &'c Conn, seed: u64) -> Self {
        Writer {
            conn,
            noise: Noise::new(seed),
        }
    }

    /// Creates an experiment with a description, created at `created`; returns its id.
    pub(crate) fn experiment(
        &mut self,
        name: &str,
        created: i64,
        note: &str,
    ) -> Result<i64, Error> {
        let tags = pairs(&[("mlflow.note.content", note)]);
        experiments::create_at(self.conn, name, None, &tags, created).map_err(|e| match e {
            Error::AlreadyExists(_) => Error::AlreadyExists(format!(
                "cannot load the demo: experiment '{name}' already exists in this data dir"
            )),
            other => other,
        })
    }

    /// Creates a run with MLflow's system tags, in its final status; returns its id (from
    /// the seed).
    pub(crate) fn run(&mut self, spec: &RunSpec<'_>) -> Result<String, Error> {
        let id = self.noise.run_id();
        let mut tags = vec![
            ("mlflow.user", spec.user),
            ("mlflow.source.name", spec.source),
            ("mlflow.source.type", "LOCAL"),
        ];
        tags.extend(spec.note.map(|n| ("mlflow.note.content", n)));
        tags.extend(spec.parent.map(|p| ("mlflow.parentRunId", p)));
        let new = NewRun {
            experiment_id: spec.experiment_id,
            user_id: spec.user.to_string(),
            run_name: Some(spec.name.to_string()),
            start_time: Some(spec.start),
            tags: pairs(&tags),
        };
        let id = runs::create_with_id(self.conn, id, new)?;
        let status = RunStatus::parse(spec.status)
            .ok_or_else(|| Error::Internal(format!("demo run status {}", spec.status)))?;
        runs::update(self.conn, &id, Some(status), spec.end, None)?;
        Ok(id)
    }

    /// Logs run params.
    pub(crate) fn params(&mut self, run: &str, params: &[(&str, &str)]) -> Result<(), Error> {
        let batch = Batch {
            params: pairs(params),
            ..Batch::default()
        };
        log_batch(self.conn, run, batch, false).map(drop)
    }

    /// Sets run tags.
    pub(crate) fn tags(&mut self, run: &str, tags: &[(&str, &str)]) -> Result<(), Error> {
        let batch = Batch {
            tags: pairs(tags),
            ..Batch::default()
        };
        log_batch(self.conn, run, batch, false).map(drop)
    }

    /// Logs metric `key` every `every` steps of `tl` (and at its last step), with values
    /// from `value(step, noise)`.
    pub(crate) fn curve(
        &mut self,
        run: &str,
        key: &str,
        tl: &Timeline,
        every: i64,
        mut value: impl FnMut(i64, &mut Noise) -> f64,
    ) -> Result<(), Error> {
        let first = tl.first + (every - tl.first.rem_euclid(every)) % every;
        let mut steps: Vec<i64> = (first..=tl.last).step_by(every as usize).collect();
        if steps.last() != Some(&tl.last) {
            steps.push(tl.last);
        }
        let points: Vec<(i64, i64, f64)> = steps
            .into_iter()
            .map(|s| (s, tl.at(s), value(s, &mut self.noise)))
            .collect();
        self.metric(run, key, &points)
    }

    /// Logs `metrics` (any keys), in batches as a client would.
    pub(crate) fn metrics(&mut self, run: &str, metrics: Vec<Metric>) -> Result<(), Error> {
        for chunk in metrics.chunks(MAX_METRICS_PER_BATCH) {
            let batch = Batch {
                metrics: chunk.to_vec(),
                ..Batch::default()
            };
            log_batch(self.conn, run, batch, false)?;
        }
        Ok(())
    }

    /// Logs `(step, timestamp, value)` points of one key, in batches as a client would.
    pub(crate) fn metric(
        &mut self,
        run: &str,
        key: &str,
        points: &[(i64, i64, f64)],
    ) -> Result<(), Error> {
        for chunk in points.chunks(MAX_METRICS_PER_BATCH) {
            let metrics = chunk
                .iter()
                .map(|&(step, timestamp, value)| Metric {
                    key: key.to_string(),
                    point: Point {
                        step,
                        timestamp,
                        value,
                    },
                })
                .collect();
            let batch = Batch {
                metrics,
                ..Batch::default()
            };
            log_batch(self.conn, run, batch, false)?;
        }
        Ok(())
    }
}
