//! GPU panel calls: the nodes' live GPUs (signed in, or through a signed embed link) and
//! the signed embed links themselves.

use api_types as json;
use gloo_net::http::Method;

use super::http::{decode, get, send, write, ApiError, On401};
use crate::query::Query;

/// `GET /api/v1/nodes`: the nodes the caller may watch (admins: all).
pub async fn list_nodes() -> Result<json::nodes::NodeList, ApiError> {
    get("/api/v1/nodes").await
}

/// `GET /api/v1/nodes/gpus?nodes=a,b&since=`: the nodes' GPUs, with the samples after
/// `since` (Unix ms) for the history.
pub async fn get_node_gpus(
    nodes: String,
    since: Option<i64>,
) -> Result<json::nodes::NodeGpus, ApiError> {
    let q = Query::new()
        .with("nodes", nodes)
        .with_opt("since", since.map(|s| s.to_string()));
    get(&q.url("/api/v1/nodes/gpus")).await
}

/// `GET /api/v1/embed/gpus?nodes=&exp=&sig=&since=`: the same through a signed embed link
/// (no session; a 401 is reported, never a sign-in redirect).
pub async fn get_embed_gpus(
    q: json::nodes::EmbedGpusQuery,
) -> Result<json::nodes::NodeGpus, ApiError> {
    let url = Query::new()
        .with("nodes", q.nodes)
        .with("exp", q.exp.to_string())
        .with("sig", q.sig)
        .with_opt("since", q.since.map(|s| s.to_string()))
        .url("/api/v1/embed/gpus");
    decode(send(Method::GET, &url, None, On401::Report).await?).await
}

/// `POST /api/v1/nodes/embed-links`: a signed, read-only, expiring link to these nodes.
pub async fn create_embed_link(
    req: json::nodes::EmbedLinkRequest,
) -> Result<json::nodes::EmbedLink, ApiError> {
    write(Method::POST, "/api/v1/nodes/embed-links", &req).await
}
