//! The app API's permission checks, as extractors: a handler that names an experiment, a
//! run, a job or a job run in its path gets the id only through [`ExperimentGuard`] /
//! [`RunGuard`] / [`JobGuard`] / [`JobRunGuard`] / [`LogsGuard`], which check the caller's
//! level first (401 signed out, 404 unknown id, 403 with grantors otherwise).

use std::collections::HashMap;

use api_types::{JobLevel, Level};
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;

use super::query::experiment_id;
use crate::auth::node_credentials::NodeAgent;
use crate::auth::Caller;
use crate::jobs::{self, AttemptRef};
use crate::permissions::{require_experiment, require_run};
use crate::routes::{Access, AppPolicy, RouteSpec};
use crate::{AppState, Error};

/// Level constants for the guards' parameter.
pub(crate) const READ: u8 = 1;
/// See [`READ`].
pub(crate) const MANAGE: u8 = 3;

/// Job level constants for [`JobGuard`] and [`JobRunGuard`]: `CAN_VIEW`.
pub(crate) const VIEW: u8 = 1;
/// See [`VIEW`]: `CAN_MANAGE_RUN`.
pub(crate) const MANAGE_RUN: u8 = 2;
/// See [`VIEW`]: `CAN_MANAGE`.
pub(crate) const JOB_MANAGE: u8 = 3;

fn job_level(n: u8) -> JobLevel {
    match n {
        1 => JobLevel::CanView,
        2 => JobLevel::CanManageRun,
        _ => JobLevel::CanManage,
    }
}

fn level(n: u8) -> Level {
    match n {
        1 => Level::CanRead,
        2 => Level::CanEdit,
        _ => Level::CanManage,
    }
}

/// Checks that the route table declares exactly the policy this guard applies, so the
/// table never claims a level the handler does not enforce (the permission matrix reaches
/// every route, so a mismatch fails its tests rather than serving wrongly).
fn declared(parts: &Parts, expected: AppPolicy) -> Result<(), Error> {
    match parts.extensions.get::<RouteSpec>() {
        Some(spec) if spec.access == Access::App(expected) => Ok(()),
        other => Err(Error::Internal(format!(
            "route {} applies {expected:?} but declares {:?}",
            parts.uri.path(),
            other.map(|s| s.access)
        ))),
    }
}

/// The `{id}` path parameter.
async fn path_id(parts: &mut Parts, state: &AppState) -> Result<String, Error> {
    let Path(id) = Path::<String>::from_request_parts(parts, state)
        .await
        .map_err(|e| Error::BadRequest(format!("bad path: {}", e.body_text())))?;
    Ok(id)
}

/// Experiment `{id}` of the path, on which the caller holds at least level `L`.
#[derive(Debug, Clone)]
pub struct ExperimentGuard<const L: u8> {
    /// The experiment.
    pub id: i64,
    /// Their effective level (at least `L`).
    pub level: Level,
}

impl<const L: u8> FromRequestParts<AppState> for ExperimentGuard<L> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        declared(parts, AppPolicy::Experiment(level(L)))?;
        let who = Caller::from_request_parts(parts, state).await?;
        let id = experiment_id(&path_id(parts, state).await?)?;
        let granted = state
            .store
            .call(move |c| require_experiment(c, &who, id, level(L)))
            .await
            .map_err(|e| match e {
                Error::NotFound(_) => Error::NotFound(format!("experiment '{id}' does not exist")),
                other => other,
            })?;
        Ok(ExperimentGuard {
            id,
            level: granted.level,
        })
    }
}

/// Run `{id}` of the path, on whose experiment the caller holds at least level `L`.
#[derive(Debug, Clone)]
pub(crate) struct RunGuard<const L: u8> {
    /// The run.
    pub run_id: String,
    /// Who asked.
    pub caller: Caller,
    /// Their effective level on the run's experiment.
    pub level: Level,
}

