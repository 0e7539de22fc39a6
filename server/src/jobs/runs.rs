//! Job runs: submit, read, list, add nodes, change status (a final status also ends the
//! latest attempt's MLflow run).

use crate::db::{params, Conn, OptionalExtension};
use api_types::jobs::{JobRef, JobRunDetail};
use api_types::{JobRunStatus, Level};

use super::attempts::{attempts, latest_attempt_run, set_nodes_tag};
use super::{nodes, status, status_from_db};
use crate::auth::Caller;
use crate::db::sql::json_array;
use crate::grants;
use crate::permissions::require_experiment;
use crate::tracking::model::RunStatus;
use crate::util::now_ms;
use crate::Error;

/// Most node labels in one job run.
pub(crate) const MAX_NODES: usize = 256;
/// Most retries a job run may allow.
pub(crate) const MAX_RETRIES: u32 = 100;
/// Job runs in a list when the query names no limit.
pub(crate) const DEFAULT_LIST_LIMIT: u32 = 100;
/// Most job runs in one list.
pub(crate) const MAX_LIST_LIMIT: u32 = 1000;

/// A job run to submit (`POST /jobs/{id}/runs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewJobRun {
    /// The job.
    pub job_id: i64,
    /// The experiment of its attempts' runs (the caller needs CAN_EDIT on it).
    pub experiment_id: i64,
    /// Node labels known now.
    pub nodes: Vec<String>,
    /// Retries allowed after a failed attempt.
    pub max_retries: u32,
}

fn check_node(node: &str) -> Result<(), Error> {
    if !api_types::nodes::is_valid_node_name(node) {
        return Err(Error::InvalidParameter(format!(
            "node '{node}' is not a valid node name: 1 to {} of A-Z a-z 0-9 . _ -",
            api_types::nodes::MAX_NODE_NAME
        )));
    }
    Ok(())
}

/// Submits a job run (status QUEUED, no attempt yet); returns its id. The caller needs
/// CAN_EDIT on the experiment, which must be active; nodes must be valid node names, at
/// most `MAX_NODES`, without repeats; at most `MAX_RETRIES` retries.
pub fn create_job_run(conn: &Conn, caller: &Caller, new: &NewJobRun) -> Result<i64, Error> {
    if new.max_retries > MAX_RETRIES {
        return Err(Error::InvalidParameter(format!(
            "max_retries must be 0 to {MAX_RETRIES}, got {}",
            new.max_retries
        )));
    }
    if new.nodes.len() > MAX_NODES {
        return Err(Error::InvalidParameter(format!(
            "nodes: at most {MAX_NODES} node labels, got {}",
            new.nodes.len()
        )));
    }
    for (i, node) in new.nodes.iter().enumerate() {
        check_node(node)?;
        if new.nodes[..i].contains(node) {
            return Err(Error::InvalidParameter(format!(
                "nodes: '{node}' is listed twice"
            )));
        }
    }
    require_experiment(conn, caller, new.experiment_id, Level::CanEdit)?;
    let exp = crate::tracking::experiments::get(conn, new.experiment_id)?;
    if exp.lifecycle_stage != "active" {
        return Err(Error::InvalidState(format!(
            "The experiment {} is deleted; restore it to submit job runs into it.",
            new.experiment_id
        )));
    }
    let id: i64 = conn
        .prepare_cached(
            "INSERT INTO job_runs (job_id, experiment_id, status, max_retries, created_by, created)
             VALUES (?1, ?2, 'QUEUED', ?3, ?4, ?5) RETURNING job_run_id",
        )?
        .query_row(
            params![
                new.job_id,
                new.experiment_id,
                new.max_retries,
                caller.username,
                now_ms()
            ],
            |r| r.get(0),
        )?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO job_run_nodes (job_run_id, position, node) VALUES (?1, ?2, ?3)",
    )?;
    for (position, node) in new.nodes.iter().enumerate() {
        insert.execute(params![id, position as i64, node])?;
    }
    Ok(id)
}

/// The job of job run `job_run_id`; 404 when there is no such job run.
pub(crate) fn job_of_job_run(conn: &Conn, job_run_id: i64) -> Result<i64, Error> {
    conn.prepare_cached("SELECT job_id FROM job_runs WHERE job_run_id = ?1")?
        .query_row([job_run_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("job run '{job_run_id}' does not exist")))
}

/// One job run with its nodes and attempts; 404 when unknown.
pub(crate) fn job_run(conn: &Conn, job_run_id: i64) -> Result<JobRunDetail, Error> {
    let row = conn
        .prepare_cached(
            "SELECT r.job_id, j.name, r.experiment_id, r.status, r.max_retries, r.created_by,
                    r.created, r.ended
               FROM job_runs r JOIN jobs j ON j.job_id = r.job_id
              WHERE r.job_run_id = ?1",
        )?
        .query_row([job_run_id], |r| {
            Ok(JobRunDetail {
                job_run_id,
                job: JobRef {
                    job_id: r.get(0)?,
                    name: r.get(1)?,
                },
                experiment_id: r.get::<_, i64>(2)?.to_string(),
                status: status_from_db(&r.get::<_, String>(3)?)?,
                nodes: Vec::new(),
                max_retries: r.get(4)?,
                created_by: r.get(5)?,
                created: r.get(6)?,
                ended: r.get(7)?,
                attempts: Vec::new(),
            })
        })
        .optional()?;
    let mut detail =
        row.ok_or_else(|| Error::NotFound(format!("job run '{job_run_id}' does not exist")))?;
    detail.nodes = nodes(conn, job_run_id)?;
    detail.attempts = attempts(conn, job_run_id)?;
    Ok(detail)
}

