//! The run page's overview (`GET /runs/{id}`): attributes, params, tags, latest metrics,
//! and the parent and child runs linked by the `mlflow.parentRunId` tag.

use api_types as json;
use api_types::Level;
use axum::extract::State;
use axum::Json;
use rusqlite::{Connection, OptionalExtension};

use super::guard::{RunGuard, READ};
use crate::auth::Caller;
use crate::permissions::require_run;
use crate::{AppState, Error};

/// The tag MLflow uses to nest a run under its parent.
pub const PARENT_TAG: &str = "mlflow.parentRunId";

/// `GET /api/v1/runs/{id}`: the run (active or deleted) with params and tags sorted by
/// key, the latest value of every metric, its parent (when the tag names an existing run)
/// and its active children in the same experiment, by start time. Unknown run: 404.
pub async fn get_run(
    State(state): State<AppState>,
    guard: RunGuard<READ>,
) -> Result<Json<json::RunDetail>, Error> {
    let RunGuard { run_id, caller, .. } = guard;
    let detail = state
        .store
        .call(move |c| run_detail(c, &caller, &run_id))
        .await?;
    Ok(Json(detail))
}

fn run_detail(c: &mut Connection, caller: &Caller, run_id: &str) -> Result<json::RunDetail, Error> {
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
            })
        })
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("run '{run_id}' does not exist")))?;
    run.params = key_values(c, "params", run_id)?;
    run.tags = key_values(c, "tags", run_id)?;
    run.metrics = latest_metrics(c, run_id)?;
    run.parent = match run.tags.iter().find(|t| t.key == PARENT_TAG) {
        // A parent in an experiment the caller cannot read stays hidden.
        Some(t) => match require_run(c, caller, &t.value, Level::CanRead) {
            Ok(_) => run_ref(c, &t.value)?,
            Err(Error::NotFound(_) | Error::PermissionDenied { .. }) => None,
            Err(e) => return Err(e),
        },
        None => None,
    };
    run.children = children(c, &run.experiment_id, run_id)?;
    Ok(run)
}

fn key_values(c: &Connection, table: &str, run_id: &str) -> Result<Vec<json::KeyValue>, Error> {
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

fn latest_metrics(c: &Connection, run_id: &str) -> Result<Vec<json::LatestMetric>, Error> {
    let mut stmt = c.prepare_cached(
        "SELECT key, is_nan, value, step, timestamp FROM latest_metrics
          WHERE run_uuid = ?1 ORDER BY key",
    )?;
    let rows = stmt.query_map([run_id], |r| {
        let nan: bool = r.get(1)?;
        Ok(json::LatestMetric {
            key: r.get(0)?,
            value: json::F64(if nan { f64::NAN } else { r.get(2)? }),
            step: r.get(3)?,
            timestamp: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn run_ref(c: &Connection, run_id: &str) -> Result<Option<json::RunRef>, Error> {
    let found = c
        .prepare_cached("SELECT run_uuid, name, status FROM runs WHERE run_uuid = ?1")?
        .query_row([run_id], ref_row)
        .optional()?;
    Ok(found)
}

fn ref_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<json::RunRef> {
    Ok(json::RunRef {
        run_id: r.get(0)?,
        run_name: r.get(1)?,
        status: r.get(2)?,
    })
}

/// Children are looked up within the parent's experiment, where MLflow nests them; that
/// walks the experiment's runs by index instead of every tag in the store.
fn children(c: &Connection, experiment_id: &str, run_id: &str) -> Result<Vec<json::RunRef>, Error> {
    let mut stmt = c.prepare_cached(
        "SELECT r.run_uuid, r.name, r.status FROM runs r
           JOIN tags t ON t.run_uuid = r.run_uuid AND t.key = 'mlflow.parentRunId'
          WHERE r.experiment_id = ?1 AND r.lifecycle_stage = 'active' AND t.value = ?2
          ORDER BY r.start_time, r.run_uuid",
    )?;
    let id: i64 = experiment_id.parse().unwrap_or(-1);
    let rows = stmt.query_map(rusqlite::params![id, run_id], ref_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}