impl<const L: u8> FromRequestParts<AppState> for RunGuard<L> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        declared(parts, AppPolicy::Run(level(L)))?;
        let caller = Caller::from_request_parts(parts, state).await?;
        let run_id = path_id(parts, state).await?;
        let (who, id) = (caller.clone(), run_id.clone());
        let granted = state
            .store
            .call(move |c| require_run(c, &who, &id, level(L)))
            .await
            .map_err(|e| match e {
                Error::NotFound(_) => Error::NotFound(format!("run '{run_id}' does not exist")),
                other => other,
            })?;
        Ok(RunGuard {
            run_id,
            caller,
            level: granted.level,
        })
    }
}

/// An administrator: the caller of a route declared [`AppPolicy::Admin`] (403 otherwise).
#[derive(Debug, Clone)]
pub(crate) struct AdminGuard {
    /// Who asked.
    pub caller: Caller,
}

impl FromRequestParts<AppState> for AdminGuard {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        declared(parts, AppPolicy::Admin)?;
        let caller = Caller::from_request_parts(parts, state).await?;
        if !caller.is_admin {
            return Err(Error::PermissionDenied {
                message: "Only administrators can do this.".into(),
                grantors: Vec::new(),
            });
        }
        Ok(AdminGuard { caller })
    }
}

/// Node `{name}` of the path, registered or heartbeated by its own agent (the node
/// credential for exactly that node) or by an administrator.
#[derive(Debug, Clone)]
pub(crate) struct NodeAgentGuard {
    /// The node.
    pub name: String,
    /// True when the node's own agent calls (its node credential), false for an admin.
    pub by_agent: bool,
}

impl FromRequestParts<AppState> for NodeAgentGuard {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        declared(parts, AppPolicy::NodeAgent)?;
        let name = path_id(parts, state).await?;
        if let Some(agent) = parts.extensions.get::<NodeAgent>() {
            if agent.node != name {
                return Err(Error::PermissionDenied {
                    message: format!(
                        "This node credential is for node '{}'; it cannot register or \
                         heartbeat another node.",
                        agent.node
                    ),
                    grantors: Vec::new(),
                });
            }
            return Ok(NodeAgentGuard {
                name,
                by_agent: true,
            });
        }
        let caller = Caller::from_request_parts(parts, state).await?;
        if !caller.is_admin {
            return Err(Error::PermissionDenied {
                message: "Only a node's own agent (with its node credential) or an \
                          administrator can register a node."
                    .into(),
                grantors: Vec::new(),
            });
        }
        Ok(NodeAgentGuard {
            name,
            by_agent: false,
        })
    }
}

/// The `{id}` path parameter of a path that may have more (`/job-runs/{id}/attempts/{n}`).
async fn named_id(parts: &mut Parts, state: &AppState) -> Result<String, Error> {
    let Path(mut params) = Path::<HashMap<String, String>>::from_request_parts(parts, state)
        .await
        .map_err(|e| Error::BadRequest(format!("bad path: {}", e.body_text())))?;
    params
        .remove("id")
        .ok_or_else(|| Error::Internal(format!("route {} has no {{id}}", parts.uri.path())))
}

/// A job or job run id of the path: an integer, else no such thing (404 `what`).
fn integer_id(raw: &str, what: &str) -> Result<i64, Error> {
    raw.parse::<i64>()
        .map_err(|_| Error::NotFound(format!("{what} '{raw}' does not exist")))
}

/// Job `{id}` of the path, on which the caller holds at least job level `L` ([`VIEW`],
/// [`MANAGE_RUN`], [`JOB_MANAGE`]; admins and the owner hold `IS_OWNER`).
#[derive(Debug, Clone)]
pub(crate) struct JobGuard<const L: u8> {
    /// The job.
    pub job_id: i64,
    /// Who asked.
    pub caller: Caller,
    /// Their effective level (at least `L`).
    pub level: JobLevel,
}

impl<const L: u8> FromRequestParts<AppState> for JobGuard<L> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        declared(parts, AppPolicy::Job(job_level(L)))?;
        let caller = Caller::from_request_parts(parts, state).await?;
        let job_id = integer_id(&named_id(parts, state).await?, "job")?;
        let who = caller.clone();
        let level = state
            .store
            .call(move |c| jobs::require_job(c, &who, job_id, job_level(L)))
            .await?;
        Ok(JobGuard {
            job_id,
            caller,
            level,
        })
    }
}

