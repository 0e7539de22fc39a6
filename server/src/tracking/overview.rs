//! The app's page data read from the tracking tables: experiment summaries (with run
//! counts and the latest activity), an experiment's header and column keys, and a run's
//! overview with its nested runs, and the experiments page (filtered, ordered, paged).
//! Permission filtering comes in as a [`ReadableSql`] condition, or, for a run's parent,
//! is checked for the caller ([`run_page`]).

use crate::db::{Conn, Engine, OptionalExtension};
use api_types as json;
use api_types::Level;

use super::columns::{column_keys, ColumnKind};
use crate::auth::Caller;
use crate::db::sql::greatest;
use crate::permissions::{require_run, ReadableSql};
use crate::Error;

/// Experiments a page of the experiments list shows when the query names no `limit`.
pub(crate) const DEFAULT_LIMIT: u64 = 50;
/// Most experiments one page of the experiments list shows.
pub(crate) const MAX_LIMIT: u32 = 500;

/// The tag MLflow uses to nest a run under its parent.
pub(crate) const PARENT_TAG: &str = "mlflow.parentRunId";

/// One experiment row with its run aggregates: active run count and the latest run
/// start/end, so "last update" reflects logging, not only renames. The latest start and the
/// latest end are two lookups at the end of an index each (`runs_by_experiment`,
/// `runs_by_experiment_end`), not a pass over the experiment's runs.
fn summary_sql(d: Engine) -> String {
    let latest = |column: &str| {
        format!(
            "coalesce((SELECT max(r.{column}) FROM runs r
                        WHERE r.experiment_id = e.experiment_id AND r.lifecycle_stage = 'active'
                          AND r.{column} IS NOT NULL), 0)"
        )
    };
    let last_run = greatest(d, &latest("start_time"), &latest("end_time"));
    format!(
        "SELECT e.experiment_id, e.name, e.lifecycle_stage, e.creation_time,
                {},
                (SELECT count(*) FROM runs r
                  WHERE r.experiment_id = e.experiment_id AND r.lifecycle_stage = 'active'),
                (SELECT t.value FROM experiment_tags t
                  WHERE t.experiment_id = e.experiment_id AND t.key = 'mlflow.note.content')
           FROM experiments e",
        greatest(d, "e.last_update_time", &last_run)
    )
}

fn summary_row(r: &crate::db::Row<'_>) -> crate::db::Result<json::ExperimentSummary> {
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

/// Active experiments that `readable` admits (over the columns `e.experiment_id` and
/// `e.name`), unordered.
pub(crate) fn active_summaries(
    c: &Conn,
    readable: &ReadableSql,
) -> Result<Vec<json::ExperimentSummary>, Error> {
    let mut stmt = c.prepare_cached(&format!(
        "{} WHERE e.lifecycle_stage = 'active' AND {}",
        summary_sql(c.engine()),
        readable.sql
    ))?;
    let rows = stmt.query_map(
        crate::db::params_from_iter(readable.params.iter()),
        summary_row,
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Experiment `id`'s summary (active or deleted); `Error::NotFound` when there is none.
pub(crate) fn summary(c: &Conn, id: i64) -> Result<json::ExperimentSummary, Error> {
    c.prepare_cached(&format!(
        "{} WHERE e.experiment_id = ?1",
        summary_sql(c.engine())
    ))?
    .query_row([id], summary_row)
    .optional()?
    .ok_or_else(|| Error::NotFound(format!("experiment '{id}' does not exist")))
}

/// `Error::NotFound` unless experiment `id` exists (active or deleted); one primary-key
/// lookup, unlike [`summary`], which aggregates the experiment's runs.
pub(crate) fn check_exists(c: &Conn, id: i64) -> Result<(), Error> {
    c.prepare_cached("SELECT 1 FROM experiments WHERE experiment_id = ?1")?
        .query_row([id], |_| Ok(()))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("experiment '{id}' does not exist")))
}

/// The experiment (active or deleted), its tags, and the param, metric and tag keys (tags
/// without `mlflow.` system keys) its runs have had (`experiment_columns`, see
/// [`super::columns`]). `can_edit` is the caller's to set.
pub(crate) fn experiment_detail(c: &Conn, id: i64) -> Result<json::ExperimentDetail, Error> {
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
    Ok(json::ExperimentDetail {
        experiment,
        tags,
        param_keys: column_keys(c, id, ColumnKind::Param)?,
        metric_keys: column_keys(c, id, ColumnKind::Metric)?,
        tag_keys: column_keys(c, id, ColumnKind::Tag)?,
        can_edit: false,
    })
}

/// The run (active or deleted) with params and tags sorted by key, the latest value of
/// every metric, and its active children in the same experiment by start time. `parent`
/// is left empty: whether the caller may see it is the caller's check (see [`run_ref`]).
pub(crate) fn run_detail(c: &Conn, run_id: &str) -> Result<json::RunDetail, Error> {
    let mut run = c
        .prepare_cached(
            "SELECT r.run_uuid, r.name, r.experiment_id, e.name, r.status, r.lifecycle_stage,
                    r.start_time, r.end_time, r.user_id, r.artifact_uri
               FROM runs r JOIN experiments e ON e.experiment_id = r.experiment_id
              WHERE r.run_uuid = ?1",
        )?
        .query_row([run_id], |r| {
            Ok(json::RunDetail {
                run_id: r.get(0)?,
                run_name: r.get(1)?,
                experiment_id: r.get::<_, i64>(2)?.to_string(),
                experiment_name: r.get(3)?,
                status: r.get(4)?,
                lifecycle_stage: r.get(5)?,
                start_time: r.get(6)?,
                end_time: r.get(7)?,
                user_id: r.get(8)?,
                artifact_uri: r.get(9)?,
                params: Vec::new(),
                tags: Vec::new(),
                metrics: Vec::new(),
                parent: None,
                children: Vec::new(),
                can_edit: false,
            })
        })
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("run '{run_id}' does not exist")))?;
    run.params = key_values(c, "params", run_id)?;
    run.tags = key_values(c, "tags", run_id)?;
    run.metrics = latest_metrics(c, run_id)?;
    run.children = children(c, &run.experiment_id, run_id)?;
    Ok(run)
}

