//! Identity and sharing calls: session (sign in / out), API tokens, experiment access and
//! the principals picker.

use api_types as json;
use gloo_net::http::Method;

use super::http::{decode, delete, get, send, to_json, url, write, ApiError, On401, SESSION};
use crate::query::encode_component;

/// `GET /api/v1/session`: who is signed in (`UNAUTHENTICATED` when nobody is). Does not
/// trigger the sign-in redirect: the app asks this at start to decide.
pub async fn get_session() -> Result<json::Me, ApiError> {
    let resp = send(Method::GET, SESSION, None, On401::Report).await?;
    decode(resp).await
}

/// `POST /api/v1/session`: sign in (401 bad credentials, 429 rate limited).
pub async fn create_session(req: json::LoginRequest) -> Result<json::Me, ApiError> {
    let body = Some(to_json(&req)?);
    let resp = send(Method::POST, SESSION, body, On401::Report).await?;
    decode(resp).await
}

/// `DELETE /api/v1/session`: sign out.
pub async fn delete_session() -> Result<(), ApiError> {
    send(Method::DELETE, SESSION, None, On401::Report).await?;
    Ok(())
}

/// `GET /api/v1/tokens`: the caller's API tokens.
pub async fn list_tokens() -> Result<Vec<json::TokenInfo>, ApiError> {
    get("/api/v1/tokens").await
}

/// `POST /api/v1/tokens`: a new token; the answer holds the secret, shown only once.
pub async fn create_token(name: String) -> Result<json::CreatedToken, ApiError> {
    write(Method::POST, "/api/v1/tokens", &json::NewToken { name }).await
}

/// `DELETE /api/v1/tokens/{id}`: revoke a token.
pub async fn delete_token(id: i64) -> Result<(), ApiError> {
    delete(&format!("/api/v1/tokens/{id}")).await
}

fn access_path(experiment_id: &str) -> String {
    format!(
        "/api/v1/experiments/{}/access",
        encode_component(experiment_id)
    )
}

/// `GET /api/v1/experiments/{id}/access`: who has access and the caller's level.
pub async fn get_access(experiment_id: String) -> Result<json::ExperimentAccess, ApiError> {
    get(&access_path(&experiment_id)).await
}

/// `PUT /api/v1/experiments/{id}/access`: grant or change a level (CAN_MANAGE only;
/// answers 204).
pub async fn put_grant(experiment_id: String, req: json::GrantRequest) -> Result<(), ApiError> {
    let body = Some(to_json(&req)?);
    send(
        Method::PUT,
        &access_path(&experiment_id),
        body,
        On401::Redirect,
    )
    .await?;
    Ok(())
}

/// `DELETE /api/v1/experiments/{id}/access?kind=&name=`: revoke a grant.
pub async fn delete_grant(experiment_id: String, who: json::Principal) -> Result<(), ApiError> {
    let q = json::RevokeQuery {
        kind: who.kind,
        name: who.name,
    };
    delete(&url(&access_path(&experiment_id), q.to_pairs())).await
}

/// `GET /api/v1/principals?q=`: users and groups whose name matches `q`.
pub async fn list_principals(q: String) -> Result<Vec<json::Principal>, ApiError> {
    let q = json::PrincipalQuery { q: Some(q) };
    get(&url("/api/v1/principals", q.to_pairs())).await
}
