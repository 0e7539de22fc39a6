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

/// Page size when `limit` is absent.
const DEFAULT_LIMIT: u64 = 50;
/// Largest page.
const MAX_LIMIT: u64 = 500;

/// `GET /api/v1/experiments?q=&sort=&desc=&offset=&limit=`: active experiments whose name
/// contains `q` (case-insensitive, Unicode-aware), sorted by `sort` (`name`, `last_update`
/// (default), `created`, `runs`), descending unless `desc=false` (for `name` ascending unless
/// `desc=true`); ties broken by id. `limit` defaults to 50, at most 500.
pub(crate) async fn list_experiments(
    State(state): State<AppState>,
    caller: Caller,
    query: QueryParams,
) -> Result<Json<json::ExperimentList>, Error> {
    let query = query.experiment_list()?;
    let needle = query.q.as_deref().map(str::to_lowercase);
    let sort = query.sort.unwrap_or_default();
    let desc = query.desc.unwrap_or(sort != json::ExperimentSort::Name);
    let offset = query.offset.unwrap_or(0);
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Error::InvalidParameter(format!(
            "limit must be between 1 and {MAX_LIMIT}, got {limit}"
        )));
    }
    let readable = crate::permissions::readable_sql(
        state.store.engine(),
        &caller,
        "e.experiment_id",
        "e.name",
    );
    let mut all = state
        .store
        .call(move |c| overview::active_summaries(c, &readable))
        .await?;
    if let Some(needle) = &needle {
        all.retain(|e| e.name.to_lowercase().contains(needle.as_str()));
    }
    sort_summaries(&mut all, sort, desc);
    let total = all.len() as u64;
    let items = all
        .into_iter()
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(limit as usize)
        .collect();
    Ok(Json(json::ExperimentList { items, total }))
}

/// Sorts by the chosen key, then by numeric id so pages are stable.
fn sort_summaries(items: &mut [json::ExperimentSummary], sort: json::ExperimentSort, desc: bool) {
    use json::ExperimentSort as S;
    let id = |e: &json::ExperimentSummary| e.id.parse::<i64>().unwrap_or(i64::MAX);
    items.sort_by(|a, b| {
        let primary = match sort {
            S::Name => a.name.cmp(&b.name),
            S::LastUpdate => a.last_update_time.cmp(&b.last_update_time),
            S::Created => a.creation_time.cmp(&b.creation_time),
            S::Runs => a.run_count.cmp(&b.run_count),
        };
        let primary = if desc { primary.reverse() } else { primary };
        primary.then_with(|| id(a).cmp(&id(b)))
    });
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
