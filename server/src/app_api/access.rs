//! Sharing (`/experiments/{id}/access`): who has access and why (any reader may look),
//! grant or change a level and revoke (CAN_MANAGE only).

use api_types as json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;

use super::guard::{ExperimentGuard, MANAGE, READ};
use super::query::{json_body, QueryParams};
use crate::permissions as perm;
use crate::{AppState, Error};

/// `GET /experiments/{id}/access`
pub(crate) async fn get_experiment_access(
    State(state): State<AppState>,
    guard: ExperimentGuard<READ>,
) -> Result<Json<json::ExperimentAccess>, Error> {
    let id = guard.id;
    let access = state
        .store
        .call(move |c| {
            let name = crate::tracking::experiments::get(c, id)?.name;
            let all = perm::list_grants(c, id)?;
            Ok(json::ExperimentAccess {
                experiment_id: id.to_string(),
                your_level: guard.level,
                implicit: perm::implicit_access(id, &name, &all),
                grants: perm::positive_grants(&all),
                owner: perm::path_owner(&name).map(str::to_owned),
            })
        })
        .await?;
    Ok(Json(access))
}

/// `PUT /experiments/{id}/access` with a [`json::GrantRequest`]: grants or changes a level.
pub(crate) async fn put_experiment_access(
    State(state): State<AppState>,
    guard: ExperimentGuard<MANAGE>,
    body: Bytes,
) -> Result<StatusCode, Error> {
    let req: json::GrantRequest = json_body(
        &body,
        "{\"principal\": {\"kind\": \"user\"|\"group\", \"name\"}, \"level\": \
         \"CAN_READ\"|\"CAN_EDIT\"|\"CAN_MANAGE\"}",
    )?;
    let id = guard.id;
    state
        .store
        .call(move |c| perm::set_grant(c, id, &req.principal, Some(req.level)))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /experiments/{id}/access?kind=user|group&name=...`: revokes a grant.
pub(crate) async fn delete_experiment_access(
    State(state): State<AppState>,
    guard: ExperimentGuard<MANAGE>,
    query: QueryParams,
) -> Result<StatusCode, Error> {
    let json::RevokeQuery { kind, name } = query.revoke()?;
    let principal = json::Principal { kind, name };
    let id = guard.id;
    state
        .store
        .call(move |c| perm::revoke_grant(c, id, &principal))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
