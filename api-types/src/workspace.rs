//! The experiment workspace: charts of several runs in one request, the live
//! feed of an experiment page, and the runs table's CSV export.

use serde::{Deserialize, Serialize};

use crate::{LatestMetric, MetricSeries, SeriesPoint, XAxis};

/// Most runs one [`SeriesBatchQuery`] may name.
pub const MAX_BATCH_RUNS: usize = 100;

/// Most metric keys one [`SeriesBatchQuery`] may name.
pub const MAX_BATCH_KEYS: usize = 50;

/// Most (run, key) series one batch may ask for (`runs × keys`).
pub const MAX_BATCH_SERIES: usize = 1_000;

/// `GET /api/v1/experiments/{id}/series?run=&run=&key=&key=&x=&x_key=&width=&x_min=&x_max=`:
/// the metrics `keys` of the runs `runs` (all of the experiment), each reduced with M4 as
/// `GET /runs/{id}/series` does, in one round trip.
///
/// - `run` and `key` repeat, one value each (a key may contain a comma); order is kept,
///   repeats are dropped. 1..=[`MAX_BATCH_RUNS`] runs, 1..=[`MAX_BATCH_KEYS`] keys and at
///   most [`MAX_BATCH_SERIES`] pairs, else 400 `INVALID_PARAMETER`.
/// - `x_key`: when set, x is the value of metric `x_key` at the same step of the same run
///   (W&B's "x axis: another metric"). Points are then reduced on the step axis over
///   `[x_min, x_max]` *steps* (so zoom is by step), and each point's x is in
///   [`MetricSeries::x_values`]; points whose step has no `x_key` value are dropped. `x`
///   is ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SeriesBatchQuery {
    /// Run ids (32 hex), at least one.
    pub runs: Vec<String>,
    /// Metric keys, at least one.
    pub keys: Vec<String>,
    /// What x measures (ignored with `x_key`).
    pub x: XAxis,
    /// Another metric as the x axis.
    pub x_key: Option<String>,
    /// Pixel columns, 1 to 10,000 (1,000 when absent).
    pub width: Option<u32>,
    /// Left end of the x range; finite.
    pub x_min: Option<f64>,
    /// Right end of the x range; finite.
    pub x_max: Option<f64>,
}

impl SeriesBatchQuery {
    /// The query string's `(key, value)` pairs (`run` and `key` once per item).
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out: Vec<(&'static str, String)> = Vec::new();
        out.extend(self.runs.iter().map(|r| ("run", r.clone())));
        out.extend(self.keys.iter().map(|k| ("key", k.clone())));
        if self.x != XAxis::Step {
            out.push(("x", crate::query::axis_name(self.x).to_string()));
        }
        if let Some(k) = self.x_key.clone().filter(|k| !k.is_empty()) {
            out.push(("x_key", k));
        }
        if let Some(w) = self.width {
            out.push(("width", w.to_string()));
        }
        if let Some(v) = self.x_min {
            out.push(("x_min", v.to_string()));
        }
        if let Some(v) = self.x_max {
            out.push(("x_max", v.to_string()));
        }
        out
    }
}

/// Answer of `GET /api/v1/experiments/{id}/series`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesBatch {
    /// One series per (run, key) asked for, run-major in the order asked (a key a run never
    /// logged gives an empty series). Runs in `missing` have none.
    pub series: Vec<MetricSeries>,
    /// Requested run ids that are not runs of this experiment (deleted for good, a typo,
    /// another experiment's): a shared link naming them still opens.
    pub missing: Vec<String>,
}

/// `GET /api/v1/experiments/{id}/live?run=&run=`: the experiment page's one live stream
/// (Server-Sent Events). It carries what is written while it is open:
///
/// - `event: update`, `data:` a [`LiveUpdate`], at most about every 250 ms while writes
///   happen (writes in between are merged), nothing otherwise;
/// - `event: resync`, `data: ""`: the server dropped events (a slow reader); refetch what
///   the page shows, then carry on;
/// - `event: unauthenticated`, `data:` an [`crate::ApiError`]: the credential the stream
///   was opened with no longer holds (token revoked, signed out, password changed,
///   account disabled); the stream ends, sign in again;
/// - `: keep-alive` comments every 15 s.
///
/// `run` (repeatable, at most [`MAX_BATCH_RUNS`]) names the runs whose every new point is
/// wanted (the chart view's selection); every run of the experiment gets status changes
/// and its newest value per metric key (the table). Access is re-checked every second;
/// losing it closes the stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct LiveQuery {
    /// Runs whose points are streamed.
    pub runs: Vec<String>,
}

impl LiveQuery {
    /// The query string's `(key, value)` pairs.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        self.runs.iter().map(|r| ("run", r.clone())).collect()
    }
}

/// A run's new name, status or end, as the live stream reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunChange {
    /// Run id.
    pub run_id: String,
    /// Run name.
    pub run_name: String,
    /// RUNNING, SCHEDULED, FINISHED, FAILED or KILLED.
    pub status: String,
    /// End, ms since the epoch, once finished.
    pub end_time: Option<i64>,
    /// `active` or `deleted`.
    pub lifecycle_stage: String,
}

/// New points of one series of a streamed run, in the order they were written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LivePoints {
    /// Run id.
    pub run_id: String,
    /// Metric key.
    pub key: String,
    /// The points (not reduced: the client appends them to what it drew).
    pub points: Vec<SeriesPoint>,
}

/// The newest value of one metric of one run after a write (MLflow's latest rule).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveLatest {
    /// Run id.
    pub run_id: String,
    /// The metric's latest value after the write.
    pub metric: LatestMetric,
}

/// One `event: update` of the live stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct LiveUpdate {
    /// Server time of the update, ms since the epoch ("live · updated 12:03:07").
    pub at: i64,
    /// Runs created, renamed, finished, deleted or restored.
    pub runs: Vec<RunChange>,
    /// New points of the runs named in the stream's `run=`.
    pub series: Vec<LivePoints>,
    /// New latest values, every run of the experiment.
    pub latest: Vec<LiveLatest>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_pairs_repeat_runs_and_keys() {
        let q = SeriesBatchQuery {
            runs: vec!["a".into(), "b".into()],
            keys: vec!["loss,x".into()],
            x: XAxis::Relative,
            x_key: Some("epoch".into()),
            width: Some(800),
            x_min: Some(1.5),
            x_max: None,
        };
        assert_eq!(
            q.to_pairs(),
            vec![
                ("run", "a".to_string()),
                ("run", "b".to_string()),
                ("key", "loss,x".to_string()),
                ("x", "relative".to_string()),
                ("x_key", "epoch".to_string()),
                ("width", "800".to_string()),
                ("x_min", "1.5".to_string()),
            ]
        );
    }
}
