//! Runs: create, update, delete/restore, and reading runs with their params, tags and
//! latest metrics (a few IN queries per page of runs, never one query per run).

use crate::db::{params, Conn, OptionalExtension, Row};

use super::model::{from_stored, Metric, Point, Run, RunInfo, RunStatus};
use super::tags::{self, RUN_NAME_TAG};
use super::{experiments, names};
use crate::util::now_ms;
use crate::Error;

const INFO_COLUMNS: &str = "run_uuid, experiment_id, name, user_id, status, start_time, \
                            end_time, artifact_uri, lifecycle_stage";

/// What `runs/create` asks for.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewRun {
    /// Target experiment.
    pub experiment_id: i64,
    /// User id ("" when absent).
    pub user_id: String,
    /// Run name; a random one when `None` or empty (or taken from the `mlflow.runName` tag).
    pub run_name: Option<String>,
    /// Start time in ms; now when `None`.
    pub start_time: Option<i64>,
    /// Initial tags.
    pub tags: Vec<(String, String)>,
}

fn info_from_row(r: &Row<'_>) -> crate::db::Result<RunInfo> {
    Ok(RunInfo {
        run_id: r.get(0)?,
        experiment_id: r.get(1)?,
        run_name: r.get(2)?,
        user_id: r.get(3)?,
        status: r.get(4)?,
        start_time: r.get(5)?,
        end_time: r.get(6)?,
        artifact_uri: r.get(7)?,
        lifecycle_stage: r.get(8)?,
    })
}

/// Creates a run in an active experiment; returns its (random) id.
pub(crate) fn create(conn: &Conn, new: NewRun) -> Result<String, Error> {
    create_with_id(conn, uuid::Uuid::new_v4().simple().to_string(), new)
}

/// [`create`] with the run id given (32 lowercase hex chars): the demo derives its ids from
/// its seed, so that its data is the same on every load.
pub(crate) fn create_with_id(conn: &Conn, run_id: String, new: NewRun) -> Result<String, Error> {
    let exp = experiments::get(conn, new.experiment_id)?;
    if exp.lifecycle_stage != "active" {
        return Err(Error::InvalidState(format!(
            "The experiment {} must be in the 'active' state. Current state is {}.",
            exp.experiment_id, exp.lifecycle_stage
        )));
    }
    let tag_name = new
        .tags
        .iter()
        .rev()
        .find(|(k, _)| k == RUN_NAME_TAG)
        .map(|t| &t.1);
    let given = new.run_name.filter(|n| !n.is_empty());
    if let (Some(a), Some(b)) = (&given, tag_name) {
        if a != b {
            return Err(Error::InvalidParameter(format!(
                "Both 'run_name' argument and 'mlflow.runName' tag are specified, but with \
                 different values (run_name='{a}', mlflow.runName='{b}')."
            )));
        }
    }
    let name = given
        .or_else(|| tag_name.cloned())
        .unwrap_or_else(names::random_run_name);
    let artifact_uri =
        experiments::append_to_uri_path(&exp.artifact_location, &format!("{run_id}/artifacts"));
    conn.prepare_cached(&format!(
        "INSERT INTO runs ({INFO_COLUMNS}) VALUES (?1, ?2, ?3, ?4, 'RUNNING', ?5, NULL, ?6, 'active')"
    ))?
    .execute(params![
        run_id,
        new.experiment_id,
        name,
        new.user_id,
        new.start_time.unwrap_or_else(now_ms),
        artifact_uri
    ])?;
    let mut tags = new.tags;
    tags.retain(|(k, _)| k != RUN_NAME_TAG);
    tags.push((RUN_NAME_TAG.to_string(), name));
    tags::set_tags(conn, &run_id, &tags, "tags")?;
    Ok(run_id)
}

/// The info of a run (deleted ones too); `Run with id=X not found` otherwise.
pub(crate) fn get_info(conn: &Conn, run_id: &str) -> Result<RunInfo, Error> {
    conn.prepare_cached(&format!(
        "SELECT {INFO_COLUMNS} FROM runs WHERE run_uuid = ?1"
    ))?
    .query_row([run_id], info_from_row)
    .optional()?
    .ok_or_else(|| Error::NotFound(format!("Run with id={run_id} not found")))
}

/// The info of the first-started run named `name` in experiment `experiment_id`, if any.
pub(crate) fn find_by_name(
    conn: &Conn,
    experiment_id: i64,
    name: &str,
) -> Result<Option<RunInfo>, Error> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {INFO_COLUMNS} FROM runs WHERE experiment_id = ?1 AND name = ?2 \
             ORDER BY start_time, run_uuid LIMIT 1"
        ))?
        .query_row(params![experiment_id, name], info_from_row)
        .optional()?)
}

