//! `GET artifacts/list`: a run's artifacts as MLflow lists them: `root_uri` (the run's
//! artifact URI) and one folder level, each entry's `path` relative to the run's root.

use api_types::Level;
use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::request::Msg;
use super::{read, Policy};
use crate::artifacts::{ArtifactPath, Listing};
use crate::error::MlflowError;
use crate::routes::{Access, Route};
use crate::tracking::runs;
use crate::AppState;

/// This module's routes.
pub(super) fn routes() -> Vec<Route> {
    let read_run = Access::Mlflow(Policy::Run(Level::CanRead));
    vec![Route::get("/artifacts/list", read_run, list_artifacts)]
}

/// `GET artifacts/list?run_id=&path=&page_token=`: `{root_uri, files}`; `files` is left
/// out when empty (a file, a missing path, a run with no artifacts, a root this server
/// does not store). MLflow pages nothing here; neither does runlens.
async fn list_artifacts(
    State(s): State<AppState>,
    Msg(f): Msg,
) -> Result<Json<Value>, MlflowError> {
    let rel = ArtifactPath::parse_or_root(&f.opt_str("path")?.unwrap_or_default())?;
    let run_id = f.run_id()?;
    let root_uri = read(&s, move |c| Ok(runs::get_info(c, &run_id)?.artifact_uri)).await?;
    let mut out = json!({ "root_uri": root_uri });
    let Ok(root) = ArtifactPath::from_uri(&root_uri) else {
        return Ok(Json(out));
    };
    let dir = root.join_path(&rel)?;
    let Listing::Dir(entries) = s.artifacts.list(&dir).await? else {
        return Ok(Json(out));
    };
    let files: Vec<Value> = entries
        .into_iter()
        .map(|e| {
            let path = rel.join(&e.name).map(|p| p.to_string()).unwrap_or(e.name);
            match e.size {
                Some(size) if !e.is_dir => {
                    json!({"path": path, "is_dir": false, "file_size": size})
                }
                _ => json!({"path": path, "is_dir": true}),
            }
        })
        .collect();
    if !files.is_empty() {
        out["files"] = Value::Array(files);
    }
    Ok(Json(out))
}
