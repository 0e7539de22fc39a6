//! Wire types of the nodes registry and the GPU panel (`/api/v1/nodes...`): what agents send
//! when they register, what the app reads for the GPU resources panel, and the signed embed
//! links for a notebook's iframe. The samples themselves are [`crate::agent`]'s types.

use serde::{Deserialize, Serialize};

use crate::agent::{DriverStatus, NodeSnapshot};

/// The tag on an MLflow run naming the nodes it ran on, comma-separated
/// (`runlens.nodes = "gpu-a,gpu-b"`): set by `runlens-agent run`; the run page shows these
/// nodes' GPUs to users who may watch them. The tag gives no access: who may watch a node
/// comes from the node's grants alone.
pub const RUN_NODES_TAG: &str = "runlens.nodes";

/// Longest node name.
pub const MAX_NODE_NAME: usize = 128;

/// Names that are fixed paths under `/api/v1/nodes/`, so no node can be registered there.
pub const RESERVED_NODE_NAMES: [&str; 2] = ["gpus", "embed-links"];

/// Whether `name` is a node name the registry accepts (the agent checks it too before it
/// registers or logs): 1 to 128 of `A-Z a-z 0-9 . _ -`, which is also safe inside an MLflow
/// metric key and a URL path; not only dots (`..` would be a path step) and not one of
/// [`RESERVED_NODE_NAMES`].
pub fn is_valid_node_name(name: &str) -> bool {
    (1..=MAX_NODE_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !name.bytes().all(|b| b == b'.')
        && !RESERVED_NODE_NAMES.contains(&name)
}

/// Every node credential starts with this (API tokens start with `rl_`), so the server tells
/// the two apart before any lookup and a leaked one is easy to grep for.
pub const NODE_CREDENTIAL_PREFIX: &str = "rln_";

/// Whether `s` has the shape of a node credential: [`NODE_CREDENTIAL_PREFIX`] and 40
/// alphanumerics.
pub fn looks_like_node_credential(s: &str) -> bool {
    s.len() == NODE_CREDENTIAL_PREFIX.len() + 40
        && s.starts_with(NODE_CREDENTIAL_PREFIX)
        && s[NODE_CREDENTIAL_PREFIX.len()..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric())
}

/// A node credential as lists show it (never its secret): `GET /api/v1/node-credentials`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeCredentialInfo {
    /// Its id (for revoking).
    pub id: i64,
    /// The one node it registers and heartbeats.
    pub node: String,
    /// Its first characters, to recognise it.
    pub prefix: String,
    /// The administrator who made it.
    pub created_by: String,
    /// When it was made (Unix ms).
    pub created: i64,
    /// When it was last used (Unix ms, to the minute).
    pub last_used: Option<i64>,
}

/// The body of `POST /api/v1/node-credentials` (administrators): a credential for `node`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewNodeCredential {
    /// The node it will register and heartbeat (it need not be registered yet).
    pub node: String,
}

/// The answer of creating a node credential: the secret is shown this once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedNodeCredential {
    /// What lists show.
    pub info: NodeCredentialInfo,
    /// The secret (`rln_...`), for the agent's credential file.
    pub credential: String,
}

/// `GET /api/v1/node-credentials[?node=]`: the active credentials, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeCredentialList {
    /// The credentials.
    pub credentials: Vec<NodeCredentialInfo>,
}

/// `GET /api/v1/nodes/{name}/access` (administrators): who may watch the node besides the
/// administrators. `PUT` with a [`NodeGrant`] adds one; `DELETE ?kind=user|group&name=`
/// removes one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeAccess {
    /// The node.
    pub node: String,
    /// The users and groups who may watch it (users first, each by name).
    pub viewers: Vec<crate::Principal>,
}

/// The body of `PUT /api/v1/nodes/{name}/access`: let `principal` watch the node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeGrant {
    /// Who.
    pub principal: crate::Principal,
}

/// The body of `PUT /api/v1/nodes/{name}`: an agent registering (and then heartbeating) with
/// its node credential, or an admin adding an agent by hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegisterNode {
    /// Where the server reaches the agent, e.g. `http://10.0.0.7:9400` (http or https).
    pub url: String,
    /// The bearer token the agent requires on `GET /v1/gpus`. Stored by the server, never
    /// returned by any endpoint.
    pub token: String,
    /// The agent's sample interval, seconds (the server caches one answer that long).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_secs: Option<u64>,
    /// Whether the agent could use NVML; absent when added by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<DriverStatus>,
    /// True when the agent's GPUs are simulated.
    #[serde(default)]
    pub simulated: bool,
    /// The node's GPUs (index, name, UUID, memory); empty when added by hand.
    #[serde(default)]
    pub gpus: Vec<GpuIdentity>,
}

