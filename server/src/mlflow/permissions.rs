//! MLflow 3's per-user permission endpoints (`/api/3.0/mlflow/users/permissions/grant|
//! revoke|get`) for `resource_type` `experiment` (and `registered_model`, handled in
//! `registry`), as `AuthServiceClient` calls them.
//! READ / EDIT / MANAGE map to CAN_READ / CAN_EDIT / CAN_MANAGE; NO_PERMISSIONS (and DENY)
//! to a level-0 grant. Who may call them is decided by `policy` (admins or managers).

use api_types::{Level, Principal, PrincipalKind};
use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::policy::experiment_resource;
use super::registry;
use super::request::Msg;
use super::{read, write};
use crate::error::MlflowError;
use crate::permissions as perm;
use crate::{AppState, Error};

type Reply = Result<Json<Value>, MlflowError>;

/// MLflow's permission name → level (`None` = level 0).
fn parse_permission(name: &str) -> Result<Option<Level>, Error> {
    match name {
        "READ" => Ok(Some(Level::CanRead)),
        "EDIT" => Ok(Some(Level::CanEdit)),
        "MANAGE" => Ok(Some(Level::CanManage)),
        "NO_PERMISSIONS" | "DENY" => Ok(None),
        other => Err(Error::InvalidParameter(format!(
            "Invalid permission '{other}'. Valid permissions are READ, EDIT, MANAGE and \
             NO_PERMISSIONS."
        ))),
    }
}

/// Level → MLflow's permission name (experiments and registered models alike).
pub(super) fn permission_name(level: Option<Level>) -> &'static str {
    match level {
        Some(Level::CanRead) => "READ",
        Some(Level::CanEdit) => "EDIT",
        Some(Level::CanManage) => "MANAGE",
        None => "NO_PERMISSIONS",
    }
}

fn user(name: String) -> Principal {
    Principal {
        kind: PrincipalKind::User,
        name,
    }
}

/// `POST users/permissions/grant`
pub(crate) async fn grant_user_permission(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    if let Some(name) = registry::policy::resource(&f)? {
        registry::grant_user(&s, &f, name).await?;
        return Ok(Json(json!({})));
    }
    let id = experiment_resource(&f)?;
    let who = user(f.req_str("username")?);
    let level = parse_permission(&f.req_str("permission")?)?;
    write(&s, move |c| perm::set_grant(c, id, &who, level)).await?;
    Ok(Json(json!({})))
}

/// `POST users/permissions/revoke`
pub(crate) async fn revoke_user_permission(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    if let Some(name) = registry::policy::resource(&f)? {
        registry::revoke_user(&s, &f, name).await?;
        return Ok(Json(json!({})));
    }
    let id = experiment_resource(&f)?;
    let who = user(f.req_str("username")?);
    write(&s, move |c| perm::revoke_grant(c, id, &who)).await?;
    Ok(Json(json!({})))
}

/// `GET users/permissions/get`: the user's effective permission; `allowed` is true from
/// EDIT up (MLflow's `can_use`). Unknown experiments answer `NO_PERMISSIONS`.
pub(crate) async fn get_user_permission(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    if let Some(name) = registry::policy::resource(&f)? {
        return Ok(Json(registry::get_user(&s, &f, name).await?));
    }
    let id = experiment_resource(&f)?;
    let username = f.req_str("username")?;
    let level = read(&s, move |c| {
        let target = perm::caller_for(c, &username)?;
        Ok(perm::experiment_level(c, &target, id)?.flatten())
    })
    .await?;
    Ok(Json(json!({
        "allowed": level >= Some(Level::CanEdit),
        "permission": permission_name(level),
    })))
}
