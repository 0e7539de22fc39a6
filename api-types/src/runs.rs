//! Runs table and run page.

use serde::{Deserialize, Serialize};

use crate::F64;

/// A key and a string value (params, tags).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyValue {
    /// Key.
    pub key: String,
    /// Value.
    pub value: String,
}

/// The latest value of one metric of a run (MLflow's rule: max by step, timestamp, value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatestMetric {
    /// Metric key, e.g. `loss` or `system/cpu_utilization_percentage`.
    pub key: String,
    /// Value; NaN and ±inf kept.
    pub value: F64,
    /// Step of that value.
    pub step: i64,
    /// Timestamp of that value, ms since the epoch.
    pub timestamp: i64,
}

/// Columns requested for a runs table: which params, metrics and tags to include.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RunTableColumns {
    /// Param keys, in display order.
    pub params: Vec<String>,
    /// Metric keys, in display order.
    pub metrics: Vec<String>,
    /// Tag keys, in display order.
    pub tags: Vec<String>,
}

impl RunTableColumns {
    /// How many params, and how many metrics, the default columns show.
    pub const DEFAULT_EACH: usize = 4;

    /// The columns a runs table shows when none are chosen: the first
    /// [`Self::DEFAULT_EACH`] of the experiment's param keys and of its metric keys that
    /// are not system metrics (`system/…`), both as sorted in [`ExperimentDetail`], no tags.
    /// The same rule serves the app and the server's `columns=default`.
    ///
    /// [`ExperimentDetail`]: crate::ExperimentDetail
    pub fn defaults(param_keys: &[String], metric_keys: &[String]) -> Self {
        RunTableColumns {
            params: param_keys
                .iter()
                .take(Self::DEFAULT_EACH)
                .cloned()
                .collect(),
            metrics: metric_keys
                .iter()
                .filter(|k| !k.starts_with("system/"))
                .take(Self::DEFAULT_EACH)
                .cloned()
                .collect(),
            tags: Vec::new(),
        }
    }
}

/// One row of the runs table. `params`, `metrics` and `tags` are aligned with
/// [`RunTable::columns`]; `None` where the run lacks that key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    /// 32-hex run id.
    pub run_id: String,
    /// Run name.
    pub run_name: String,
    /// RUNNING, SCHEDULED, FINISHED, FAILED or KILLED.
    pub status: String,
    /// Start, ms since the epoch.
    pub start_time: i64,
    /// End, ms since the epoch; `None` while running.
    pub end_time: Option<i64>,
    /// User who logged the run.
    pub user_id: String,
    /// Parent run id (tag `mlflow.parentRunId`), if nested.
    pub parent_run_id: Option<String>,
    /// Values of the requested param columns.
    pub params: Vec<Option<String>>,
    /// Latest values of the requested metric columns.
    pub metrics: Vec<Option<F64>>,
    /// Values of the requested tag columns.
    pub tags: Vec<Option<String>>,
}

/// `GET /api/v1/experiments/{id}/runs?filter=&order_by=&params=&metrics=&tags=&view=&limit=&page_token=`:
/// one page of the matching runs in the requested order (the table fetches the pages its
/// scrolled window needs), only the requested columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunTable {
    /// The columns the rows are aligned with.
    pub columns: RunTableColumns,
    /// Matching runs in the requested order (parents and children alike; the client groups).
    pub rows: Vec<RunRow>,
    /// Number of matching runs, counted with the first page (later pages repeat it).
    pub total: u64,
    /// The token of the next page (pass it as `page_token`); `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// A link to a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRef {
    /// 32-hex run id.
    pub run_id: String,
    /// Run name.
    pub run_name: String,
    /// Status.
    pub status: String,
}

/// `GET /api/v1/runs/{id}`: everything the run page's overview shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunDetail {
    /// 32-hex run id.
    pub run_id: String,
    /// Run name.
    pub run_name: String,
    /// Experiment id.
    pub experiment_id: String,
    /// Experiment name.
    pub experiment_name: String,
    /// RUNNING, SCHEDULED, FINISHED, FAILED or KILLED.
    pub status: String,
    /// `active` or `deleted`.
    pub lifecycle_stage: String,
    /// Start, ms since the epoch.
    pub start_time: i64,
    /// End, ms since the epoch; `None` while running.
    pub end_time: Option<i64>,
    /// User who logged the run.
    pub user_id: String,
    /// Artifact root of the run.
    pub artifact_uri: String,
    /// Params, sorted by key.
    pub params: Vec<KeyValue>,
    /// Tags, sorted by key.
    pub tags: Vec<KeyValue>,
    /// Latest value of every metric, sorted by key.
    pub metrics: Vec<LatestMetric>,
    /// Parent run, if nested.
    pub parent: Option<RunRef>,
    /// Child runs, by start time.
    pub children: Vec<RunRef>,
    /// Whether the caller may edit the run (CAN_EDIT on its experiment or more).
    #[serde(default)]
    pub can_edit: bool,
}