/// Job run `{id}` of the path (which may name more, e.g. `/job-runs/{id}/attempts/{n}/logs`),
/// on whose job the caller holds at least job level `L`.
#[derive(Debug, Clone)]
pub struct JobRunGuard<const L: u8> {
    /// The job run.
    pub job_run_id: i64,
    /// Who asked.
    pub caller: Caller,
}

impl<const L: u8> FromRequestParts<AppState> for JobRunGuard<L> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        declared(parts, AppPolicy::JobRun(job_level(L)))?;
        let caller = Caller::from_request_parts(parts, state).await?;
        let job_run_id = integer_id(&named_id(parts, state).await?, "job run")?;
        let who = caller.clone();
        state
            .store
            .call(move |c| {
                let job_id = jobs::job_of_job_run(c, job_run_id)?;
                jobs::require_job(c, &who, job_id, job_level(L))
            })
            .await?;
        Ok(JobRunGuard { job_run_id, caller })
    }
}

/// The logs of run `{id}` of the path: the caller reads its experiment (CAN_READ) **and**
/// views the job that produced it (CAN_VIEW). A run no job produced: 404; without the job
/// grant: 403 with [`api_types::logs::access_denied_message`] and the job's managers.
#[derive(Debug, Clone)]
pub(crate) struct LogsGuard {
    /// The run.
    pub run_id: String,
    /// Who asked.
    pub caller: Caller,
    /// The attempt the run is (its `attempt_id` keys the lines in the log store).
    pub attempt: AttemptRef,
}

impl FromRequestParts<AppState> for LogsGuard {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        declared(parts, AppPolicy::RunLogs)?;
        let caller = Caller::from_request_parts(parts, state).await?;
        let run_id = named_id(parts, state).await?;
        let (who, id) = (caller.clone(), run_id.clone());
        let attempt = state
            .store
            .call(move |c| jobs::require_run_logs(c, &who, &id))
            .await?;
        Ok(LogsGuard {
            run_id,
            caller,
            attempt,
        })
    }
}

/// Logged model `{id}` of the path, on whose experiment the caller holds at least level `L`.
#[derive(Debug, Clone)]
pub(crate) struct LoggedModelGuard<const L: u8> {
    /// The model (`m-<32 hex>`).
    pub model_id: String,
    /// Who asked.
    pub caller: Caller,
}

impl<const L: u8> FromRequestParts<AppState> for LoggedModelGuard<L> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        declared(parts, AppPolicy::LoggedModel(level(L)))?;
        let caller = Caller::from_request_parts(parts, state).await?;
        let model_id = path_id(parts, state).await?;
        let (who, id) = (caller.clone(), model_id.clone());
        state
            .store
            .call(move |c| crate::models::logged::require(c, &who, &id, level(L)))
            .await
            .map_err(|e| match e {
                Error::NotFound(_) => {
                    Error::NotFound(format!("logged model '{model_id}' does not exist"))
                }
                other => other,
            })?;
        Ok(LoggedModelGuard { model_id, caller })
    }
}

/// Registered model `{name}` of the path, on which the caller holds at least level `L`
/// (its own grants; 404 unknown, 403 with its managers otherwise).
#[derive(Debug, Clone)]
pub struct RegisteredModelGuard<const L: u8> {
    /// The model's name.
    pub name: String,
    /// Its id.
    pub id: i64,
    /// The caller's level on it (at least `L`).
    pub level: Level,
}

impl<const L: u8> FromRequestParts<AppState> for RegisteredModelGuard<L> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        declared(parts, AppPolicy::RegisteredModel(level(L)))?;
        let who = Caller::from_request_parts(parts, state).await?;
        let name = path_id(parts, state).await?;
        let n = name.clone();
        let granted = state
            .store
            .call(move |c| crate::registry::grants::require(c, &who, &n, level(L)))
            .await
            .map_err(|e| match e {
                Error::NotFound(_) => {
                    Error::NotFound(format!("registered model '{name}' does not exist"))
                }
                other => other,
            })?;
        Ok(RegisteredModelGuard {
            name,
            id: granted.id,
            level: granted.level,
        })
    }
}
