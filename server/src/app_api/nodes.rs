//! GPU nodes (`/api/v1/nodes...`, `/api/v1/embed/gpus`): the registry (admins register and
//! remove agents; everyone lists the nodes they may watch), the nodes' live GPU samples
//! through the server's on-demand poller, and signed embed links. Thin handlers over
//! `crate::nodes`.

use api_types::nodes::{EmbedLink, EmbedLinkRequest, NodeGpus, NodeList, NodeSource, RegisterNode};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::guard::{AdminGuard, NodeAgentGuard};
use super::query::QueryParams;
use crate::auth::Caller;
use crate::nodes::{names, registry, visibility};
use crate::util::now_ms;
use crate::{AppState, Error};

/// `since` of a query: Unix ms, or absent.
fn since(query: &QueryParams) -> Result<Option<i64>, Error> {
    query.parse::<i64>("since", "a time in Unix milliseconds")
}

/// `PUT /api/v1/nodes/{name}` with [`RegisterNode`]: the node's own agent (its node
/// credential) registers the node or records its heartbeat (source `agent`); an admin adds
/// an agent by hand (`static`; a body with `driver` counts as the agent's own). 400 for a
/// bad name, URL, token or interval.
pub(crate) async fn put_node(
    State(state): State<AppState>,
    guard: NodeAgentGuard,
    body: Bytes,
) -> Result<Json<api_types::nodes::NodeInfo>, Error> {
    let node: RegisterNode = serde_json::from_slice(&body).map_err(|e| {
        Error::BadRequest(format!(
            "Send JSON {{\"url\": ..., \"token\": ...}}: {}",
            e.to_string().split(" at line").next().unwrap_or("")
        ))
    })?;
    let source = if guard.by_agent || node.driver.is_some() {
        NodeSource::Agent
    } else {
        NodeSource::Static
    };
    let name = guard.name;
    let info = state
        .store
        .call(move |c| registry::upsert(c, &name, &node, source, now_ms()))
        .await?;
    Ok(Json(info))
}

/// `DELETE /api/v1/nodes/{name}` (admins): 204, or 404 when no such node is registered.
pub(crate) async fn delete_node(
    State(state): State<AppState>,
    _admin: AdminGuard,
    Path(name): Path<String>,
) -> Result<StatusCode, Error> {
    state.nodes.remove(&state.store, name).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/v1/nodes`: the nodes the caller may watch (admins: all, with their URLs).
pub(crate) async fn list_nodes(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<NodeList>, Error> {
    let admin = caller.is_admin;
    let nodes = state
        .store
        .call(move |c| visibility::visible_nodes(c, &caller))
        .await?;
    Ok(Json(NodeList {
        nodes: nodes.iter().map(|n| n.info(admin)).collect(),
    }))
}

/// `GET /api/v1/nodes/gpus?nodes=a,b[&since=ms]`: each node's latest samples (and its
/// history after `since`), polled on demand. 404 for a node that is unknown or that the
/// caller may not watch; 400 for more than 64 nodes.
pub(crate) async fn node_gpus(
    State(state): State<AppState>,
    caller: Caller,
    query: QueryParams,
) -> Result<Json<NodeGpus>, Error> {
    let list = names::parse_list(query.get("nodes").unwrap_or(""))?;
    let since = since(&query)?;
    let gpus = state
        .nodes
        .watched_gpus(&state.store, caller, list, since)
        .await?;
    Ok(Json(gpus))
}

/// `POST /api/v1/nodes/embed-links` with [`EmbedLinkRequest`]: a signed, read-only link to
/// the chrome-less panel of those nodes (each one the caller may watch, else 404), and the
/// origin that may frame it (none unless `--embed-origin` is set).
pub(crate) async fn create_embed_link(
    State(state): State<AppState>,
    caller: Caller,
    body: Bytes,
) -> Result<Json<EmbedLink>, Error> {
    let req: EmbedLinkRequest = serde_json::from_slice(&body)
        .map_err(|_| Error::BadRequest("Send JSON {\"nodes\": [...]}.".into()))?;
    let list = names::parse_list(&req.nodes.join(","))?;
    let link = state
        .nodes
        .embed_link(&state.store, caller, list, req.ttl_secs)
        .await?;
    Ok(Json(EmbedLink {
        frame_origin: state.embed_origin.as_deref().map(str::to_owned),
        ..link
    }))
}

/// `GET /api/v1/embed/gpus?nodes=..&exp=..&sig=..[&since=]` (public: the signature is the
/// credential): as `/nodes/gpus` for exactly the signed nodes. 403 for a link that is not
/// valid or has expired; a signed node removed since shows as `unknown`.
pub(crate) async fn embed_gpus(State(state): State<AppState>, query: QueryParams) -> Response {
    match embed_answer(&state, &query).await {
        Ok(gpus) => (
            [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
            Json(gpus),
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

async fn embed_answer(state: &AppState, query: &QueryParams) -> Result<NodeGpus, Error> {
    let nodes = query.get("nodes").unwrap_or("");
    let exp = query.get("exp").and_then(|e| e.parse::<i64>().ok());
    let sig = query.get("sig").unwrap_or("");
    let list = state
        .nodes
        .embed_nodes(&state.store, nodes, exp, sig)
        .await?;
    let since = since(query)?;
    state.nodes.embed_gpus(&state.store, list, since).await
}
