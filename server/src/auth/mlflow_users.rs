//! MLflow's basic-auth user endpoints (`/api/2.0/mlflow/users/...` and the `/ajax-api/`
//! twin), so `mlflow.server.auth.client.AuthServiceClient` works unchanged. Admin only,
//! except reading or changing one's own account; MLflow's error codes.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, Uri};
use axum::routing::{delete, get, patch, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};

use super::resolve::check_password;
use super::{users, Caller};
use crate::error::MlflowError;
use crate::{AppState, Error};

/// Routes relative to `/api/2.0/mlflow` (merged into the MLflow dialect's router).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/users/create", post(create_user))
        .route("/users/get", get(get_user))
        .route("/users/list", get(list_users))
        .route("/users/current", get(get_current_user))
        .route("/users/update-password", patch(update_user_password))
        .route("/users/update-admin", patch(update_user_admin))
        .route("/users/delete", delete(delete_user))
}

type MlResult = Result<Json<Value>, MlflowError>;

/// Request parameters: the query string for GET (and body-less DELETE), else the JSON body.
fn params(method: &Method, uri: &Uri, body: &[u8]) -> Result<Map<String, Value>, Error> {
    if method == Method::GET || body.iter().all(u8::is_ascii_whitespace) {
        let q = form_urlencoded::parse(uri.query().unwrap_or("").as_bytes());
        return Ok(q
            .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
            .collect());
    }
    crate::mlflow::request::parse_body(body)
}

fn string_param(p: &Map<String, Value>, name: &str) -> Result<String, Error> {
    match p.get(name) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        _ => Err(Error::InvalidParameter(format!(
            "Missing value for required parameter '{name}'."
        ))),
    }
}

fn bool_param(p: &Map<String, Value>, name: &str) -> Result<bool, Error> {
    match p.get(name) {
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(true),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(Error::InvalidParameter(format!(
            "Parameter '{name}' must be true or false."
        ))),
    }
}

fn require_admin(caller: &Caller) -> Result<(), Error> {
    if caller.is_admin {
        return Ok(());
    }
    Err(Error::PermissionDenied {
        message: "Permission denied: only administrators can manage users.".into(),
        grantors: Vec::new(),
    })
}

fn user_json(u: &users::User) -> Value {
    json!({ "id": u.user_id, "username": u.username, "is_admin": u.is_admin })
}

/// `POST users/create {username, password}` → `{"user": {id, username, is_admin}}`.
async fn create_user(
    State(s): State<AppState>,
    caller: Caller,
    method: Method,
    uri: Uri,
    body: Bytes,
) -> MlResult {
    require_admin(&caller)?;
    let p = params(&method, &uri, &body)?;
    let (name, password) = (string_param(&p, "username")?, string_param(&p, "password")?);
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
async fn get_user(
    State(s): State<AppState>,
    caller: Caller,
    method: Method,
    uri: Uri,
    body: Bytes,
) -> MlResult {
    let name = string_param(&params(&method, &uri, &body)?, "username")?;
    if name != caller.username {
        require_admin(&caller)?;
    }
    let user = s.store.call(move |c| users::get_user(c, &name)).await?;
    Ok(Json(json!({ "user": user_json(&user) })))
}

/// `GET users/list` → `{"users": [{id, username, is_admin, roles: []}]}` (admins).
async fn list_users(State(s): State<AppState>, caller: Caller) -> MlResult {
    require_admin(&caller)?;
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
async fn get_current_user(State(s): State<AppState>, caller: Caller) -> MlResult {
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
async fn update_user_password(
    State(s): State<AppState>,
    caller: Caller,
    method: Method,
    uri: Uri,
    ext: axum::http::Extensions,
    body: Bytes,
) -> MlResult {
    let p = params(&method, &uri, &body)?;
    let (name, password) = (string_param(&p, "username")?, string_param(&p, "password")?);
    let current = match name == caller.username {
        true => Some(string_param(&p, "current_password").map_err(|_| {
            Error::InvalidParameter(
                "Current password is required when changing your own password.".into(),
            )
        })?),
        false => {
            require_admin(&caller)?;
            None
        }
    };
    let (auth, addr) = (s.auth.clone(), super::middleware::client_addr(&ext));
    s.store
        .call(move |c| {
            if let Some(cur) = current {
                check_password(c, &auth, &name, &cur, &addr).map_err(|e| match e {
                    Error::Unauthenticated(_) => {
                        Error::InvalidParameter("Current password does not match.".into())
                    }
                    other => other,
                })?;
                if cur == password {
                    return Err(Error::InvalidParameter(
                        "New password must differ from the current password.".into(),
                    ));
                }
            }
            users::set_password(c, &name, &password)
        })
        .await?;
    Ok(Json(json!({})))
}

/// `PATCH users/update-admin {username, is_admin}` (admins).
async fn update_user_admin(
    State(s): State<AppState>,
    caller: Caller,
    method: Method,
    uri: Uri,
    body: Bytes,
) -> MlResult {
    require_admin(&caller)?;
    let p = params(&method, &uri, &body)?;
    let (name, is_admin) = (string_param(&p, "username")?, bool_param(&p, "is_admin")?);
    s.store
        .call(move |c| users::set_admin(c, &name, is_admin))
        .await?;
    Ok(Json(json!({})))
}

/// `DELETE users/delete {username}` (admins; not their own account).
async fn delete_user(
    State(s): State<AppState>,
    caller: Caller,
    method: Method,
    uri: Uri,
    body: Bytes,
) -> MlResult {
    require_admin(&caller)?;
    let name = string_param(&params(&method, &uri, &body)?, "username")?;
    if name == caller.username {
        return Err(Error::BadRequest(
            "Users cannot delete their own account. Ask another admin to delete this user instead."
                .into(),
        )
        .into());
    }
    s.store.call(move |c| users::delete_user(c, &name)).await?;
    Ok(Json(json!({})))
}
