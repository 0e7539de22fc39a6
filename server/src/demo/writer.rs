//! Writes demo experiments, runs, params, tags and metric series with plain SQL inside one
//! transaction, keeping `latest_metrics` consistent with MLflow's rule.

use rusqlite::Transaction;

use super::curves::Noise;
use crate::Error;

/// When a run's steps happen: step `s` is logged at about `start + (s - first) * step_ms`.
#[derive(Debug, Clone, Copy)]
pub struct Timeline {
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
    pub fn at(&self, step: i64) -> i64 {
        let jitter = (step.wrapping_mul(7_919)).rem_euclid((self.step_ms / 3).max(1));
        self.start + (step - self.first) * self.step_ms + jitter
    }

    /// Wall time just after the last step.
    pub fn end(&self) -> i64 {
        self.at(self.last) + self.step_ms
    }
}

/// A run to insert.
pub struct RunSpec<'a> {
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

/// Inserts demo rows through cached prepared statements of one transaction.
pub struct Writer<'t> {
    tx: &'t Transaction<'t>,
    /// The seeded randomness all demo values come from.
    pub noise: Noise,
}

impl<'t> Writer<'t> {
    /// A writer over `tx`, with randomness seeded by `seed`.
    pub fn new(tx: &'t Transaction<'t>, seed: u64) -> Self {
        Writer {
            tx,
            noise: Noise::new(seed),
        }
    }

    /// Creates an experiment with a description; returns its id.
    pub fn experiment(&mut self, name: &str, created: i64, note: &str) -> Result<i64, Error> {
        let taken: bool = self.tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM experiments WHERE name = ?1)",
            [name],
            |r| r.get(0),
        )?;
        if taken {
            return Err(Error::AlreadyExists(format!(
                "cannot load the demo: experiment '{name}' already exists in this data dir"
            )));
        }
        self.tx
            .prepare_cached(
                "INSERT INTO experiments (name, artifact_location, lifecycle_stage,
                   creation_time, last_update_time) VALUES (?1, '', 'active', ?2, ?2)",
            )?
            .execute(rusqlite::params![name, created])?;
        let id = self.tx.last_insert_rowid();
        self.tx.execute(
            "UPDATE experiments SET artifact_location = ?1 WHERE experiment_id = ?2",
            rusqlite::params![format!("mlflow-artifacts:/{id}"), id],
        )?;
        self.tx
            .prepare_cached(
                "INSERT INTO experiment_tags (experiment_id, key, value) VALUES (?1, ?2, ?3)",
            )?
            .execute(rusqlite::params![id, "mlflow.note.content", note])?;
        Ok(id)
    }

    /// Creates a run with MLflow's system tags; returns its id.
    pub fn run(&mut self, spec: &RunSpec<'_>) -> Result<String, Error> {
        let id = self.noise.run_id();
        let artifacts = format!("mlflow-artifacts:/{}/{id}/artifacts", spec.experiment_id);
        self.tx
            .prepare_cached(
                "INSERT INTO runs (run_uuid, experiment_id, name, user_id, status, start_time,
                   end_time, lifecycle_stage, artifact_uri) VALUES (?1,?2,?3,?4,?5,?6,?7,'active',?8)",
            )?
            .execute(rusqlite::params![
                id,
                spec.experiment_id,
                spec.name,
                spec.user,
                spec.status,
                spec.start,
                spec.end,
                artifacts
            ])?;
        let mut tags = vec![
            ("mlflow.runName", spec.name),
            ("mlflow.user", spec.user),
            ("mlflow.source.name", spec.source),
            ("mlflow.source.type", "LOCAL"),
        ];
        tags.extend(spec.note.map(|n| ("mlflow.note.content", n)));
        tags.extend(spec.parent.map(|p| ("mlflow.parentRunId", p)));
        self.tags(&id, &tags)?;
        Ok(id)
    }

    /// Sets run params.
    pub fn params(&mut self, run: &str, params: &[(&str, &str)]) -> Result<(), Error> {
        self.key_values("params", run, params)
    }

    /// Sets run tags.
    pub fn tags(&mut self, run: &str, tags: &[(&str, &str)]) -> Result<(), Error> {
        self.key_values("tags", run, tags)
    }

    fn key_values(&mut self, table: &str, run: &str, kv: &[(&str, &str)]) -> Result<(), Error> {
        let sql = format!("INSERT INTO {table} (run_uuid, key, value) VALUES (?1, ?2, ?3)");
        let mut stmt = self.tx.prepare_cached(&sql)?;
        for (k, v) in kv {
            stmt.execute([run, k, v])?;
        }
        Ok(())
    }

    /// Logs metric `key` every `every` steps of `tl` (and at its last step), with values
    /// from `value(step, noise)`.
    pub fn curve(
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

    /// Logs `(step, timestamp, value)` points of one key, ordered by (step, timestamp),
    /// and records the last one as the latest value (MLflow's max by step, timestamp).
    pub fn metric(
        &mut self,
        run: &str,
        key: &str,
        points: &[(i64, i64, f64)],
    ) -> Result<(), Error> {
        let Some(&(step, ts, value)) = points.last() else {
            return Ok(());
        };
        self.tx
            .prepare_cached("INSERT INTO metric_series (run_uuid, key) VALUES (?1, ?2)")?
            .execute([run, key])?;
        let series = self.tx.last_insert_rowid();
        let mut stmt = self.tx.prepare_cached(
            "INSERT OR IGNORE INTO metric_points (series_id, step, timestamp, is_nan, value)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for &(s, t, v) in points {
            stmt.execute(rusqlite::params![series, s, t, v.is_nan(), stored(v)])?;
        }
        self.tx
            .prepare_cached(
                "INSERT INTO latest_metrics (run_uuid, key, step, timestamp, is_nan, value)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(rusqlite::params![
                run,
                key,
                step,
                ts,
                value.is_nan(),
                stored(value)
            ])?;
        Ok(())
    }
}

/// NaN is stored as 0 with `is_nan = 1` (SQLite would turn NaN into NULL).
fn stored(v: f64) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v
    }
}
