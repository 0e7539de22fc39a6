//! The runs table of an experiment (`GET /experiments/{id}/runs`): every matching run,
//! only the requested columns, in a handful of set-based queries whatever the run count.

use std::collections::HashMap;

use api_types as json;
use axum::extract::State;
use axum::Json;
use rusqlite::Connection;

use super::guard::{ExperimentGuard, READ};
use super::query::QueryParams;
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
    let filter = query.get("filter").unwrap_or_default().to_string();
    let order_by: Vec<String> = query
        .all("order_by")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect();
    let view = match query.get("view") {
        None | Some("active") => ViewType::ActiveOnly,
        Some("deleted") => ViewType::DeletedOnly,
        Some("all") => ViewType::All,
        Some(other) => {
            return Err(Error::InvalidParameter(format!(
                "view must be active, deleted or all; got '{other}'"
            )))
        }
    };
    let columns = json::RunTableColumns {
        params: query.key_list("params", "param"),
        metrics: query.key_list("metrics", "metric"),
        tags: query.key_list("tags", "tag"),
    };
    let table = state
        .store
        .call(move |c| {
            super::experiments::summary(c, id)?;
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

/// Rows for `ids` in that order, with the requested columns filled.
fn load_rows(
    c: &Connection,
    ids: &[String],
    columns: &json::RunTableColumns,
) -> Result<Vec<json::RunRow>, Error> {
    let ids_json = serde_json::to_string(ids)
        .map_err(|e| Error::Internal(format!("encoding run ids: {e}")))?;
    let mut rows = base_rows(c, &ids_json, columns)?;
    let position: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    // Rows come back in table order; put them in the search's order.
    rows.sort_by_key(|r| position.get(r.run_id.as_str()).copied());
    let index: HashMap<String, usize> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.run_id.clone(), i))
        .collect();
    let text = |r: &rusqlite::Row<'_>| r.get::<_, String>(2);
    for (run, col, v) in cells(c, "params", "value", &ids_json, &columns.params, text)? {
        if let Some(&i) = index.get(&run) {
            rows[i].params[col] = Some(v);
        }
    }
    for (run, col, v) in cells(c, "tags", "value", &ids_json, &columns.tags, text)? {
        if let Some(&i) = index.get(&run) {
            rows[i].tags[col] = Some(v);
        }
    }
    let number = |r: &rusqlite::Row<'_>| {
        let nan: bool = r.get(2)?;
        let v: f64 = r.get(3)?;
        Ok(json::F64(if nan { f64::NAN } else { v }))
    };
    let latest = "is_nan, value";
    for (run, col, v) in cells(
        c,
        "latest_metrics",
        latest,
        &ids_json,
        &columns.metrics,
        number,
    )? {
        if let Some(&i) = index.get(&run) {
            rows[i].metrics[col] = Some(v);
        }
    }
    Ok(rows)
}

/// The runs' own columns and parent link, with an empty slot per requested column.
fn base_rows(
    c: &Connection,
    ids_json: &str,
    columns: &json::RunTableColumns,
) -> Result<Vec<json::RunRow>, Error> {
    let mut stmt = c.prepare_cached(
        "SELECT r.run_uuid, r.name, r.status, r.start_time, r.end_time, r.user_id,
                (SELECT t.value FROM tags t
                  WHERE t.run_uuid = r.run_uuid AND t.key = 'mlflow.parentRunId')
           FROM runs r WHERE r.run_uuid IN (SELECT value FROM json_each(?1))",
    )?;
    let rows = stmt.query_map([ids_json], |r| {
        Ok(json::RunRow {
            run_id: r.get(0)?,
            run_name: r.get(1)?,
            status: r.get(2)?,
            start_time: r.get(3)?,
            end_time: r.get(4)?,
            user_id: r.get(5)?,
            parent_run_id: r.get(6)?,
            params: vec![None; columns.params.len()],
            metrics: vec![None; columns.metrics.len()],
            tags: vec![None; columns.tags.len()],
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// `(run id, column index, value)` for every requested key that the runs have in `table`
/// (one query for all runs and keys). `read` decodes the value from the selected `values`
/// columns, which start at index 2.
fn cells<T>(
    c: &Connection,
    table: &str,
    values: &str,
    ids_json: &str,
    keys: &[String],
    read: impl Fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> Result<Vec<(String, usize, T)>, Error> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let column: HashMap<&str, usize> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let keys_json =
        serde_json::to_string(keys).map_err(|e| Error::Internal(format!("encoding keys: {e}")))?;
    let sql = format!(
        "SELECT x.run_uuid, x.key, {values} FROM {table} x
          WHERE x.run_uuid IN (SELECT value FROM json_each(?1))
            AND x.key IN (SELECT value FROM json_each(?2))"
    );
    let mut stmt = c.prepare_cached(&sql)?;
    let mut rows = stmt.query([ids_json, keys_json.as_str()])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let key: String = r.get(1)?;
        if let Some(&col) = column.get(key.as_str()) {
            out.push((r.get(0)?, col, read(r)?));
        }
    }
    Ok(out)
}