fn key_values(c: &Conn, table: &str, run_id: &str) -> Result<Vec<json::KeyValue>, Error> {
    let sql = format!("SELECT key, value FROM {table} WHERE run_uuid = ?1 ORDER BY key");
    let mut stmt = c.prepare_cached(&sql)?;
    let rows = stmt.query_map([run_id], |r| {
        Ok(json::KeyValue {
            key: r.get(0)?,
            value: r.get(1)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn latest_row(r: &crate::db::Row<'_>) -> crate::db::Result<json::LatestMetric> {
    let nan: bool = r.get(1)?;
    Ok(json::LatestMetric {
        key: r.get(0)?,
        value: json::F64(if nan { f64::NAN } else { r.get(2)? }),
        step: r.get(3)?,
        timestamp: r.get(4)?,
    })
}

fn latest_metrics(c: &Conn, run_id: &str) -> Result<Vec<json::LatestMetric>, Error> {
    let mut stmt = c.prepare_cached(
        "SELECT key, is_nan, value, step, timestamp FROM latest_metrics
          WHERE run_uuid = ?1 ORDER BY key",
    )?;
    let rows = stmt.query_map([run_id], latest_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Id, name and status of run `run_id`, if it exists.
pub(crate) fn run_ref(c: &Conn, run_id: &str) -> Result<Option<json::RunRef>, Error> {
    let found = c
        .prepare_cached("SELECT run_uuid, name, status FROM runs WHERE run_uuid = ?1")?
        .query_row([run_id], ref_row)
        .optional()?;
    Ok(found)
}

fn ref_row(r: &crate::db::Row<'_>) -> crate::db::Result<json::RunRef> {
    Ok(json::RunRef {
        run_id: r.get(0)?,
        run_name: r.get(1)?,
        status: r.get(2)?,
    })
}

/// Children are looked up within the parent's experiment, where MLflow nests them; that
/// walks the experiment's runs by index instead of every tag in the store.
fn children(c: &Conn, experiment_id: &str, run_id: &str) -> Result<Vec<json::RunRef>, Error> {
    let mut stmt = c.prepare_cached(&format!(
        "SELECT r.run_uuid, r.name, r.status FROM runs r
           JOIN tags t ON t.run_uuid = r.run_uuid AND t.key = '{PARENT_TAG}'
          WHERE r.experiment_id = ?1 AND r.lifecycle_stage = 'active' AND t.value = ?2
          ORDER BY r.start_time, r.run_uuid"
    ))?;
    let id: i64 = experiment_id.parse().unwrap_or(-1);
    let rows = stmt.query_map(crate::db::params![id, run_id], ref_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The experiments page: the active experiments that `readable` lets through whose name
/// contains `q` (case-insensitive), in the query's order (`last_update` by default;
/// descending unless `desc=false`, for `name` ascending unless `desc=true`; ties by id),
/// `offset` and `limit` ([`DEFAULT_LIMIT`]; at most [`MAX_LIMIT`], checked where the query is read) applied, with the count
/// of all matches.
pub(crate) fn experiment_list(
    c: &Conn,
    readable: &ReadableSql,
    query: &json::ExperimentListQuery,
) -> Result<json::ExperimentList, Error> {
    let needle = query.q.as_deref().map(str::to_lowercase);
    let sort = query.sort.unwrap_or_default();
    let desc = query.desc.unwrap_or(sort != json::ExperimentSort::Name);
    let offset = query.offset.unwrap_or(0);
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    let mut all = active_summaries(c, readable)?;
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
    Ok(json::ExperimentList { items, total })
}

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

/// Run `run_id`'s overview ([`run_detail`]) with its parent only when the tag names a run
/// `caller` may read (a parent in an experiment the caller cannot read stays hidden).
pub(crate) fn run_page(c: &Conn, caller: &Caller, run_id: &str) -> Result<json::RunDetail, Error> {
    let mut run = run_detail(c, run_id)?;
    run.parent = match run.tags.iter().find(|t| t.key == PARENT_TAG) {
        Some(t) => match require_run(c, caller, &t.value, Level::CanRead) {
            Ok(_) => run_ref(c, &t.value)?,
            Err(Error::NotFound(_) | Error::PermissionDenied { .. }) => None,
            Err(e) => return Err(e),
        },
        None => None,
    };
    Ok(run)
}
