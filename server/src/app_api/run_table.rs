//! The runs table of an experiment (`GET /experiments/{id}/runs`): every matching run,
//! only the requested columns, in a handful of set-based queries whatever the run count.

use api_types as json;
use axum::extract::State;
use axum::Json;

use super::guard::{ExperimentGuard, READ};
use super::query::QueryParams;
use crate::tracking::overview;
use crate::tracking::run_table::load_rows;
use crate::tracking::search::search_run_ids;
use crate::tracking::ViewType;
use crate::{AppState, Error};

/// Most rows one answer carries; more matches set `truncated`.
pub const MAX_ROWS: usize = 10_000;

/// `GET /api/v1/experiments/{id}/runs?filter=&order_by=&view=&params=&metrics=&tags=`.
///
/// - `filter`: an MLflow search filter, e.g. `metrics.loss < 0.5 AND params.optimizer = 'adam'`.
/// - `order_by`: one MLflow clause per parameter, repeated for several keys in priority
///   order, e.g. `order_by=metrics.loss%20ASC&order_by=start_time%20DESC`. MLflow's
///   tie-breakers apply after them.
/// - `view`: `active` (default), `deleted` or `all`.
/// - Columns: `params`, `metrics` and `tags` are comma-separated key lists and may repeat;
///   `param`, `metric` and `tag` each name ONE key verbatim, for keys that contain a comma.
///   Columns keep the order of appearance; blanks and repeats are dropped. Each row's
///   values are aligned with the columns echoed back in `columns`.
///
/// Returns all matching runs up to 10,000 (`truncated` beyond; `total` counts them all).
/// Bad filters or orderings answer 400; an unknown experiment 404.
pub async fn list_runs(
    State(state): State<AppState>,
    guard: ExperimentGuard<READ>,
    query: QueryParams,
) -> Result<Json<json::RunTable>, Error> {
    let id = guard.id;
    let json::RunTableQuery {
        filter,
        order_by,
        view,
        columns,
    } = query.run_table()?;
    let filter = filter.unwrap_or_default();
    let view = match view {
        json::RunView::Active => ViewType::ActiveOnly,
        json::RunView::Deleted => ViewType::DeletedOnly,
        json::RunView::All => ViewType::All,
    };
    let table = state
        .store
        .call(move |c| {
            overview::summary(c, id)?;
            let mut ids = search_run_ids(c, &[id], &filter, &order_by, view, 0, usize::MAX)?;
            let total = ids.len() as u64;
            let truncated = ids.len() > MAX_ROWS;
            ids.truncate(MAX_ROWS);
            let rows = load_rows(c, &ids, &columns)?;
            Ok(json::RunTable {
                columns,
                rows,
                total,
                truncated,
            })
        })
        .await?;
    Ok(Json(table))
}
