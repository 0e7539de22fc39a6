//! Registered-model grants through MLflow's auth endpoints: the per-model
//! `registered-models/permissions/create|get|update|delete` of the auth app (users only),
//! and the `registered_model` resource of MLflow 3's `users/permissions/grant|revoke|get`.
//! READ / EDIT / MANAGE are CAN_READ / CAN_EDIT / CAN_MANAGE; NO_PERMISSIONS a level-0
//! grant. Who may call them is the route's policy (MANAGE on the model, admins).

use api_types::{Level, Principal, PrincipalKind};
use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::super::fields::Fields;
use super::super::permissions::permission_name;
use super::super::request::Msg;
use super::super::{read, write};
use crate::db::Conn;
use crate::error::MlflowError;
use crate::registry::{grants, models};
use crate::{AppState, Error};

type Reply = Result<Json<Value>, MlflowError>;

/// MLflow's permission name → level (`None` = NO_PERMISSIONS).
fn parse_permission(name: &str) -> Result<Option<Level>, Error> {
    match name {
        "READ" => Ok(Some(Level::CanRead)),
        "EDIT" => Ok(Some(Level::CanEdit)),
        "MANAGE" => Ok(Some(Level::CanManage)),
        "NO_PERMISSIONS" => Ok(None),
        other => Err(Error::InvalidParameter(format!(
            "Invalid permission '{other}'. Valid permissions are: ('READ', 'EDIT', 'MANAGE', \
             'NO_PERMISSIONS')"
        ))),
    }
}

fn user(name: &str) -> Principal {
    Principal {
        kind: PrincipalKind::User,
        name: name.to_string(),
    }
}

/// `name`, `username` and, where `with_permission`, `permission` of a request.
struct Target {
    name: String,
    username: String,
    level: Option<Level>,
}

fn target(f: &Fields, with_permission: bool) -> Result<Target, Error> {
    let level = match with_permission {
        true => parse_permission(&f.req_str("permission")?)?,
        false => None,
    };
    Ok(Target {
        name: f.req_str("name")?,
        username: f.req_str("username")?,
        level,
    })
}

fn not_found(t: &Target) -> Error {
    Error::NotFound(format!(
        "Registered model permission with name={} and username={} not found",
        t.name, t.username
    ))
}

/// The user's explicit grant on the model: (model id, user id, level); 404 without one.
fn existing(c: &Conn, t: &Target) -> Result<(i64, i64, Option<Level>), Error> {
    let id = models::id_of(c, &t.name)?;
    let uid = crate::permissions::principal_id(c, &user(&t.username))?;
    let level = grants::grant_of(c, id, &user(&t.username))?.ok_or_else(|| not_found(t))?;
    Ok((id, uid, level))
}

fn permission_json(t: &Target, user_id: i64, level: Option<Level>) -> Value {
    json!({"registered_model_permission": {
        "name": t.name,
        "user_id": user_id,
        "permission": permission_name(level),
    }})
}

/// `POST registered-models/permissions/create`: a new grant (an existing one is
/// RESOURCE_ALREADY_EXISTS).
pub(crate) async fn create(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let t = target(&f, true)?;
    let body = write(&s, move |c| {
        let id = models::id_of(c, &t.name)?;
        let uid = crate::permissions::principal_id(c, &user(&t.username))?;
        if grants::grant_of(c, id, &user(&t.username))?.is_some() {
            return Err(Error::AlreadyExists(format!(
                "Registered model permission with name={} and username={} already exists.",
                t.name, t.username
            )));
        }
        grants::set_grant(c, id, &user(&t.username), t.level)?;
        Ok(permission_json(&t, uid, t.level))
    })
    .await?;
    Ok(Json(body))
}

/// `GET registered-models/permissions/get`
pub(crate) async fn get(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let t = target(&f, false)?;
    let body = read(&s, move |c| {
        let (_, uid, level) = existing(c, &t)?;
        Ok(permission_json(&t, uid, level))
    })
    .await?;
    Ok(Json(body))
}

/// `PATCH registered-models/permissions/update`
pub(crate) async fn update(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let t = target(&f, true)?;
    write(&s, move |c| {
        let (id, _, _) = existing(c, &t)?;
        grants::set_grant(c, id, &user(&t.username), t.level)
    })
    .await?;
    Ok(Json(json!({})))
}

/// `DELETE registered-models/permissions/delete`
pub(crate) async fn delete(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let t = target(&f, false)?;
    write(&s, move |c| {
        let (id, _, _) = existing(c, &t)?;
        grants::revoke(c, id, &user(&t.username)).map(drop)
    })
    .await?;
    Ok(Json(json!({})))
}

/// `users/permissions/grant` for registered model `name` (DENY is NO_PERMISSIONS).
pub(crate) async fn grant_user(s: &AppState, f: &Fields, name: String) -> Result<(), Error> {
    let who = user(&f.req_str("username")?);
    let permission = f.req_str("permission")?;
    let level = match permission.as_str() {
        "DENY" => None,
        other => parse_permission(other)?,
    };
    write(s, move |c| {
        let id = models::id_of(c, &name)?;
        grants::set_grant(c, id, &who, level)
    })
    .await
}

/// `users/permissions/revoke` for registered model `name`.
pub(crate) async fn revoke_user(s: &AppState, f: &Fields, name: String) -> Result<(), Error> {
    let who = user(&f.req_str("username")?);
    write(s, move |c| {
        let id = models::id_of(c, &name)?;
        match grants::revoke(c, id, &who)? {
            true => Ok(()),
            false => Err(Error::NotFound(format!(
                "'{}' has no grant on registered model '{name}'.",
                who.name
            ))),
        }
    })
    .await
}

/// `users/permissions/get` for registered model `name`: the user's effective permission
/// (`allowed` from EDIT up); an unknown model is NO_PERMISSIONS.
pub(crate) async fn get_user(s: &AppState, f: &Fields, name: String) -> Result<Value, Error> {
    let username = f.req_str("username")?;
    let level = read(s, move |c| {
        let target = crate::permissions::caller_for(c, &username)?;
        match models::find_id(c, &name)? {
            Some(id) => grants::level(c, &target, id),
            None => Ok(None),
        }
    })
    .await?;
    Ok(json!({
        "allowed": level >= Some(Level::CanEdit),
        "permission": permission_name(level),
    }))
}
