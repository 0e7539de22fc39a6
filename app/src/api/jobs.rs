//! Job calls: the job behind a run (for the run page's header and Logs tab) and a job's
//! access (the "Share job" dialog).

use api_types as json;
use gloo_net::http::Method;

use super::http::{delete, get, send, to_json, url, ApiError, On401};
use crate::query::encode_component;

/// `GET /api/v1/runs/{id}/job`: the job run behind a run (`job: None` when no job made it).
pub async fn get_run_job(run_id: String) -> Result<json::jobs::RunJob, ApiError> {
    get(&format!("/api/v1/runs/{}/job", encode_component(&run_id))).await
}

fn access_path(job_id: i64) -> String {
    format!("/api/v1/jobs/{job_id}/access")
}

/// `GET /api/v1/jobs/{id}/access`: the owner, the grants and the caller's level.
pub async fn get_job_access(job_id: i64) -> Result<json::jobs::JobAccess, ApiError> {
    get(&access_path(job_id)).await
}

/// `PUT /api/v1/jobs/{id}/access`: grant or change a level (CAN_MANAGE only; the answer's
/// body, if any, is not needed: the dialog reloads the access).
pub async fn put_job_grant(job_id: i64, grant: json::jobs::JobGrant) -> Result<(), ApiError> {
    let body = Some(to_json(&grant)?);
    send(Method::PUT, &access_path(job_id), body, On401::Redirect).await?;
    Ok(())
}

/// `DELETE /api/v1/jobs/{id}/access?kind=&name=`: revoke a grant.
pub async fn delete_job_grant(job_id: i64, who: json::Principal) -> Result<(), ApiError> {
    let q = json::RevokeQuery {
        kind: who.kind,
        name: who.name,
    };
    delete(&url(&access_path(job_id), q.to_pairs())).await
}
