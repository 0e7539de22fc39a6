//! The runs table of an experiment (`GET /experiments/{id}/runs`): one page of the matching
//! runs in the table's order, only the requested columns, in a handful of set-based
//! queries whatever the run count, and the count of all matches.

use api_types as json;
use axum::extract::State;
use axum::Json;

use super::guard::{ExperimentGuard, READ};
use super::query::QueryParams;
use crate::tracking::columns::{column_keys, ColumnKind};
use crate::tracking::overview;
use crate::tracking::run_table::load_rows;
use crate::tracking::search::{search_run_page, RunQuery};
use crate::tracking::ViewType;
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
    let json::RunTableQuery {
        filter,
        order_by,
        view,
        columns,
        limit,
        page_token,
    } = query.run_table()?;
    let default_columns = wants_default_columns(&query, &columns)?;
    let limit = page_size(limit)?;
    let filter = filter.unwrap_or_default();
    let view = view_type(view);
    let table = state
        .store
        .call(move |c| {
            overview::check_exists(c, id)?;
            let page = search_run_page(
                c,
                &RunQuery {
                    experiment_ids: &[id],
                    filter: &filter,
                    order_by: &order_by,
                    view,
                },
                page_token.as_deref(),
                limit,
                true,
            )?;
            let columns = match default_columns {
                true => json::RunTableColumns::defaults(
                    &column_keys(c, id, ColumnKind::Param)?,
                    &column_keys(c, id, ColumnKind::Metric)?,
                ),
                false => columns,
            };
            let rows = load_rows(c, &page.ids, &columns)?;
            Ok(json::RunTable {
                columns,
                rows,
                total: page.total,
                next_page_token: page.next_page_token,
            })
        })
        .await?;
    Ok(Json(table))
}

/// Whether the query asks for the default columns (`columns=default`); 400 for another
/// value, or for `columns=default` beside named columns.
fn wants_default_columns(
    query: &QueryParams,
    named: &json::RunTableColumns,
) -> Result<bool, Error> {
    match query.get("columns") {
        None => Ok(false),
        Some("default") if *named == json::RunTableColumns::default() => Ok(true),
        Some("default") => Err(Error::InvalidParameter(
            "columns=default cannot be combined with params, metrics or tags".into(),
        )),
        Some(other) => Err(Error::InvalidParameter(format!(
            "columns must be 'default' (or left out and the columns named); got '{other}'"
        ))),
    }
}

/// The page size a `limit` asks for: 1 to [`json::RUN_PAGE_MAX`], the default when absent.
pub(crate) fn page_size(limit: Option<u32>) -> Result<usize, Error> {
    match limit.unwrap_or(json::RUN_PAGE_DEFAULT) {
        n @ 1..=json::RUN_PAGE_MAX => Ok(n as usize),
        n => Err(Error::InvalidParameter(format!(
            "limit must be an integer from 1 to {}; got {n}",
            json::RUN_PAGE_MAX
        ))),
    }
}

/// The store's view for the wire's.
pub(crate) fn view_type(view: json::RunView) -> ViewType {
    match view {
        json::RunView::Active => ViewType::ActiveOnly,
        json::RunView::Deleted => ViewType::DeletedOnly,
        json::RunView::All => ViewType::All,
    }
}
