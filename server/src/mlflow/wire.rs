//! Response encoding in protobuf-JSON style: int64 as numbers, enums by name, doubles with
//! "NaN"/"Infinity" strings, unset fields and empty lists omitted.

use api_types::F64;
use serde::Serialize;

use crate::models::inputs::{DatasetInput, RunIo};
use crate::models::logged::{LoggedModel, ModelMetric};
use crate::tracking::model::{Experiment, Metric, Run, RunInfo};

/// A `{key, value}` pair.
#[derive(Serialize)]
pub(crate) struct KeyValue {
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
pub(crate) struct ExperimentJson {
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
pub(crate) struct RunInfoJson {
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
pub(crate) struct MetricJson {
    key: String,
    value: F64,
    timestamp: i64,
    step: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    run_id: Option<String>,
}

impl MetricJson {
    /// Encodes a metric point, optionally naming its run.
    pub(crate) fn new(m: Metric, run_id: Option<String>) -> Self {
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
pub(crate) struct RunDataJson {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    metrics: Vec<MetricJson>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    params: Vec<KeyValue>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<KeyValue>,
}

/// MLflow `Dataset`.
#[derive(Serialize)]
pub(crate) struct DatasetJson {
    name: String,
    digest: String,
    source_type: String,
    source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    schema: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    profile: Option<String>,
}

/// MLflow `DatasetInput`.
#[derive(Serialize)]
pub(crate) struct DatasetInputJson {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<KeyValue>,
    dataset: DatasetJson,
}

impl From<DatasetInput> for DatasetInputJson {
    fn from(i: DatasetInput) -> Self {
        let d = i.dataset;
        DatasetInputJson {
            tags: key_values(i.tags),
            dataset: DatasetJson {
                name: d.name,
                digest: d.digest,
                source_type: d.source_type,
                source: d.source,
                schema: d.schema,
                profile: d.profile,
            },
        }
    }
}

/// MLflow `LoggedModelInput`.
#[derive(Serialize)]
pub(crate) struct ModelInputJson {
    model_id: String,
}

/// MLflow `LoggedModelOutput`.
#[derive(Serialize)]
pub(crate) struct ModelOutputJson {
    model_id: String,
    step: i64,
}

/// MLflow `RunInputs`.
#[derive(Serialize)]
pub(crate) struct RunInputsJson {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    dataset_inputs: Vec<DatasetInputJson>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    model_inputs: Vec<ModelInputJson>,
}

/// MLflow `RunOutputs`.
#[derive(Serialize)]
pub(crate) struct RunOutputsJson {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    model_outputs: Vec<ModelOutputJson>,
}

/// MLflow `Run`.
#[derive(Serialize)]
pub(crate) struct RunJson {
    info: RunInfoJson,
    data: RunDataJson,
    inputs: RunInputsJson,
    outputs: RunOutputsJson,
}

impl RunJson {
    /// Encodes a run with its inputs and outputs.
    pub(crate) fn with_io(r: Run, io: RunIo) -> Self {
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
            inputs: RunInputsJson {
                dataset_inputs: io.datasets.into_iter().map(Into::into).collect(),
                model_inputs: io
                    .model_inputs
                    .into_iter()
                    .map(|model_id| ModelInputJson { model_id })
                    .collect(),
            },
            outputs: RunOutputsJson {
                model_outputs: io
                    .model_outputs
                    .into_iter()
                    .map(|o| ModelOutputJson {
                        model_id: o.model_id,
                        step: o.step,
                    })
                    .collect(),
            },
        }
    }
}

impl From<Run> for RunJson {
    /// A run without inputs or outputs (e.g. one just created).
    fn from(r: Run) -> Self {
        RunJson::with_io(r, RunIo::default())
    }
}

/// A metric linked to a logged model (MLflow `Metric` with `run_id`, `model_id` and its
/// dataset).
#[derive(Serialize)]
pub(crate) struct ModelMetricJson {
    key: String,
    value: F64,
    timestamp: i64,
    step: i64,
    run_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    dataset_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dataset_digest: Option<String>,
    model_id: String,
}

/// MLflow `LoggedModelInfo`.
#[derive(Serialize)]
pub(crate) struct LoggedModelInfoJson {
    model_id: String,
    experiment_id: String,
    name: String,
    creation_timestamp_ms: i64,
    last_updated_timestamp_ms: i64,
    artifact_uri: String,
    status: &'static str,
    // MLflow stores the request's (possibly empty) strings, so both are always present.
    model_type: String,
    source_run_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    status_message: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<KeyValue>,
}

/// MLflow `LoggedModelData`.
#[derive(Serialize)]
pub(crate) struct LoggedModelDataJson {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    params: Vec<KeyValue>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    metrics: Vec<ModelMetricJson>,
}

/// MLflow `LoggedModel`.
#[derive(Serialize)]
pub(crate) struct LoggedModelJson {
    info: LoggedModelInfoJson,
    data: LoggedModelDataJson,
}

impl From<LoggedModel> for LoggedModelJson {
    fn from(m: LoggedModel) -> Self {
        let model_id = m.model_id;
        let metric = |x: ModelMetric| ModelMetricJson {
            key: x.key,
            value: F64(x.point.value),
            timestamp: x.point.timestamp,
            step: x.point.step,
            run_id: x.run_id,
            dataset_name: x.dataset_name,
            dataset_digest: x.dataset_digest,
            model_id: model_id.clone(),
        };
        let metrics = m.metrics.into_iter().map(metric).collect();
        LoggedModelJson {
            info: LoggedModelInfoJson {
                model_id: model_id.clone(),
                experiment_id: m.experiment_id.to_string(),
                name: m.name,
                creation_timestamp_ms: m.creation_time,
                last_updated_timestamp_ms: m.last_updated_time,
                artifact_uri: m.artifact_uri,
                status: m.status.as_str(),
                model_type: m.model_type.unwrap_or_default(),
                source_run_id: m.source_run_id.unwrap_or_default(),
                status_message: m.status_message,
                tags: key_values(m.tags),
            },
            data: LoggedModelDataJson {
                params: key_values(m.params),
                metrics,
            },
        }
    }
}
