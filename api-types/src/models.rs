//! Logged models (MLflow 3), the model registry, and a run's dataset inputs, as the app
//! shows them.
//!
//! Routes (app API, `/api/v1`):
//! - `GET /runs/{id}/io` → [`RunIo`]: the run's dataset inputs and the logged models it
//!   produced (read on the experiment).
//! - `GET /logged-models/{model_id}` → [`LoggedModelDetail`] (read on its experiment).
//! - `GET /registered-models?q=&page_token=` → [`RegisteredModelList`]: the registered
//!   models the caller may read, by name; `q` is a case-insensitive substring.
//! - `GET /registered-models/{name}` → [`RegisteredModelDetail`] (read on the model).

use serde::{Deserialize, Serialize};

use crate::{KeyValue, LatestMetric};

/// A logged model in lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedModelSummary {
    /// `m-<32 hex>`.
    pub model_id: String,
    /// Name given at logging (`model` by default).
    pub name: String,
    /// Experiment id.
    pub experiment_id: String,
    /// The run that logged it, if any.
    pub source_run_id: Option<String>,
    /// `LOGGED_MODEL_PENDING`, `LOGGED_MODEL_READY` or `LOGGED_MODEL_UPLOAD_FAILED`.
    pub status: String,
    /// Model type, if given.
    pub model_type: Option<String>,
    /// Created, ms since the epoch.
    pub creation_time: i64,
    /// Its artifact root (`mlflow-artifacts:/1/models/m-.../artifacts`).
    pub artifact_uri: String,
    /// Registered model versions made from it.
    pub registrations: Vec<ModelVersionRef>,
}

/// A logged model with its data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggedModelDetail {
    /// The model.
    pub model: LoggedModelSummary,
    /// Experiment name.
    pub experiment_name: String,
    /// Source run name, if the run exists.
    pub source_run_name: Option<String>,
    /// Params.
    pub params: Vec<KeyValue>,
    /// Latest metrics linked to it.
    pub metrics: Vec<LatestMetric>,
    /// Tags (`mlflow.*` included).
    pub tags: Vec<KeyValue>,
}

/// A registered model version, named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelVersionRef {
    /// Registered model name.
    pub name: String,
    /// Version number as text (`"1"`).
    pub version: String,
}

/// One version of a registered model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelVersionInfo {
    /// Version number as text.
    pub version: String,
    /// Source URI as registered (`models:/m-...`, `runs:/<id>/model`, ...).
    pub source: String,
    /// Run it came from, if known.
    pub run_id: Option<String>,
    /// Logged model it came from, if known.
    pub model_id: Option<String>,
    /// `READY`, `PENDING_REGISTRATION` or `FAILED_REGISTRATION`.
    pub status: String,
    /// Legacy stage (`None`, `Staging`, `Production`, `Archived`).
    pub stage: String,
    /// Aliases pointing at it.
    pub aliases: Vec<String>,
    /// Description.
    pub description: String,
    /// Who registered it.
    pub user_id: String,
    /// Created, ms since the epoch.
    pub creation_time: i64,
    /// Tags.
    pub tags: Vec<KeyValue>,
}

/// A registered model in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisteredModelSummary {
    /// Unique name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Created, ms since the epoch.
    pub creation_time: i64,
    /// Last change, ms since the epoch.
    pub last_updated_time: i64,
    /// Number of versions.
    pub version_count: u64,
    /// Highest version number as text, if any.
    pub latest_version: Option<String>,
    /// Aliases: (alias, version).
    pub aliases: Vec<KeyValue>,
    /// Tags.
    pub tags: Vec<KeyValue>,
}

/// A page of registered models.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisteredModelList {
    /// Models by name.
    pub models: Vec<RegisteredModelSummary>,
    /// Present when more follow.
    pub next_page_token: Option<String>,
}

/// A registered model and every version, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisteredModelDetail {
    /// The model.
    pub model: RegisteredModelSummary,
    /// Versions, newest first.
    pub versions: Vec<ModelVersionInfo>,
    /// Whether the caller holds CAN_EDIT or above: may change the description, set and
    /// delete the model's tags, set aliases, set versions' descriptions and tags and move
    /// versions between stages.
    #[serde(default)]
    pub can_edit: bool,
    /// Whether the caller holds CAN_MANAGE: may also delete aliases, versions' tags,
    /// versions and the model, and share it (MLflow's auth asks MANAGE for these).
    #[serde(default)]
    pub can_manage: bool,
}

/// A dataset a run used (`mlflow.log_input`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetInput {
    /// Dataset name.
    pub name: String,
    /// Digest.
    pub digest: String,
    /// Source type (`local`, `http`, `code`, ...).
    pub source_type: String,
    /// Source (JSON text as logged).
    pub source: String,
    /// Schema (JSON text), if logged.
    pub schema: Option<String>,
    /// Profile (JSON text), if logged.
    pub profile: Option<String>,
    /// Input tags (e.g. `mlflow.data.context` = `training`).
    pub tags: Vec<KeyValue>,
}

/// A run's inputs and outputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunIo {
    /// Datasets it used.
    pub datasets: Vec<DatasetInput>,
    /// Logged models it used as inputs (model ids).
    pub model_inputs: Vec<String>,
    /// Logged models it produced.
    pub models: Vec<LoggedModelSummary>,
}