/// Which job runs `GET /job-runs` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JobRunFilter {
    /// Final ones too (else QUEUED and RUNNING only).
    pub all_status: bool,
    /// At most this many (1 to [`MAX_LIST_LIMIT`]).
    pub limit: u32,
}

/// The job runs whose job the caller may view (admins: all), newest first.
pub(crate) fn list_job_runs(
    conn: &Conn,
    caller: &Caller,
    filter: JobRunFilter,
) -> Result<Vec<JobRunDetail>, Error> {
    use crate::db::Value;
    let limit = Value::Integer(i64::from(filter.limit.clamp(1, MAX_LIST_LIMIT)));
    let (visible, mut values) = match caller.is_admin {
        true => ("1 = 1".to_owned(), Vec::new()),
        false => (
            format!(
                "(j.owner_user_id = ?1 OR j.job_id IN {})",
                grants::granted_ids(conn.engine(), grants::JOB, "?1", "?2", 1)
            ),
            vec![
                Value::Integer(caller.user_id),
                Value::Text(json_array(&caller.group_ids)?),
            ],
        ),
    };
    let active = match filter.all_status {
        true => "1 = 1",
        false => "r.status IN ('QUEUED', 'RUNNING')",
    };
    let sql = format!(
        "SELECT r.job_run_id FROM job_runs r JOIN jobs j ON j.job_id = r.job_id
          WHERE {active} AND {visible}
          ORDER BY r.job_run_id DESC LIMIT ?{}",
        values.len() + 1
    );
    values.push(limit);
    let ids: Vec<i64> = conn
        .prepare_cached(&sql)?
        .query_map(crate::db::params_from_iter(values), |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    ids.into_iter().map(|id| job_run(conn, id)).collect()
}

/// Adds node label `node` to a job run (`--join`); one already there changes nothing. A
/// new node joins only an active job run (400 otherwise); the latest attempt's
/// `runlens.nodes` tag follows while its run is running.
pub(crate) fn add_node(conn: &Conn, job_run_id: i64, node: &str) -> Result<(), Error> {
    check_node(node)?;
    let current = nodes(conn, job_run_id)?;
    let status = status(conn, job_run_id)?;
    if current.iter().any(|n| n == node) {
        return Ok(());
    }
    if !status.is_active() {
        return Err(Error::InvalidState(format!(
            "Job run {job_run_id} is {}; nodes can only join a QUEUED or RUNNING job run.",
            status.as_str()
        )));
    }
    if current.len() >= MAX_NODES {
        return Err(Error::InvalidParameter(format!(
            "Job run {job_run_id} already has {MAX_NODES} nodes, the most it may have."
        )));
    }
    conn.prepare_cached(
        "INSERT INTO job_run_nodes (job_run_id, position, node)
         VALUES (?1, (SELECT coalesce(max(position) + 1, 0) FROM job_run_nodes
                       WHERE job_run_id = ?1), ?2)",
    )?
    .execute(params![job_run_id, node])?;
    if let Some(run_id) = latest_attempt_run(conn, job_run_id)? {
        let info = crate::tracking::runs::get_info(conn, &run_id)?;
        if info.status == RunStatus::Running.as_str() && info.lifecycle_stage == "active" {
            set_nodes_tag(conn, &run_id, &nodes(conn, job_run_id)?)?;
        }
    }
    Ok(())
}

/// Sets a job run's status. Out of a final status: 400 (setting the same one again changes
/// nothing, so a retried request succeeds). A final status records `ended` and ends the
/// latest attempt's MLflow run if it is still running (SUCCEEDED: FINISHED, FAILED:
/// FAILED, CANCELED: KILLED). Returns that run as it is after the change when it was
/// ended here (for the live stream).
pub(crate) fn set_status(
    conn: &Conn,
    job_run_id: i64,
    new: JobRunStatus,
) -> Result<Option<crate::tracking::model::RunInfo>, Error> {
    let old = status(conn, job_run_id)?;
    if old == new {
        return Ok(None);
    }
    if !old.is_active() {
        return Err(Error::InvalidState(format!(
            "Job run {job_run_id} is already {}; a finished job run's status cannot change.",
            old.as_str()
        )));
    }
    let now = now_ms();
    let ended = (!new.is_active()).then_some(now);
    conn.prepare_cached("UPDATE job_runs SET status = ?1, ended = ?2 WHERE job_run_id = ?3")?
        .execute(params![new.as_str(), ended, job_run_id])?;
    let run_status = match new {
        JobRunStatus::Succeeded => RunStatus::Finished,
        JobRunStatus::Failed => RunStatus::Failed,
        JobRunStatus::Canceled => RunStatus::Killed,
        JobRunStatus::Queued | JobRunStatus::Running => return Ok(None),
    };
    if let Some(run_id) = latest_attempt_run(conn, job_run_id)? {
        let info = crate::tracking::runs::get_info(conn, &run_id)?;
        if info.status == RunStatus::Running.as_str() && info.lifecycle_stage == "active" {
            crate::tracking::runs::update(conn, &run_id, Some(run_status), Some(now), None)?;
            return crate::tracking::runs::get_info(conn, &run_id).map(Some);
        }
    }
    Ok(None)
}

/// Sets when a job run was submitted and ended (the demo back-dates its job runs to the
/// times of the runs it links as their attempts).
pub(crate) fn set_times(
    conn: &Conn,
    job_run_id: i64,
    created: i64,
    ended: Option<i64>,
) -> Result<(), Error> {
    conn.prepare_cached("UPDATE job_runs SET created = ?2, ended = ?3 WHERE job_run_id = ?1")?
        .execute(crate::db::params![job_run_id, created, ended])?;
    Ok(())
}
