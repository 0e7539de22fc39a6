//! A run's inputs and outputs (`GET /runs/{id}/io`) and a logged model's page
//! (`GET /logged-models/{id}`), for the run overview and the model page
//! ([`crate::registry::logged_pages`]).

use api_types::models::{LoggedModelDetail, RunIo};
use axum::extract::State;
use axum::Json;

use super::guard::{LoggedModelGuard, RunGuard, READ};
use crate::registry::logged_pages::{model_detail, run_io};
use crate::{AppState, Error};

/// `GET /api/v1/runs/{id}/io`: the datasets the run used (with their input tags), the
/// logged models it took as input, and the active logged models it produced (its outputs
/// and the models naming it as source run) that the caller may read, oldest first.
pub(crate) async fn get_run_io(
    State(state): State<AppState>,
    guard: RunGuard<READ>,
) -> Result<Json<RunIo>, Error> {
    let RunGuard { run_id, caller, .. } = guard;
    let io = state
        .store
        .call(move |c| run_io(c, &caller, &run_id))
        .await?;
    Ok(Json(io))
}

/// `GET /api/v1/logged-models/{id}`: an active logged model with its params, tags (its
/// `mlflow.modelVersions` as the caller may see it), latest linked metrics, experiment
/// name and source run name (when the caller may read that run). Unknown or deleted: 404.
pub(crate) async fn get_logged_model(
    State(state): State<AppState>,
    guard: LoggedModelGuard<READ>,
) -> Result<Json<LoggedModelDetail>, Error> {
    let LoggedModelGuard { model_id, caller } = guard;
    let detail = state
        .store
        .call(move |c| model_detail(c, &caller, &model_id))
        .await
        .map_err(|e| match e {
            Error::NotFound(_) => Error::NotFound("logged model does not exist".into()),
            other => other,
        })?;
    Ok(Json(detail))
}
