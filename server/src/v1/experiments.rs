//! The experiments page (`GET /experiments`) and an experiment's header and column keys
//! (`GET /experiments/{id}`).

use api_types as json;
use axum::extract::State;
use axum::Json;
use rusqlite::{Connection, OptionalExtension};

use super::guard::{ExperimentGuard, READ};
use super::query::QueryParams;
use crate::auth::Caller;
use crate::permissions::ReadableSql;
use crate::{AppState, Error};

/// Page size when `limit` is absent.
const DEFAULT_LIMIT: u64 = 50;
/// Largest page.
const MAX_LIMIT: u64 = 500;

/// One experiment row with its run aggregates: active run count and the latest run
/// start/end, so "last update" reflects logging, not only renames.
const SUMMARY_SQL: &str = "
    SELECT e.experiment_id, e.name, e.lifecycle_stage, e.creation_time,
           max(e.last_update_time, coalesce(
               (SELECT max(max(r.start_time, coalesce(r.end_time, 0))) FROM runs r
                 WHERE r.experiment_id = e.experiment_id AND r.lifecycle_stage = 'active'), 0)),
           (SELECT count(*) FROM runs r
             WHERE r.experiment_id = e.experiment_id AND r.lifecycle_stage = 'active'),
           (SELECT t.value FROM experiment_tags t
             WHERE t.experiment_id = e.experiment_id AND t.key = 'mlflow.note.content')
      FROM experiments e";

fn summary_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<json::ExperimentSummary> {
    Ok(json::ExperimentSummary {
        id: r.get::<_, i64>(0)?.to_string(),
        name: r.get(1)?,
        lifecycle_stage: r.get(2)?,
        creation_time: r.get(3)?,
        last_update_time: r.get(4)?,
        run_count: r.get::<_, i64>(5)?.max(0) as u64,
        description: r.get(6)?,
    })
}

/// `GET /api/v1/experiments?q=&sort=&desc=&offset=&limit=`: active experiments whose name
/// contains `q` (case-insensitive, Unicode-aware), sorted by `sort` (`name`, `last_update`
/// (default), `created`, `runs`), descending unless `desc=false` (for `name` ascending unless
/// `desc=true`); ties broken by id. `limit` defaults to 50, at most 500.
pub async fn list_experiments(
    State(state): State<AppState>,
    caller: Caller,
    query: QueryParams,
) -> Result<Json<json::ExperimentList>, Error> {
    let needle = query.get("q").map(str::to_lowercase);
    let sort = match query.get("sort") {
        None => json::ExperimentSort::default(),
        Some(s) => {
            serde_json::from_value(serde_json::Value::String(s.to_string())).map_err(|_| {
                Error::InvalidParameter(format!(
                    "sort must be one of name, last_update, created, runs; got '{s}'"
                ))
            })?
        }
    };
    let desc = query
        .flag("desc")?
        .unwrap_or(sort != json::ExperimentSort::Name);
    let offset = query
        .parse::<u64>("offset", "a non-negative integer")?
        .unwrap_or(0);
    let limit = query
        .parse::<u64>("limit", "an integer from 1 to 500")?
        .unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Error::InvalidParameter(format!(
            "limit must be between 1 and {MAX_LIMIT}, got {limit}"
        )));
    }
    let readable = crate::permissions::readable_sql(&caller, "e.experiment_id", "e.name");
    let mut all = state
        .store
        .call(move |c| active_summaries(c, &readable))
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

/// Active experiments the caller may read (`readable` over `e`).
fn active_summaries(
    c: &mut Connection,
    readable: &ReadableSql,
) -> Result<Vec<json::ExperimentSummary>, Error> {
    let mut stmt = c.prepare_cached(&format!(
        "{SUMMARY_SQL} WHERE e.lifecycle_stage = 'active' AND {}",
        readable.sql
    ))?;
    let rows = stmt.query_map(
        rusqlite::params_from_iter(readable.params.iter()),
        summary_row,
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
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

/// `GET /api/v1/experiments/{id}`: the experiment (active or deleted), its tags, and the
/// param, metric and tag keys (tags without `mlflow.` system keys) over its active runs.
pub async fn get_experiment(
    State(state): State<AppState>,
    guard: ExperimentGuard<READ>,
) -> Result<Json<json::ExperimentDetail>, Error> {
    let id = guard.id;
    let detail = state.store.call(move |c| experiment_detail(c, id)).await?;
    Ok(Json(detail))
}

/// The experiment's summary, or 404.
pub fn summary(c: &Connection, id: i64) -> Result<json::ExperimentSummary, Error> {
    c.prepare_cached(&format!("{SUMMARY_SQL} WHERE e.experiment_id = ?1"))?
        .query_row([id], summary_row)
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("experiment '{id}' does not exist")))
}

fn experiment_detail(c: &mut Connection, id: i64) -> Result<json::ExperimentDetail, Error> {
    let experiment = summary(c, id)?;
    let tags = c
        .prepare_cached(
            "SELECT key, value FROM experiment_tags WHERE experiment_id = ?1 ORDER BY key",
        )?
        .query_map([id], |r| {
            Ok(json::KeyValue {
                key: r.get(0)?,
                value: r.get(1)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    let keys = |table: &str, extra: &str| -> Result<Vec<String>, Error> {
        let sql = format!(
            "SELECT DISTINCT x.key FROM runs r JOIN {table} x ON x.run_uuid = r.run_uuid
              WHERE r.experiment_id = ?1 AND r.lifecycle_stage = 'active' {extra}
              ORDER BY x.key"
        );
        let mut stmt = c.prepare_cached(&sql)?;
        let keys = stmt
            .query_map([id], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(keys)
    };
    Ok(json::ExperimentDetail {
        experiment,
        tags,
        param_keys: keys("params", "")?,
        metric_keys: keys("latest_metrics", "")?,
        tag_keys: keys("tags", "AND substr(x.key, 1, 7) <> 'mlflow.'")?,
    })
}