/// The info of a run that must be active (for writes).
pub(crate) fn get_active_info(conn: &Conn, run_id: &str) -> Result<RunInfo, Error> {
    let info = get_info(conn, run_id)?;
    if info.lifecycle_stage != "active" {
        return Err(Error::InvalidState(format!(
            "The run {run_id} must be in the 'active' state. Current state is {}.",
            info.lifecycle_stage
        )));
    }
    Ok(info)
}

/// A whole run.
pub(crate) fn get(conn: &Conn, run_id: &str) -> Result<Run, Error> {
    get_info(conn, run_id)?;
    load_runs(conn, &[run_id.to_string()])?
        .pop()
        .ok_or_else(|| Error::NotFound(format!("Run with id={run_id} not found")))
}

/// Loads whole runs for `ids`, in that order (unknown ids are skipped).
pub(crate) fn load_runs(conn: &Conn, ids: &[String]) -> Result<Vec<Run>, Error> {
    let mut out = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(500) {
        out.extend(load_chunk(conn, chunk)?);
    }
    Ok(out)
}

fn load_chunk(conn: &Conn, ids: &[String]) -> Result<Vec<Run>, Error> {
    use std::collections::HashMap;
    let marks = vec!["?"; ids.len()].join(",");
    let p = crate::db::params_from_iter(ids);
    let mut runs: HashMap<String, Run> = HashMap::with_capacity(ids.len());
    let sql = format!("SELECT {INFO_COLUMNS} FROM runs WHERE run_uuid IN ({marks})");
    for info in conn
        .prepare_cached(&sql)?
        .query_map(p.clone(), info_from_row)?
    {
        let info = info?;
        let run = Run {
            info,
            metrics: vec![],
            params: vec![],
            tags: vec![],
        };
        runs.insert(run.info.run_id.clone(), run);
    }
    for (table, is_param) in [("params", true), ("tags", false)] {
        let sql = format!(
            "SELECT run_uuid, key, value FROM {table} WHERE run_uuid IN ({marks}) ORDER BY key"
        );
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(p.clone(), |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        for row in rows {
            let (id, k, v) = row?;
            if let Some(run) = runs.get_mut(&id) {
                let list = if is_param {
                    &mut run.params
                } else {
                    &mut run.tags
                };
                list.push((k, v));
            }
        }
    }
    let sql = format!(
        "SELECT run_uuid, key, step, timestamp, is_nan, value FROM latest_metrics \
         WHERE run_uuid IN ({marks}) ORDER BY key"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(p, |r| {
        let point = Point {
            step: r.get(2)?,
            timestamp: r.get(3)?,
            value: from_stored(r.get(4)?, r.get(5)?),
        };
        Ok((
            r.get::<_, String>(0)?,
            Metric {
                key: r.get(1)?,
                point,
            },
        ))
    })?;
    for row in rows {
        let (id, m) = row?;
        if let Some(run) = runs.get_mut(&id) {
            run.metrics.push(m);
        }
    }
    Ok(ids.iter().filter_map(|id| runs.remove(id)).collect())
}

/// Updates status, end time and/or name of an active run; returns the new info.
pub(crate) fn update(
    conn: &Conn,
    run_id: &str,
    status: Option<RunStatus>,
    end_time: Option<i64>,
    run_name: Option<&str>,
) -> Result<RunInfo, Error> {
    get_active_info(conn, run_id)?;
    if let Some(st) = status {
        conn.prepare_cached("UPDATE runs SET status = ?1 WHERE run_uuid = ?2")?
            .execute(params![st.as_str(), run_id])?;
    }
    if let Some(t) = end_time {
        conn.prepare_cached("UPDATE runs SET end_time = ?1 WHERE run_uuid = ?2")?
            .execute(params![t, run_id])?;
    }
    if let Some(name) = run_name.filter(|n| !n.is_empty()) {
        let tag = [(RUN_NAME_TAG.to_string(), name.to_string())];
        tags::set_tags(conn, run_id, &tag, "run_name")?;
    }
    get_info(conn, run_id)
}

/// Marks a run deleted (`true`) or active again.
pub(crate) fn set_deleted(conn: &Conn, run_id: &str, deleted: bool) -> Result<(), Error> {
    get_info(conn, run_id)?;
    let (stage, time) = if deleted {
        ("deleted", Some(now_ms()))
    } else {
        ("active", None)
    };
    conn.prepare_cached(
        "UPDATE runs SET lifecycle_stage = ?1, deleted_time = ?2 WHERE run_uuid = ?3",
    )?
    .execute(params![stage, time, run_id])?;
    Ok(())
}
