//! Response encoding in protobuf-JSON style: int64 as numbers, enums by name, doubles with
//! "NaN"/"Infinity" strings, unset fields and empty lists omitted.

use api_types::F64;
use serde::Serialize;

use crate::tracking::model::{Experiment, Metric, Run, RunInfo};

/// A `{key, value}` pair.
#[derive(Serialize)]
pub struct KeyValue {
    key: String,
    value: String,
}

fn key_values(pairs: Vec<(String, String)>) -> Vec<KeyValue> {
    pairs
        .into_iter()
        .map(|(key, value)| KeyValue { key, value })
        .collect()
}

/// MLflow `Experiment`.
#[derive(Serialize)]
pub struct ExperimentJson {
    experiment_id: String,
    name: String,
    artifact_location: String,
    lifecycle_stage: String,
    last_update_time: i64,
    creation_time: i64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<KeyValue>,
}

impl From<Experiment> for ExperimentJson {
    fn from(e: Experiment) -> Self {
        ExperimentJson {
            experiment_id: e.experiment_id.to_string(),
            name: e.name,
            artifact_location: e.artifact_location,
            lifecycle_stage: e.lifecycle_stage,
            last_update_time: e.last_update_time,
            creation_time: e.creation_time,
            tags: key_values(e.tags),
        }
    }
}

/// MLflow `RunInfo`.
#[derive(Serialize)]
pub struct RunInfoJson {
    run_uuid: String,
    experiment_id: String,
    run_name: String,
    user_id: String,
    status: String,
    start_time: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_time: Option<i64>,
    artifact_uri: String,
    lifecycle_stage: String,
    run_id: String,
}

impl From<RunInfo> for RunInfoJson {
    fn from(i: RunInfo) -> Self {
        RunInfoJson {
            run_uuid: i.run_id.clone(),
            experiment_id: i.experiment_id.to_string(),
            run_name: i.run_name,
            user_id: i.user_id,
            status: i.status,
            start_time: i.start_time,
            end_time: i.end_time,
            artifact_uri: i.artifact_uri,
            lifecycle_stage: i.lifecycle_stage,
            run_id: i.run_id,
        }
    }
}

/// MLflow `Metric` (with `run_id` only in bulk answers).
#[derive(Serialize)]
pub struct MetricJson {
    key: String,
    value: F64,
    timestamp: i64,
    step: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    run_id: Option<String>,
}

impl MetricJson {
    /// Encodes a metric point, optionally naming its run.
    pub fn new(m: Metric, run_id: Option<String>) -> Self {
        MetricJson {
            key: m.key,
            value: F64(m.point.value),
            timestamp: m.point.timestamp,
            step: m.point.step,
            run_id,
        }
    }
}

/// MLflow `RunData`.
#[derive(Serialize)]
pub struct RunDataJson {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    metrics: Vec<MetricJson>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    params: Vec<KeyValue>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<KeyValue>,
}

/// An empty message (`RunInputs` with no datasets).
#[derive(Serialize)]
pub struct Empty {}

/// MLflow `Run`.
#[derive(Serialize)]
pub struct RunJson {
    info: RunInfoJson,
    data: RunDataJson,
    inputs: Empty,
}

impl From<Run> for RunJson {
    fn from(r: Run) -> Self {
        RunJson {
            info: r.info.into(),
            data: RunDataJson {
                metrics: r
                    .metrics
                    .into_iter()
                    .map(|m| MetricJson::new(m, None))
                    .collect(),
                params: key_values(r.params),
                tags: key_values(r.tags),
            },
            inputs: Empty {},
        }
    }
}
