//! The experiments page (`GET /experiments`) and an experiment's header and column keys
//! (`GET /experiments/{id}`).

use api_types as json;
use axum::extract::State;
use axum::Json;

use super::guard::{ExperimentGuard, READ};
use super::query::QueryParams;
use crate::auth::Caller;
use crate::tracking::overview;
use crate::{AppState, Error};

/// `GET /api/v1/experiments?q=&sort=&desc=&offset=&limit=`: active experiments whose name
/// contains `q` (case-insensitive, Unicode-aware), sorted by `sort` (`name`, `last_update`
/// (default), `created`, `runs`), descending unless `desc=false` (for `name` ascending unless
/// `desc=true`); ties broken by id. `limit` defaults to 50, at most 500
/// ([`overview::experiment_list`]).
pub(crate) async fn list_experiments(
    State(state): State<AppState>,
    caller: Caller,
    query: QueryParams,
) -> Result<Json<json::ExperimentList>, Error> {
    let query = query.experiment_list()?;
    let readable = crate::permissions::readable_sql(
        state.store.engine(),
        &caller,
        "e.experiment_id",
        "e.name",
    );
    let list = state
        .store
        .call(move |c| overview::experiment_list(c, &readable, &query))
        .await?;
    Ok(Json(list))
}

/// `GET /api/v1/experiments/{id}`: the experiment (active or deleted), its tags, the
/// param, metric and tag keys (tags without `mlflow.` system keys) over its active runs,
/// and whether the caller may edit it (CAN_EDIT or more; administrators may).
pub(crate) async fn get_experiment(
    State(state): State<AppState>,
    guard: ExperimentGuard<READ>,
) -> Result<Json<json::ExperimentDetail>, Error> {
    let id = guard.id;
    let mut detail = state
        .store
        .call(move |c| overview::experiment_detail(c, id))
        .await?;
    detail.can_edit = guard.level >= api_types::Level::CanEdit;
    Ok(Json(detail))
}
