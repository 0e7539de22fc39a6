//! The app's runs table read from the tracking tables: for a page of run ids (already
//! searched and ordered), each run's own columns, its parent link and the requested param,
//! metric and tag columns, in a handful of set-based queries whatever the run count.

use std::collections::HashMap;

use crate::db::Conn;
use api_types as json;

use super::columns::{column_keys, ColumnKind};
use super::overview::{self, PARENT_TAG};
use super::search::{search_run_page, RunQuery};
use super::ViewType;
use crate::db::sql::{json_array, json_list};
use crate::Error;

/// One page of experiment `id`'s runs table: the runs matching `query` in its order (at
/// most `limit`, from its page token), with its columns, or with the default columns of
/// the experiment's keys when `default_columns`; and the count of all matches. 404 for an
/// unknown experiment.
pub(crate) fn table_page(
    c: &Conn,
    id: i64,
    query: &json::RunTableQuery,
    default_columns: bool,
    limit: usize,
) -> Result<json::RunTable, Error> {
    overview::check_exists(c, id)?;
    let page = search_run_page(
        c,
        &search_query(std::slice::from_ref(&id), query),
        query.page_token.as_deref(),
        limit,
        true,
    )?;
    let columns = match default_columns {
        true => json::RunTableColumns::defaults(
            &column_keys(c, id, ColumnKind::Param)?,
            &column_keys(c, id, ColumnKind::Metric)?,
        ),
        false => query.columns.clone(),
    };
    let rows = load_rows(c, &page.ids, &columns)?;
    Ok(json::RunTable {
        columns,
        rows,
        total: page.total,
        next_page_token: page.next_page_token,
    })
}

/// The run search a runs-table query asks for over the experiments `ids` (the table's
/// page and its CSV export search alike).
pub(crate) fn search_query<'a>(ids: &'a [i64], query: &'a json::RunTableQuery) -> RunQuery<'a> {
    RunQuery {
        experiment_ids: ids,
        filter: query.filter.as_deref().unwrap_or_default(),
        order_by: &query.order_by,
        view: view_type(query.view),
    }
}

/// The store's view for the wire's.
fn view_type(view: json::RunView) -> ViewType {
    match view {
        json::RunView::Active => ViewType::ActiveOnly,
        json::RunView::Deleted => ViewType::DeletedOnly,
        json::RunView::All => ViewType::All,
    }
}

/// Rows for `ids` in that order, with the requested columns filled.
pub(crate) fn load_rows(
    c: &Conn,
    ids: &[String],
    columns: &json::RunTableColumns,
) -> Result<Vec<json::RunRow>, Error> {
    let ids_json = json_array(ids)?;
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
    let text = |r: &crate::db::Row<'_>| r.get::<_, String>(2);
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
    let number = |r: &crate::db::Row<'_>| {
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
    c: &Conn,
    ids_json: &str,
    columns: &json::RunTableColumns,
) -> Result<Vec<json::RunRow>, Error> {
    let mut stmt = c.prepare_cached(&format!(
        "SELECT r.run_uuid, r.name, r.status, r.start_time, r.end_time, r.user_id,
                (SELECT t.value FROM tags t
                  WHERE t.run_uuid = r.run_uuid AND t.key = '{PARENT_TAG}')
           FROM runs r WHERE r.run_uuid IN {}",
        json_list(c.engine(), "?1")
    ))?;
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
    c: &Conn,
    table: &str,
    values: &str,
    ids_json: &str,
    keys: &[String],
    read: impl Fn(&crate::db::Row<'_>) -> crate::db::Result<T>,
) -> Result<Vec<(String, usize, T)>, Error> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let column: HashMap<&str, usize> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let keys_json = json_array(keys)?;
    let sql = format!(
        "SELECT x.run_uuid, x.key, {values} FROM {table} x
          WHERE x.run_uuid IN {} AND x.key IN {}",
        json_list(c.engine(), "?1"),
        json_list(c.engine(), "?2")
    );
    let mut stmt = c.prepare_cached(&sql)?;
    let mut rows = stmt.query([ids_json, keys_json.as_str()])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let key: String = r.get(1)?;
        if let Some(&col) = column.get(key.as_str()) {
            out.push((r.get(0)?, col, read(&r)?));
        }
    }
    Ok(out)
}
