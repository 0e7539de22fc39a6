//! Experiments list and experiment page.

use serde::{Deserialize, Serialize};

/// One row of the experiments page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentSummary {
    /// MLflow experiment id (a decimal string; `"0"` is Default).
    pub id: String,
    /// Full name, usually a workspace path such as `/Users/alice@example.com/sft`.
    pub name: String,
    /// `active` or `deleted`.
    pub lifecycle_stage: String,
    /// Creation time, ms since the epoch.
    pub creation_time: i64,
    /// Last update of the experiment or of any of its runs, ms since the epoch.
    pub last_update_time: i64,
    /// Number of active runs.
    pub run_count: u64,
    /// Free-text description (tag `mlflow.note.content`), if any.
    pub description: Option<String>,
}

/// Sort key of the experiments page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ExperimentSort {
    /// By name (byte order).
    Name,
    /// By last update time (default, newest first when descending).
    #[default]
    LastUpdate,
    /// By creation time.
    Created,
    /// By number of runs.
    Runs,
}

/// `GET /api/v1/experiments?q=&sort=&desc=&offset=&limit=`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentList {
    /// This page of experiments.
    pub items: Vec<ExperimentSummary>,
    /// Number of experiments matching `q`, over all pages.
    pub total: u64,
}

/// `GET /api/v1/experiments/{id}`: the experiment and the keys its runs use, so the runs
/// table can offer columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentDetail {
    /// The experiment.
    pub experiment: ExperimentSummary,
    /// Experiment tags.
    pub tags: Vec<crate::KeyValue>,
    /// Distinct param keys over the experiment's runs, sorted.
    pub param_keys: Vec<String>,
    /// Distinct metric keys over the experiment's runs, sorted.
    pub metric_keys: Vec<String>,
    /// Distinct tag keys over the experiment's runs (without `mlflow.` system tags), sorted.
    pub tag_keys: Vec<String>,
    /// Whether the caller may edit the experiment and its runs (rename, describe, tag,
    /// delete, restore): CAN_EDIT or more.
    #[serde(default)]
    pub can_edit: bool,
}
