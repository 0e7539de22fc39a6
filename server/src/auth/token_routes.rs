//! `/api/v1/tokens`: list, create and revoke the caller's API tokens (admins may name
//! another user with `?user=`).

use api_types::{CreatedToken, NewToken, TokenInfo};
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;

use super::{tokens, users, Caller};
use crate::db::Conn;
use crate::{AppState, Error};

/// `?user=` on token routes.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct UserQuery {
    /// Whose tokens (admins only, when not the caller).
    pub user: Option<String>,
}

/// The user id the request is about: the caller, or `?user=` for admins.
fn subject(conn: &Conn, caller: &Caller, q: &UserQuery) -> Result<i64, Error> {
    match q.user.as_deref() {
        None => Ok(caller.user_id),
        Some(u) if u == caller.username => Ok(caller.user_id),
        Some(u) if caller.is_admin => users::find_user_id(conn, u)?
            .ok_or_else(|| Error::NotFound(format!("User '{u}' does not exist."))),
        Some(_) => Err(Error::PermissionDenied {
            message: "Only administrators can see or revoke other users' tokens.".into(),
            grantors: Vec::new(),
        }),
    }
}

/// `GET /api/v1/tokens[?user=]`: active tokens, newest first (secrets never shown).
pub(crate) async fn list_tokens(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<UserQuery>,
) -> Result<Json<Vec<TokenInfo>>, Error> {
    let list = state
        .store
        .call(move |conn| tokens::list_tokens(conn, subject(conn, &caller, &q)?))
        .await?;
    Ok(Json(list))
}

/// `POST /api/v1/tokens` with [`NewToken`]: 201 with the secret, shown this once.
pub(crate) async fn create_token(
    State(state): State<AppState>,
    caller: Caller,
    body: Bytes,
) -> Result<(StatusCode, Json<CreatedToken>), Error> {
    let new: NewToken = serde_json::from_slice(&body)
        .map_err(|_| Error::BadRequest("Send JSON {\"name\": ...}.".into()))?;
    let created = state
        .store
        .call(move |conn| tokens::create_token(conn, caller.user_id, &new.name))
        .await?;
    Ok((StatusCode::CREATED, Json(created)))
}

/// `DELETE /api/v1/tokens/{id}[?user=]`: revokes a token (204).
pub(crate) async fn revoke_token(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<UserQuery>,
) -> Result<StatusCode, Error> {
    let id: i64 = id
        .parse()
        .map_err(|_| Error::NotFound(format!("Token {id} does not exist.")))?;
    state
        .store
        .call(move |conn| tokens::revoke_token(conn, subject(conn, &caller, &q)?, id))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
