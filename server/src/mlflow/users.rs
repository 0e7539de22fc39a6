//! MLflow's basic-auth user endpoints (`users/create|get|list|current|update-password|
//! update-admin|delete`), so `mlflow.server.auth.client.AuthServiceClient` works unchanged.
//! Who may call each is the route table's policy (admins, or the user themself).

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::fields::Fields;
use super::request::Msg;
use super::write;
use crate::auth::middleware::client_addr;
use crate::auth::resolve::check_password;
use crate::auth::{users, Caller};
use crate::error::MlflowError;
use crate::{AppState, Error};

type Reply = Result<Json<Value>, MlflowError>;

/// A required, non-empty string parameter.
fn string_param(f: &Fields, name: &str) -> Result<String, Error> {
    f.opt_str(name)?
        .filter(|s| !s.is_empty())
        .ok_or_else(|| f.missing(name))
}

/// A required boolean parameter (JSON boolean, or "true"/"false").
fn bool_param(f: &Fields, name: &str) -> Result<bool, Error> {
    f.opt_bool(name)?.ok_or_else(|| {
        Error::InvalidParameter(format!("Parameter '{name}' must be true or false."))
    })
}

fn user_json(u: &users::User) -> Value {
    json!({ "id": u.user_id, "username": u.username, "is_admin": u.is_admin })
}

/// `POST users/create {username, password}` → `{"user": {id, username, is_admin}}`.
pub(crate) async fn create_user(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let (name, password) = (string_param(&f, "username")?, string_param(&f, "password")?);
    let user = s
        .store
        .call(move |c| {
            users::create_user(c, &name, Some(&password), false)?;
            users::get_user(c, &name)
        })
        .await?;
    Ok(Json(json!({ "user": user_json(&user) })))
}

/// `GET users/get?username=` (admins, or the user themself).
pub(crate) async fn get_user(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let name = string_param(&f, "username")?;
    let user = s.store.call(move |c| users::get_user(c, &name)).await?;
    Ok(Json(json!({ "user": user_json(&user) })))
}

/// `GET users/list` → `{"users": [{id, username, is_admin, roles: []}]}` (admins).
pub(crate) async fn list_users(State(s): State<AppState>, Msg(_): Msg) -> Reply {
    let all = s.store.call(|c| users::list_users(c)).await?;
    let list: Vec<Value> = all
        .iter()
        .map(|u| {
            let mut v = user_json(u);
            v["roles"] = json!([]);
            v
        })
        .collect();
    Ok(Json(json!({ "users": list })))
}

/// `GET users/current` → `{"user": {...}, "is_basic_auth": true}` (any signed-in user).
pub(crate) async fn get_current_user(
    State(s): State<AppState>,
    caller: Caller,
    Msg(_): Msg,
) -> Reply {
    let user = s
        .store
        .call(move |c| users::get_user(c, &caller.username))
        .await?;
    Ok(Json(
        json!({ "user": user_json(&user), "is_basic_auth": true }),
    ))
}

/// `PATCH users/update-password {username, password[, current_password]}`: admins for
/// anyone; users for themselves with their current password (as MLflow 3.17 asks).
pub(crate) async fn update_user_password(
    State(s): State<AppState>,
    caller: Caller,
    ext: axum::http::Extensions,
    headers: axum::http::HeaderMap,
    Msg(f): Msg,
) -> Reply {
    let (name, password) = (string_param(&f, "username")?, string_param(&f, "password")?);
    if name == caller.username {
        let current = string_param(&f, "current_password").map_err(|_| {
            Error::InvalidParameter(
                "Current password is required when changing your own password.".into(),
            )
        })?;
        let addr = client_addr(&s.auth.settings, &headers, &ext);
        check_password(&s, &name, &current, &addr)
            .await
            .map_err(|e| match e {
                Error::Unauthenticated(_) => {
                    Error::InvalidParameter("Current password does not match.".into())
                }
                other => other,
            })?;
        if current == password {
            return Err(Error::InvalidParameter(
                "New password must differ from the current password.".into(),
            )
            .into());
        }
    }
    s.store
        .call(move |c| users::set_password(c, &name, &password))
        .await?;
    Ok(Json(json!({})))
}

/// `PATCH users/update-admin {username, is_admin}` (admins).
pub(crate) async fn update_user_admin(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let (name, is_admin) = (string_param(&f, "username")?, bool_param(&f, "is_admin")?);
    s.store
        .call(move |c| users::set_admin(c, &name, is_admin))
        .await?;
    Ok(Json(json!({})))
}

/// `DELETE users/delete {username}` (admins; not their own account).
pub(crate) async fn delete_user(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let name = string_param(&f, "username")?;
    if name == caller.username {
        return Err(Error::BadRequest(
            "Users cannot delete their own account. Ask another admin to delete this user instead."
                .into(),
        )
        .into());
    }
    write(&s, move |c| {
        let user_id = users::delete_user(c, &name)?;
        crate::permissions::delete_user_grants(c, user_id)
    })
    .await?;
    Ok(Json(json!({})))
}
