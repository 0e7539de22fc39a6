//! The run page's overview (`GET /runs/{id}`): attributes, params, tags, latest metrics,
//! and the parent and child runs linked by the `mlflow.parentRunId` tag.

use api_types as json;
use api_types::Level;
use axum::extract::State;
use axum::Json;

use super::guard::{RunGuard, READ};
use crate::tracking::overview;
use crate::{AppState, Error};

/// `GET /api/v1/runs/{id}`: the run (active or deleted) with params and tags sorted by
/// key, the latest value of every metric, its parent (when the tag names an existing run)
/// and its active children in the same experiment, by start time, and whether the caller
/// may edit it (CAN_EDIT or more on its experiment). Unknown run: 404.
pub(crate) async fn get_run(
    State(state): State<AppState>,
    guard: RunGuard<READ>,
) -> Result<Json<json::RunDetail>, Error> {
    let RunGuard {
        run_id,
        caller,
        level,
    } = guard;
    let mut detail = state
        .store
        .call(move |c| overview::run_page(c, &caller, &run_id))
        .await?;
    detail.can_edit = level >= Level::CanEdit;
    Ok(Json(detail))
}
