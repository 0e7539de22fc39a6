//! Artifacts of runs and logged models, as the app's Artifacts tab reads them.
//!
//! Routes (app API, `/api/v1`; read access to the owning experiment, 403 otherwise):
//! - `GET /runs/{id}/artifacts?path=&page_token=` → [`ArtifactList`]: one folder level
//!   (folders first, then files, by name), 1,000 entries a page. `path` is relative to
//!   the run's artifact root (`""` = root). A path that is a file answers its one entry
//!   with `is_dir: false`; a missing path 404 `RESOURCE_DOES_NOT_EXIST`.
//! - `GET /runs/{id}/artifacts/file?path=[&download=1]` → the file's bytes, streamed.
//!   `Range: bytes=a-b` is honoured (206), so the app pages large text files.
//!   Always `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox;
//!   default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'`: an uploaded
//!   SVG or HTML never runs script in runlens' origin. HTML is served as `text/plain`.
//!   `download=1` adds `Content-Disposition: attachment; filename=...`.
//! - `GET /runs/{id}/artifacts/zip?path=` → a folder as a zip, streamed (never built in
//!   memory), `Content-Disposition: attachment; filename=<folder>.zip`.
//! - `GET /runs/{id}/artifacts/mlmodel?path=` → [`MlModelSummary`] of the `MLmodel`
//!   file at `path` (a file named `MLmodel`, or a folder holding one).
//! - The same four under `/logged-models/{model_id}/artifacts...`, relative to the
//!   logged model's artifact root.

use serde::{Deserialize, Serialize};

/// Entries in one page of an [`ArtifactList`].
pub const ARTIFACT_PAGE: usize = 1_000;

/// One file or folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactEntry {
    /// Path relative to the artifact root, `/`-separated (e.g. `model/MLmodel`).
    pub path: String,
    /// Whether it is a folder.
    pub is_dir: bool,
    /// Size in bytes (files only).
    pub size: Option<u64>,
}

/// One folder level of a run's (or logged model's) artifacts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactList {
    /// The artifact root as MLflow names it (`mlflow-artifacts:/1/<run>/artifacts`).
    pub root_uri: String,
    /// The folder listed, relative to the root (`""` = root).
    pub path: String,
    /// Its entries: folders first, then files, each group by name.
    pub entries: Vec<ArtifactEntry>,
    /// Present when more entries follow; pass it back as `page_token`.
    pub next_page_token: Option<String>,
}

/// Query of the artifact routes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactQuery {
    /// Path relative to the artifact root (`""` = root).
    #[serde(default)]
    pub path: String,
    /// Page token of a listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_token: Option<String>,
    /// `file` only: answer as an attachment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download: Option<u8>,
}

/// What the app shows of an `MLmodel` file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MlModelSummary {
    /// Path of the `MLmodel` file, relative to the artifact root.
    pub path: String,
    /// Flavor names (`python_function`, `sklearn`, ...), in file order.
    pub flavors: Vec<String>,
    /// `mlflow_version` that wrote it.
    pub mlflow_version: Option<String>,
    /// `model_id` (MLflow 3 logged model), if any.
    pub model_id: Option<String>,
    /// `run_id` that logged it, if any.
    pub run_id: Option<String>,
    /// `utc_time_created`.
    pub created: Option<String>,
    /// Signature inputs, one line per column (`name: type`), if a signature is present.
    pub signature_inputs: Vec<String>,
    /// Signature outputs, likewise.
    pub signature_outputs: Vec<String>,
    /// Requirements from `requirements.txt` beside it, one per line.
    pub requirements: Vec<String>,
}