/// What identifies a GPU in the registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuIdentity {
    /// NVML index on its node.
    pub index: u32,
    /// Product name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// UUID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Device memory in all, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_total_bytes: Option<u64>,
}

/// How a node came into the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeSource {
    /// The agent registered itself (`runlens-agent serve --server ...`) and heartbeats.
    Agent,
    /// An admin added the agent's URL by hand.
    Static,
}

/// One node of the registry, as `GET /api/v1/nodes` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeInfo {
    /// The node's name (`--node-name`).
    pub name: String,
    /// How it was registered.
    pub source: NodeSource,
    /// The agent's URL: admins only (absent for everyone else).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Last registration or heartbeat (Unix ms); absent for a static node never heard from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_heartbeat_ms: Option<i64>,
    /// The agent's sample interval, seconds.
    pub interval_secs: u64,
    /// Driver status as last reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<DriverStatus>,
    /// True when its GPUs are simulated.
    pub simulated: bool,
    /// Its GPUs as last reported.
    pub gpus: Vec<GpuIdentity>,
}

/// `GET /api/v1/nodes`: the nodes of runs the caller may read (admins: all), by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeList {
    /// The nodes.
    pub nodes: Vec<NodeInfo>,
}

/// The query of `GET /api/v1/nodes/gpus` (and of the embed variant).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeGpusQuery {
    /// Comma-separated node names (at most 64).
    pub nodes: String,
    /// Back-fill: include the samples taken strictly after this time (Unix ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
}

/// `GET /api/v1/nodes/gpus`: one entry per requested node, in the order asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeGpus {
    /// The nodes.
    pub nodes: Vec<NodeView>,
    /// When the server answered (Unix ms): the client's next `since`.
    pub server_time_ms: i64,
}

/// What the server knows of one node right now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeView {
    /// The node's name.
    pub node: String,
    /// Reachable or not, and why.
    pub state: NodeState,
    /// When the server last had an answer from the agent (Unix ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seen_ms: Option<i64>,
    /// The latest answer (possibly older than this poll when the node is unreachable);
    /// its `history` holds the samples after the query's `since`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<NodeSnapshot>,
}

/// Whether the server could reach a node's agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum NodeState {
    /// The agent answered within the last poll interval.
    Live,
    /// The last call failed or timed out: `reason` for a person ("connection refused",
    /// "timed out after 3 s", "agent answered 401").
    Unreachable {
        /// Why.
        reason: String,
    },
    /// No node of that name is registered.
    Unknown,
}

/// The body of `POST /api/v1/nodes/embed-links`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbedLinkRequest {
    /// The nodes the link shows (each must be visible to the caller).
    pub nodes: Vec<String>,
    /// Lifetime in seconds (default 7 days, at most 30 days).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_secs: Option<u64>,
}

/// A signed, read-only, expiring link to the chrome-less GPU panel of some nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbedLink {
    /// Path and query to open, relative to the server's origin:
    /// `/embed/gpus?nodes=a,b&exp=UNIX_S&sig=HEX`.
    pub path: String,
    /// When the link stops working (Unix ms).
    pub expires_at_ms: i64,
    /// The origin whose pages may show the link in a frame (`runlens serve
    /// --embed-origin`); `None`: embedding is off, and the link opens only in a tab of its own.
    #[serde(default)]
    pub frame_origin: Option<String>,
}

/// The query of `GET /api/v1/embed/gpus` (public route; the signature is the credential).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbedGpusQuery {
    /// Comma-separated node names, exactly as signed.
    pub nodes: String,
    /// Expiry, Unix seconds, as signed.
    pub exp: i64,
    /// Hex HMAC-SHA256 over `nodes` and `exp` with the server's secret.
    pub sig: String,
    /// Back-fill, as in [`NodeGpusQuery::since`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_follow_the_character_rule() {
        for ok in ["a", "gpu-node-1", "n.example_2", ".a", &"x".repeat(128)] {
            assert!(is_valid_node_name(ok), "{ok}");
        }
        for bad in [
            "",
            "a b",
            "a/b",
            "ä",
            "gpus",
            "embed-links",
            ".",
            "..",
            "...",
            &"x".repeat(129),
        ] {
            assert!(!is_valid_node_name(bad), "{bad}");
        }
    }

    #[test]
    fn node_state_is_tagged() {
        let s = NodeState::Unreachable {
            reason: "timed out".into(),
        };
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            serde_json::json!({"status": "unreachable", "reason": "timed out"})
        );
        assert_eq!(
            serde_json::to_value(NodeState::Live).unwrap(),
            serde_json::json!({"status": "live"})
        );
    }
}
