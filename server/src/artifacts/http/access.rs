//! Who may touch an artifact path: the path's first segment is an experiment id, and the
//! caller needs the route's level on that experiment ([`crate::routes::Access::Artifact`]).
//! A first segment that names no experiment (or is not a number, or is missing) is 404
//! `RESOURCE_DOES_NOT_EXIST` for everyone, administrators too: nothing is written outside
//! an experiment's folder.

use api_types::Level;
use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;

use crate::artifacts::ArtifactPath;
use crate::auth::Caller;
use crate::error::MlflowError;
use crate::permissions::require_experiment;
use crate::routes::{Access, RouteSpec};
use crate::{AppState, Error};

/// [`ArtifactGuard`]'s level parameter: CAN_READ.
pub(crate) const READ: u8 = 1;
/// [`ArtifactGuard`]'s level parameter: CAN_EDIT.
pub(crate) const EDIT: u8 = 2;

fn level(n: u8) -> Level {
    match n {
        1 => Level::CanRead,
        _ => Level::CanEdit,
    }
}

/// The artifact path of the request (the `{*path}` path parameter, else the `path` query
/// parameter; absent: the root), on whose experiment the caller holds level `L`.
#[derive(Debug, Clone)]
pub struct ArtifactGuard<const L: u8> {
    /// The path, validated.
    pub path: ArtifactPath,
    /// Its experiment.
    pub experiment_id: i64,
    /// Who asked.
    pub caller: Caller,
}

/// The raw artifact path of a request: `{*path}`, else the `path` query parameter.
async fn raw_path(parts: &mut Parts, state: &AppState) -> Result<String, Error> {
    let params = RawPathParams::from_request_parts(parts, state)
        .await
        .map_err(|_| Error::InvalidParameter("Invalid path".into()))?;
    if let Some((_, v)) = params.iter().find(|(k, _)| *k == "path") {
        return Ok(v.to_owned());
    }
    let query = parts.uri.query().unwrap_or("");
    Ok(form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "path")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default())
}

/// The experiment an artifact path lies in, by its first segment (404 if none).
pub(crate) fn experiment_of(path: &ArtifactPath) -> Result<i64, Error> {
    let first = path.first().unwrap_or("");
    first.parse::<i64>().map_err(|_| {
        Error::NotFound(format!(
            "Artifact path '{path}' is not inside an experiment's artifact folder"
        ))
    })
}

impl<const L: u8> FromRequestParts<AppState> for ArtifactGuard<L> {
    type Rejection = MlflowError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, MlflowError> {
        let need = level(L);
        match parts.extensions.get::<RouteSpec>() {
            Some(spec) if spec.access == Access::Artifact(need) => {}
            other => {
                return Err(Error::Internal(format!(
                    "route {} applies artifact level {need:?} but declares {:?}",
                    parts.uri.path(),
                    other.map(|s| s.access)
                ))
                .into())
            }
        }
        let caller = Caller::from_request_parts(parts, state).await?;
        let path = ArtifactPath::parse_or_root(&raw_path(parts, state).await?)?;
        let experiment_id = experiment_of(&path)?;
        let who = caller.clone();
        state
            .store
            .call(move |c| require_experiment(c, &who, experiment_id, need))
            .await?;
        Ok(ArtifactGuard {
            path,
            experiment_id,
            caller,
        })
    }
}
