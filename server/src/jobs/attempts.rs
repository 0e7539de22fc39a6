//! Attempts: start one (the server creates its MLflow run), find the attempt behind a run,
//! and what the run page shows of the job behind a run.

use crate::db::{params, Conn, OptionalExtension};
use api_types::jobs::{Attempt, JobRef, RunJobInfo};
use api_types::nodes::RUN_NODES_TAG;
use api_types::{JobLevel, Level};

use super::access::{job_level, managers};
use super::{nodes, status, status_from_db, AttemptRef};
use crate::auth::Caller;
use crate::permissions::require_experiment;
use crate::tracking::runs::{self, NewRun};
use crate::tracking::{tags, validation};
use crate::Error;

/// Tag of an attempt's run: the job's name.
pub(crate) const JOB_TAG: &str = "runlens.job";
/// Tag of an attempt's run: the job run id.
pub(crate) const JOB_RUN_TAG: &str = "runlens.job_run_id";
/// Tag of an attempt's run: the attempt number.
pub(crate) const ATTEMPT_TAG: &str = "runlens.attempt";

const REF_SELECT: &str = "SELECT a.attempt_id, a.job_run_id, a.number, a.run_uuid, r.job_id,
                                  j.name, r.status
                             FROM job_attempts a
                             JOIN job_runs r ON r.job_run_id = a.job_run_id
                             JOIN jobs j ON j.job_id = r.job_id";

/// Reads an [`AttemptRef`] row of [`REF_SELECT`] (without nodes).
fn ref_from_row(r: &crate::db::Row<'_>) -> crate::db::Result<AttemptRef> {
    Ok(AttemptRef {
        attempt_id: r.get(0)?,
        job_run_id: r.get(1)?,
        number: r.get(2)?,
        run_id: r.get(3)?,
        job_id: r.get(4)?,
        job_name: r.get(5)?,
        status: status_from_db(&r.get::<_, String>(6)?)?,
        nodes: Vec::new(),
    })
}

fn with_nodes(conn: &Conn, found: Option<AttemptRef>) -> Result<Option<AttemptRef>, Error> {
    match found {
        Some(mut a) => {
            a.nodes = nodes(conn, a.job_run_id)?;
            Ok(Some(a))
        }
        None => Ok(None),
    }
}

/// The attempt whose MLflow run is `run_id`; `None` for a run no job produced.
pub(crate) fn attempt_of_run(conn: &Conn, run_id: &str) -> Result<Option<AttemptRef>, Error> {
    let found = conn
        .prepare_cached(&format!("{REF_SELECT} WHERE a.run_uuid = ?1"))?
        .query_row([run_id], ref_from_row)
        .optional()?;
    with_nodes(conn, found)
}

/// Attempt `number` of job run `job_run_id`; 404 when there is none.
pub(crate) fn attempt(conn: &Conn, job_run_id: i64, number: u32) -> Result<AttemptRef, Error> {
    let found = conn
        .prepare_cached(&format!(
            "{REF_SELECT} WHERE a.job_run_id = ?1 AND a.number = ?2"
        ))?
        .query_row(params![job_run_id, number], ref_from_row)
        .optional()?;
    with_nodes(conn, found)?
        .ok_or_else(|| Error::NotFound(format!("job run '{job_run_id}' has no attempt {number}")))
}

