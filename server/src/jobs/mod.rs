//! Jobs, job runs and attempts, and the job permissions: the tables of migration
//! 3 and every query over them. A job is a named workload with an owner and grants
//! (`CAN_VIEW < CAN_MANAGE_RUN < CAN_MANAGE`, plus `IS_OWNER` for its creator; admins act
//! as owners; group grants count for their members). A job run is one submission of it, in
//! one experiment; its attempts are its tries, each one MLflow run created here. Log lines
//! are keyed by `AttemptRef::attempt_id` in the log store ([`crate::logs`]).
//!
//! The app API's handlers (`app_api::jobs`) and guards (`app_api::guard`) call these typed
//! functions; no SQL over the job tables lives anywhere else.

mod access;
mod attempts;
pub(crate) mod log_ingest;
mod model;
mod runs;

pub(crate) use access::{list_grants, require_job, require_run_logs, revoke_grant};
pub use access::{set_grant, NOT_A_JOB_RUN};
pub use attempts::create_attempt;
pub(crate) use attempts::{attempt, attempt_of_run, link_attempt, run_job};
pub(crate) use model::get_job;
pub use model::get_or_create_job;
pub(crate) use runs::{
    add_node, job_of_job_run, job_run, list_job_runs, set_status, set_times, JobRunFilter,
    DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT,
};
pub use runs::{create_job_run, NewJobRun};

use crate::db::{Conn, OptionalExtension};
use api_types::{JobLevel, JobRunStatus};

use crate::Error;

/// One attempt of a job run with what the log routes need of its job run and job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AttemptRef {
    /// `job_attempts.attempt_id`: the key of its lines in the log store.
    pub attempt_id: i64,
    /// The job run.
    pub job_run_id: i64,
    /// 1 for the first try, 2 for the first retry, ...
    pub number: u32,
    /// Its MLflow run.
    pub run_id: String,
    /// The job.
    pub job_id: i64,
    /// The job's name.
    pub job_name: String,
    /// The job run's status.
    pub status: JobRunStatus,
    /// The job run's node labels, in the order they were added.
    pub nodes: Vec<String>,
}

/// The stored integer of a grantable level (`IS_OWNER` is never stored).
pub(crate) fn level_to_db(level: JobLevel) -> Option<i64> {
    match level {
        JobLevel::CanView => Some(1),
        JobLevel::CanManageRun => Some(2),
        JobLevel::CanManage => Some(3),
        JobLevel::IsOwner => None,
    }
}

/// The level of a stored integer.
pub(crate) fn level_from_db(n: i64) -> Option<JobLevel> {
    match n {
        1 => Some(JobLevel::CanView),
        2 => Some(JobLevel::CanManageRun),
        3 => Some(JobLevel::CanManage),
        _ => None,
    }
}

/// The stored spelling of a status is its wire spelling; this reads it back.
pub(crate) fn status_from_db(s: &str) -> crate::db::Result<JobRunStatus> {
    [
        JobRunStatus::Queued,
        JobRunStatus::Running,
        JobRunStatus::Succeeded,
        JobRunStatus::Failed,
        JobRunStatus::Canceled,
    ]
    .into_iter()
    .find(|st| st.as_str() == s)
    .ok_or_else(|| crate::db::DbError::column(0, format!("unknown job run status {s:?}")))
}

/// The node labels of a job run, in the order they were added.
pub(crate) fn nodes(conn: &Conn, job_run_id: i64) -> Result<Vec<String>, Error> {
    let mut stmt = conn
        .prepare_cached("SELECT node FROM job_run_nodes WHERE job_run_id = ?1 ORDER BY position")?;
    let rows = stmt.query_map([job_run_id], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The status of job run `job_run_id` (404 when unknown).
pub(crate) fn status(conn: &Conn, job_run_id: i64) -> Result<JobRunStatus, Error> {
    let s: String = conn
        .prepare_cached("SELECT status FROM job_runs WHERE job_run_id = ?1")?
        .query_row([job_run_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("job run '{job_run_id}' does not exist")))?;
    Ok(status_from_db(&s)?)
}
