//! Administering GPU nodes: who may watch a node (`/nodes/{name}/access`) and the node
//! credentials their agents hold (`/node-credentials`). Administrators only; thin handlers
//! over `crate::nodes::visibility` and `crate::auth::node_credentials`.

use api_types::nodes::{
    CreatedNodeCredential, NewNodeCredential, NodeAccess, NodeCredentialList, NodeGrant,
};
use api_types::{Principal, RevokeQuery};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;

use super::guard::AdminGuard;
use super::query::json_body;
use super::query::QueryParams;
use crate::auth::node_credentials;
use crate::nodes::visibility;
use crate::util::now_ms;
use crate::{AppState, Error};

/// `GET /nodes/{name}/access`: the users and groups who may watch the node.
pub(crate) async fn get_node_access(
    State(state): State<AppState>,
    _admin: AdminGuard,
    Path(name): Path<String>,
) -> Result<Json<NodeAccess>, Error> {
    let node = name.clone();
    let viewers = state
        .store
        .call(move |c| visibility::viewers(c, &node))
        .await?;
    Ok(Json(NodeAccess {
        node: name,
        viewers,
    }))
}

/// `PUT /nodes/{name}/access` with a [`NodeGrant`]: lets a user or group watch the node
/// (204).
pub(crate) async fn put_node_access(
    State(state): State<AppState>,
    _admin: AdminGuard,
    Path(name): Path<String>,
    body: Bytes,
) -> Result<StatusCode, Error> {
    let req: NodeGrant = json_body(
        &body,
        "{\"principal\": {\"kind\": \"user\"|\"group\", \"name\": \"...\"}}",
    )?;
    state
        .store
        .call(move |c| visibility::grant(c, &name, &req.principal))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /nodes/{name}/access?kind=user|group&name=...`: revokes a grant (204).
pub(crate) async fn delete_node_access(
    State(state): State<AppState>,
    _admin: AdminGuard,
    Path(name): Path<String>,
    query: QueryParams,
) -> Result<StatusCode, Error> {
    let RevokeQuery { kind, name: who } = query.revoke()?;
    let principal = Principal { kind, name: who };
    state
        .store
        .call(move |c| visibility::revoke(c, &name, &principal))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /node-credentials[?node=]`: the active node credentials, newest first.
pub(crate) async fn list_node_credentials(
    State(state): State<AppState>,
    _admin: AdminGuard,
    query: QueryParams,
) -> Result<Json<NodeCredentialList>, Error> {
    let node = query.get("node").map(str::to_string);
    let credentials = state
        .store
        .call(move |c| node_credentials::list(c, node.as_deref()))
        .await?;
    Ok(Json(NodeCredentialList { credentials }))
}

/// `POST /node-credentials` with [`NewNodeCredential`]: a credential for one node; its
/// secret is in this answer only (201).
pub(crate) async fn create_node_credential(
    State(state): State<AppState>,
    admin: AdminGuard,
    body: Bytes,
) -> Result<(StatusCode, Json<CreatedNodeCredential>), Error> {
    let req: NewNodeCredential = json_body(&body, "{\"node\": \"<node name>\"}")?;
    let by = admin.caller.username;
    let made = state
        .store
        .call(move |c| node_credentials::create(c, &req.node, &by, now_ms()))
        .await?;
    Ok((StatusCode::CREATED, Json(made)))
}

/// `DELETE /node-credentials/{id}`: revokes a credential; its agent's next call gets 401
/// (204).
pub(crate) async fn delete_node_credential(
    State(state): State<AppState>,
    _admin: AdminGuard,
    Path(id): Path<String>,
) -> Result<StatusCode, Error> {
    let id: i64 = id
        .parse()
        .map_err(|_| Error::InvalidParameter(format!("'{id}' is not a credential id")))?;
    state
        .store
        .call(move |c| node_credentials::revoke(c, id, now_ms()))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