/// Every attempt of a job run, first first, with its run's name, status and times.
pub(crate) fn attempts(conn: &Conn, job_run_id: i64) -> Result<Vec<Attempt>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT a.number, a.run_uuid, ru.name, ru.status, ru.start_time, ru.end_time
           FROM job_attempts a JOIN runs ru ON ru.run_uuid = a.run_uuid
          WHERE a.job_run_id = ?1 ORDER BY a.number",
    )?;
    let rows = stmt.query_map([job_run_id], |r| {
        Ok(Attempt {
            job_run_id,
            number: r.get(0)?,
            run_id: r.get(1)?,
            run_name: r.get(2)?,
            status: r.get(3)?,
            start_time: r.get::<_, Option<i64>>(4)?.unwrap_or(0),
            end_time: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The MLflow run of a job run's latest attempt, if it has one.
pub(crate) fn latest_attempt_run(conn: &Conn, job_run_id: i64) -> Result<Option<String>, Error> {
    Ok(conn
        .prepare_cached(
            "SELECT run_uuid FROM job_attempts WHERE job_run_id = ?1
              ORDER BY number DESC LIMIT 1",
        )?
        .query_row([job_run_id], |r| r.get(0))
        .optional()?)
}

/// Sets the `runlens.nodes` tag of run `run_id` to these node labels.
pub(crate) fn set_nodes_tag(conn: &Conn, run_id: &str, nodes: &[String]) -> Result<(), Error> {
    let tag = [(RUN_NODES_TAG.to_owned(), nodes.join(","))];
    tags::set_tags(conn, run_id, &tag, "tags")
}

/// Starts the next attempt of a job run: creates its MLflow run in the job run's
/// experiment (RUNNING, user = the caller, named `run_name` or
/// `<job>-<job run id>-attempt-<n>`, tagged with the job, job run, attempt number and
/// nodes) and sets the job run RUNNING. The caller needs CAN_EDIT on the experiment; a
/// job run in a final status takes no attempt (400). Run it in a write transaction.
pub fn create_attempt(
    conn: &Conn,
    caller: &Caller,
    job_run_id: i64,
    run_name: Option<String>,
) -> Result<Attempt, Error> {
    let (job_name, experiment_id): (String, i64) = conn
        .prepare_cached(
            "SELECT j.name, r.experiment_id FROM job_runs r JOIN jobs j ON j.job_id = r.job_id
              WHERE r.job_run_id = ?1",
        )?
        .query_row([job_run_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("job run '{job_run_id}' does not exist")))?;
    let current = status(conn, job_run_id)?;
    if !current.is_active() {
        return Err(Error::InvalidState(format!(
            "Job run {job_run_id} is {}; a finished job run takes no new attempt. Submit a \
             new job run instead.",
            current.as_str()
        )));
    }
    require_experiment(conn, caller, experiment_id, Level::CanEdit)?;
    let number: u32 = conn
        .prepare_cached(
            "SELECT coalesce(max(number), 0) + 1 FROM job_attempts WHERE job_run_id = ?1",
        )?
        .query_row([job_run_id], |r| r.get(0))?;
    let name = run_name
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| format!("{job_name}-{job_run_id}-attempt-{number}"));
    validation::validate_run_name(&name)?;
    let run_id = runs::create(
        conn,
        NewRun {
            experiment_id,
            user_id: caller.username.clone(),
            run_name: Some(name),
            start_time: None,
            tags: Vec::new(),
        },
    )?;
    link_attempt(conn, job_run_id, number, &run_id)?;
    conn.prepare_cached("UPDATE job_runs SET status = 'RUNNING' WHERE job_run_id = ?1")?
        .execute([job_run_id])?;
    attempts(conn, job_run_id)?
        .into_iter()
        .find(|a| a.number == number)
        .ok_or_else(|| Error::Internal(format!("attempt {number} of job run {job_run_id} lost")))
}

/// Records MLflow run `run_id` as attempt `number` of a job run and tags the run with the
/// job's name, the job run, the attempt number and the job run's nodes. The run must be in
/// the job run's experiment (not checked here: [`create_attempt`] creates it there, and the
/// demo links its own runs).
pub(crate) fn link_attempt(
    conn: &Conn,
    job_run_id: i64,
    number: u32,
    run_id: &str,
) -> Result<(), Error> {
    let job_name: String = conn
        .prepare_cached(
            "SELECT j.name FROM job_runs r JOIN jobs j ON j.job_id = r.job_id
              WHERE r.job_run_id = ?1",
        )?
        .query_row([job_run_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("job run '{job_run_id}' does not exist")))?;
    let nodes = nodes(conn, job_run_id)?;
    let mut tags = vec![
        (JOB_TAG.to_owned(), job_name),
        (JOB_RUN_TAG.to_owned(), job_run_id.to_string()),
        (ATTEMPT_TAG.to_owned(), number.to_string()),
    ];
    if !nodes.is_empty() {
        tags.push((RUN_NODES_TAG.to_owned(), nodes.join(",")));
    }
    tags::set_tags(conn, run_id, &tags, "tags")?;
    conn.prepare_cached(
        "INSERT INTO job_attempts (job_run_id, number, run_uuid) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![job_run_id, number, run_id])?;
    Ok(())
}

/// What the run page shows of the job behind run `run_id` (the caller may read the run's
/// experiment), with the attempt's id (the key of its log lines); `None` for a run no job
/// produced. `logs_expired_through` is left `None` for the caller to fill from the log
/// store.
pub(crate) fn run_job(
    conn: &Conn,
    caller: &Caller,
    run_id: &str,
) -> Result<Option<(i64, RunJobInfo)>, Error> {
    let Some(a) = attempt_of_run(conn, run_id)? else {
        return Ok(None);
    };
    let your_level = job_level(conn, caller, a.job_id)?;
    let info = RunJobInfo {
        job: JobRef {
            job_id: a.job_id,
            name: a.job_name,
        },
        job_run_id: a.job_run_id,
        status: a.status,
        attempt: a.number,
        attempts: attempts(conn, a.job_run_id)?,
        nodes: a.nodes,
        your_level,
        can_view_logs: your_level >= Some(JobLevel::CanView),
        managers: managers(conn, a.job_id)?,
        logs_expired_through: None,
    };
    Ok(Some((a.attempt_id, info)))
}
