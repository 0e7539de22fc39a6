//! Jobs, job runs and attempts (`/api/v1/jobs...`, `/api/v1/job-runs...`,
//! `/api/v1/runs/{id}/job`) and job permissions.
//!
//! A job is a named workload with an owner and grants. Each submission of it is a job run
//! (status, nodes, retries); the first try and each retry of a job run are its attempts,
//! and each attempt is one MLflow run in the job run's experiment. Log lines belong to an
//! attempt and a node (see [`crate::logs`]).

use serde::{Deserialize, Serialize};

use crate::Principal;

/// Job permission levels, ordered: each includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum JobLevel {
    /// See the job, its job runs and their logs.
    CanView,
    /// Also submit job runs and attempts, ship their logs, set their status.
    CanManageRun,
    /// Also change the job's grants.
    CanManage,
    /// The job's owner (exactly one; its creator): everything, and cannot be revoked. Never
    /// granted through the access endpoints.
    IsOwner,
}

impl JobLevel {
    /// The wire spelling, e.g. `CAN_MANAGE_RUN`.
    pub fn as_str(self) -> &'static str {
        match self {
            JobLevel::CanView => "CAN_VIEW",
            JobLevel::CanManageRun => "CAN_MANAGE_RUN",
            JobLevel::CanManage => "CAN_MANAGE",
            JobLevel::IsOwner => "IS_OWNER",
        }
    }

    /// Words for the UI, e.g. "Can manage run".
    pub fn label(self) -> &'static str {
        match self {
            JobLevel::CanView => "Can view",
            JobLevel::CanManageRun => "Can manage run",
            JobLevel::CanManage => "Can manage",
            JobLevel::IsOwner => "Is owner",
        }
    }
}

/// A job run's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum JobRunStatus {
    /// Submitted, no attempt started yet.
    Queued,
    /// An attempt is running (or the next one is about to start).
    Running,
    /// The last attempt succeeded.
    Succeeded,
    /// The last attempt failed and no retry is left.
    Failed,
    /// Stopped by a signal or a user.
    Canceled,
}

impl JobRunStatus {
    /// The wire spelling, e.g. `RUNNING`.
    pub fn as_str(self) -> &'static str {
        match self {
            JobRunStatus::Queued => "QUEUED",
            JobRunStatus::Running => "RUNNING",
            JobRunStatus::Succeeded => "SUCCEEDED",
            JobRunStatus::Failed => "FAILED",
            JobRunStatus::Canceled => "CANCELED",
        }
    }

    /// Whether the job run may still change (QUEUED or RUNNING): its logs are followed live.
    pub fn is_active(self) -> bool {
        matches!(self, JobRunStatus::Queued | JobRunStatus::Running)
    }
}

/// A job, as its viewers see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// Job id.
    pub job_id: i64,
    /// Unique name.
    pub name: String,
    /// Username of the owner (its creator).
    pub owner: String,
    /// Creation time, ms since the epoch.
    pub created: i64,
    /// The caller's effective level (admins: `IS_OWNER`).
    pub your_level: JobLevel,
}

/// `POST /api/v1/jobs`: get or create the job called `name`. A new job is owned by the
/// caller (201); an existing one is returned (200) when the caller holds at least
/// `CAN_MANAGE_RUN` on it, else 403 naming its managers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateJob {
    /// 1 to 256 characters, no control characters.
    pub name: String,
}

/// One explicit grant on a job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobGrant {
    /// Who.
    pub principal: Principal,
    /// At which level (never `IS_OWNER` here).
    pub level: JobLevel,
}

/// `GET /api/v1/jobs/{id}/access` (CAN_VIEW): the owner and the grants.
/// `PUT` with a [`JobGrant`] grants or changes a level (CAN_MANAGE; `IS_OWNER` is refused
/// with 400); `DELETE ?kind=user|group&name=` revokes (CAN_MANAGE; the owner cannot be
/// revoked: 400).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobAccess {
    /// The job.
    pub job_id: i64,
    /// Its name.
    pub job_name: String,
    /// The owner's username.
    pub owner: String,
    /// The caller's effective level.
    pub your_level: JobLevel,
    /// Explicit grants, users then groups, by name.
    pub grants: Vec<JobGrant>,
}

/// `POST /api/v1/jobs/{id}/runs` (CAN_MANAGE_RUN on the job, CAN_EDIT on the experiment):
/// submit a job run, status QUEUED, no attempt yet. Answers [`JobRunDetail`] (201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateJobRun {
    /// Experiment whose runs the attempts are.
    pub experiment_id: String,
    /// Node labels known at submission (`--nodes K` gives `node-0` .. `node-{K-1}` or
    /// `<host>-0` ...); more join later with `--join`. Each a valid node name
    /// ([`crate::nodes::is_valid_node_name`]), at most 256.
    pub nodes: Vec<String>,
    /// Retries allowed after a failed attempt (0 to 100).
    pub max_retries: u32,
}

