//! Sharing a job (`/jobs/{id}/access`): the owner and the grants (any viewer may look),
//! grant or change a level and revoke (CAN_MANAGE only; `IS_OWNER` is never granted and
//! the owner never revoked).

use api_types::jobs::{JobAccess, JobGrant};
use api_types::{Principal, RevokeQuery};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;

use super::guard::{JobGuard, JOB_MANAGE, VIEW};
use super::query::json_body;
use super::query::QueryParams;
use crate::jobs;
use crate::{AppState, Error};

/// `GET /jobs/{id}/access`
pub(crate) async fn get_job_access(
    State(state): State<AppState>,
    guard: JobGuard<VIEW>,
) -> Result<Json<JobAccess>, Error> {
    let access = state
        .store
        .call(move |c| {
            let job = jobs::get_job(c, &guard.caller, guard.job_id)?;
            Ok(JobAccess {
                job_id: job.job_id,
                job_name: job.name,
                owner: job.owner,
                your_level: guard.level,
                grants: jobs::list_grants(c, guard.job_id)?,
            })
        })
        .await?;
    Ok(Json(access))
}

/// `PUT /jobs/{id}/access` with a [`JobGrant`]: grants or changes a level (204).
pub(crate) async fn put_job_access(
    State(state): State<AppState>,
    guard: JobGuard<JOB_MANAGE>,
    body: Bytes,
) -> Result<StatusCode, Error> {
    let req: JobGrant = json_body(
        &body,
        "{\"principal\": {\"kind\": \"user\"|\"group\", \"name\"}, \"level\": \
         \"CAN_VIEW\"|\"CAN_MANAGE_RUN\"|\"CAN_MANAGE\"}",
    )?;
    state
        .store
        .call(move |c| jobs::set_grant(c, guard.job_id, &req.principal, req.level))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /jobs/{id}/access?kind=user|group&name=...`: revokes a grant (204).
pub(crate) async fn delete_job_access(
    State(state): State<AppState>,
    guard: JobGuard<JOB_MANAGE>,
    query: QueryParams,
) -> Result<StatusCode, Error> {
    let RevokeQuery { kind, name } = query.revoke()?;
    let principal = Principal { kind, name };
    state
        .store
        .call(move |c| jobs::revoke_grant(c, guard.job_id, &principal))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
