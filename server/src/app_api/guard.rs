//! The app API's permission checks, as extractors: a handler that names an experiment or a
//! run in its path gets the id only through [`ExperimentGuard`] / [`RunGuard`], which check
//! the caller's level first (401 signed out, 404 unknown id, 403 with grantors otherwise).

use api_types::Level;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;

use super::query::experiment_id;
use crate::auth::Caller;
use crate::permissions::{require_experiment, require_run};
use crate::routes::{Access, AppPolicy, RouteSpec};
use crate::{AppState, Error};

/// Level constants for the guards' parameter.
pub const READ: u8 = 1;
/// See [`READ`].
pub const EDIT: u8 = 2;
/// See [`READ`].
pub const MANAGE: u8 = 3;

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
    /// Who asked.
    pub caller: Caller,
    /// Their effective level (at least `L`).
    pub level: Level,
}

impl<const L: u8> FromRequestParts<AppState> for ExperimentGuard<L> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        declared(parts, AppPolicy::Experiment(level(L)))?;
        let caller = Caller::from_request_parts(parts, state).await?;
        let id = experiment_id(&path_id(parts, state).await?)?;
        let who = caller.clone();
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
            caller,
            level: granted.level,
        })
    }
}

/// Run `{id}` of the path, on whose experiment the caller holds at least level `L`.
#[derive(Debug, Clone)]
pub struct RunGuard<const L: u8> {
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
pub struct AdminGuard {
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