/// `POST /api/v1/job-runs/{id}/attempts` (CAN_MANAGE_RUN on the job, CAN_EDIT on the
/// experiment): start the next attempt. The server creates its MLflow run (status RUNNING,
/// user = caller, tags `runlens.job_run_id`, `runlens.attempt`, `runlens.job`,
/// `runlens.nodes`), sets the job run RUNNING, and answers [`Attempt`] (201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct CreateAttempt {
    /// The MLflow run's name (default: `<job name>-<job run id>-attempt-<n>`).
    pub run_name: Option<String>,
}

/// `POST /api/v1/job-runs/{id}/nodes` (CAN_MANAGE_RUN): add a node label (`--join`).
/// Answers [`JobRunDetail`]; adding a label already there changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddNode {
    /// The node label.
    pub node: String,
}

/// `POST /api/v1/job-runs/{id}/status` (CAN_MANAGE_RUN): the job run's new status. Moving
/// out of a final status (SUCCEEDED, FAILED, CANCELED) is refused (400). Setting a final
/// status also ends the latest attempt's MLflow run if it is still RUNNING (FINISHED for
/// SUCCEEDED, FAILED for FAILED, KILLED for CANCELED). Answers [`JobRunDetail`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetJobRunStatus {
    /// The new status.
    pub status: JobRunStatus,
}

/// One attempt of a job run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// The job run.
    pub job_run_id: i64,
    /// 1 for the first try, 2 for the first retry, ...
    pub number: u32,
    /// Its MLflow run.
    pub run_id: String,
    /// The MLflow run's name.
    pub run_name: String,
    /// The MLflow run's status (RUNNING, FINISHED, FAILED, KILLED).
    pub status: String,
    /// Start, ms since the epoch.
    pub start_time: i64,
    /// End, ms since the epoch.
    pub end_time: Option<i64>,
}

/// A job and its id, as job runs refer to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRef {
    /// Job id.
    pub job_id: i64,
    /// Job name.
    pub name: String,
}

/// `GET /api/v1/job-runs/{id}` (CAN_VIEW on the job): one job run with its attempts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRunDetail {
    /// Job run id.
    pub job_run_id: i64,
    /// Its job.
    pub job: JobRef,
    /// The experiment of its attempts' runs.
    pub experiment_id: String,
    /// Status.
    pub status: JobRunStatus,
    /// Node labels, in the order they were added.
    pub nodes: Vec<String>,
    /// Retries allowed after a failed attempt.
    pub max_retries: u32,
    /// Who submitted it.
    pub created_by: String,
    /// Submission time, ms since the epoch.
    pub created: i64,
    /// When it reached a final status.
    pub ended: Option<i64>,
    /// Attempts, first first.
    pub attempts: Vec<Attempt>,
}

/// `GET /api/v1/job-runs?all_status=false&limit=` (filtered to job runs whose job the
/// caller may view): newest first; active ones only unless `all_status=true`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRunList {
    /// The job runs (newest first, at most `limit`, default 100, max 1,000).
    pub job_runs: Vec<JobRunDetail>,
}

/// `GET /api/v1/runs/{id}/job` (CAN_READ on the run's experiment): whether the run was
/// produced by a job and what the caller may see of it. Answers `{"job": null}` for a run
/// that no job produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunJob {
    /// The job run, or `None` when the run is not job-backed.
    pub job: Option<RunJobInfo>,
}

/// What the run page shows of the job behind a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunJobInfo {
    /// The job.
    pub job: JobRef,
    /// The job run.
    pub job_run_id: i64,
    /// Its status.
    pub status: JobRunStatus,
    /// This run's attempt number.
    pub attempt: u32,
    /// Every attempt of the job run (run ids link to their run pages).
    pub attempts: Vec<Attempt>,
    /// Node labels of the job run.
    pub nodes: Vec<String>,
    /// The caller's level on the job, `None` without any.
    pub your_level: Option<JobLevel>,
    /// Whether the caller may read the logs (CAN_VIEW or more, or admin).
    pub can_view_logs: bool,
    /// Users and groups holding CAN_MANAGE or IS_OWNER on the job (who can grant access),
    /// owner first.
    pub managers: Vec<Principal>,
    /// Lines older than this time (ms) were purged by retention; `None` when none were.
    pub logs_expired_through: Option<i64>,
}
