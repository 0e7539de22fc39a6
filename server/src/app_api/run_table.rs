//! The runs table of an experiment (`GET /experiments/{id}/runs`): one page of the matching
//! runs in the table's order, only the requested columns, and the count of all matches
//! ([`run_table::table_page`]).

use api_types as json;
use axum::extract::State;
use axum::Json;

use super::guard::{ExperimentGuard, READ};
use super::query::{QueryParams, RunTableRequest};
use crate::tracking::run_table;
use crate::{AppState, Error};

/// `GET /api/v1/experiments/{id}/runs?filter=&order_by=&view=&params=&metrics=&tags=&limit=&page_token=`.
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
/// - `columns=default` instead of naming columns: the columns a table shows when none are
///   chosen ([`json::RunTableColumns::defaults`] of the experiment's keys), so a client can
///   ask for its first page without reading the experiment first.
/// - `limit`: rows per page, 1 to 1,000 (200 when absent).
/// - `page_token`: the previous page's `next_page_token`; absent for the first page. It
///   holds that page's last sort-key values (keyset paging), so it is only valid with the
///   same filter, order and view.
///
/// Returns one page, `next_page_token` unless it is the last, and `total`, the count of
/// every matching run when the first page was read (later pages repeat it). Bad filters, orderings, limits or tokens answer 400; an unknown
/// experiment 404.
pub(crate) async fn list_runs(
    State(state): State<AppState>,
    guard: ExperimentGuard<READ>,
    query: QueryParams,
) -> Result<Json<json::RunTable>, Error> {
    let id = guard.id;
    let RunTableRequest {
        query,
        default_columns,
    } = query.run_table()?;
    let limit = page_size(query.limit);
    let table = state
        .store
        .call(move |c| run_table::table_page(c, id, &query, default_columns, limit))
        .await?;
    Ok(Json(table))
}

/// The page size a `limit` asks for (checked by [`QueryParams::limit`]), the default
/// when absent.
pub(crate) fn page_size(limit: Option<u32>) -> usize {
    limit.unwrap_or(json::RUN_PAGE_DEFAULT) as usize
}
