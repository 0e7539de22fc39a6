//! GPU nodes: the registry of node agents, who may watch which node, the on-demand poller
//! that fetches their samples, and signed embed links for a notebook's iframe.
//!
//! # Design
//!
//! - **Registry** (`registry`, the `nodes` table of migration 0002). An agent registers
//!   itself (`PUT /api/v1/nodes/{name}` with its node credential, then heartbeats the same
//!   way); an admin can also add an agent's URL by hand (a *static* node; the demo does this
//!   through `registry::upsert`). The row keeps the agent's URL and the bearer token the
//!   agent requires; that token is sent only to the agent, never returned by an endpoint,
//!   never logged (`registry::AgentToken` prints as `<redacted>`).
//! - **Node credentials** ([`crate::auth::node_credentials`], migration 0014). An administrator makes one per
//!   node (`runlens node-credential create NODE`, or `POST /api/v1/node-credentials`); it
//!   registers and heartbeats that node and nothing else (the auth layer refuses it on every
//!   other route with 403), so no node holds a user's token.
//! - **Visibility** ([`visibility`]). Nodes are shared things with grants (`node_grants`,
//!   through `crate::grants`): a user may watch a node if they are an admin, or if the node
//!   is granted to them or one of their groups. A run's `runlens.nodes` tag
//!   ([`api_types::nodes::RUN_NODES_TAG`]) only says which nodes its page shows; it gives no
//!   access. A node the caller may not watch answers exactly like one that does not exist
//!   (404), so names do not leak.
//! - **Poller** ([`poller`]). The server calls agents only while someone asks for their
//!   samples (`GET /api/v1/nodes/gpus`, or an embed link). Each node has one cache entry
//!   behind an async mutex: the first request after the node's interval calls the agent
//!   while holding it, and every concurrent request for that node waits for the same call
//!   and answers from its result (single flight): N viewers cost one agent call per node
//!   per interval. Calls time out after 3 s and answers over [`poller::MAX_ANSWER_BYTES`]
//!   are refused (read a chunk at a time); a failed call is cached for the interval too,
//!   so a dead agent is not hammered. The requested nodes are polled concurrently, so one
//!   slow or dead agent never holds up the others; it is reported `unreachable` with the
//!   reason, when it was last seen, and its last snapshot.
//! - **History.** Per node the poller keeps a ring of up to 2 h of samples (at most
//!   `poller::MAX_SAMPLES`, 2 h at a 1 s interval, and [`poller::MAX_HISTORY_BYTES`]).
//!   Each refresh asks the agent for `since=<newest sample held>` (2 h back when the ring
//!   is empty, less after a back-fill too large to read), so the gap while nobody
//!   watched is back-filled from the agent's own ring. A viewer's `since` is answered from
//!   the server's ring. Entries not asked for in 2 h are dropped, which bounds memory by the
//!   nodes watched in the last 2 h.
//! - **Embed links** ([`embed`]). `POST /api/v1/nodes/embed-links` signs
//!   `HMAC-SHA256(secret, "<nodes>\n<exp>")` with a 32-byte secret kept in the `meta`
//!   table (so replicas share it); `GET /api/v1/embed/gpus` is a public route whose
//!   signature is the credential (checked in constant time, then the expiry).
//!
//! Offers [`NodeService`] (watched and embedded nodes' samples, embed links, removal),
//! [`embed`], [`poller`] and [`visibility`]; to the crate `registry` and `names`.

pub mod embed;
pub(crate) mod names;
pub mod poller;
pub(crate) mod registry;
pub mod visibility;

use tokio::sync::OnceCell;

use api_types::nodes::{EmbedLink, NodeGpus};

use crate::auth::Caller;
use crate::util::now_ms;
use crate::{Error, Store};

/// The nodes feature's shared state (one per server): the poller's caches and the embed
/// links' secret, loaded once from the store.
pub struct NodeService {
    /// Polls agents on demand and keeps their history.
    pub poller: poller::Poller,
    secret: OnceCell<embed::Secret>,
}

impl Default for NodeService {
    fn default() -> Self {
        NodeService::new(poller::Poller::default())
    }
}

impl NodeService {
    /// The service over this poller.
    pub fn new(poller: poller::Poller) -> Self {
        NodeService {
            poller,
            secret: OnceCell::new(),
        }
    }

    /// The latest samples of the nodes in `list` (and their history after `since`), polled
    /// on demand; 404 for a node that is unknown or that `caller` may not watch.
    pub(crate) async fn watched_gpus(
        &self,
        store: &Store,
        caller: Caller,
        list: Vec<String>,
        since: Option<i64>,
    ) -> Result<NodeGpus, Error> {
        let nodes = store
            .call(move |c| visibility::require_watchable(c, &caller, &list))
            .await?;
        Ok(NodeGpus {
            nodes: self.poller.views(&nodes, since).await,
            server_time_ms: now_ms(),
        })
    }

    /// A signed link to the nodes in `list` (each one `caller` may watch, else 404), valid
    /// for `ttl_secs` (the default when absent).
    pub(crate) async fn embed_link(
        &self,
        store: &Store,
        caller: Caller,
        list: Vec<String>,
        ttl_secs: Option<u64>,
    ) -> Result<EmbedLink, Error> {
        let checked = list.clone();
        store
            .call(move |c| visibility::require_watchable(c, &caller, &checked))
            .await?;
        let secret = self.embed_secret(store).await?;
        embed::link(secret, &list, ttl_secs, now_ms())
    }

    /// The node names an embed link signed (`nodes`, expiry `exp`, signature `sig`); 403
    /// for a link that is not valid or has expired. A link without a readable expiry is
    /// checked like any other, and fails as not valid.
    pub(crate) async fn embed_nodes(
        &self,
        store: &Store,
        nodes: &str,
        exp: Option<i64>,
        sig: &str,
    ) -> Result<Vec<String>, Error> {
        let secret = self.embed_secret(store).await?;
        embed::verify(secret, nodes, exp.unwrap_or(i64::MIN), sig, now_ms())?;
        names::parse_list(nodes)
    }

    /// The latest samples of exactly the nodes an embed link signed (`list`, from
    /// [`NodeService::embed_nodes`]), in its order; a node removed since shows as
    /// `unknown`.
    pub(crate) async fn embed_gpus(
        &self,
        store: &Store,
        list: Vec<String>,
        since: Option<i64>,
    ) -> Result<NodeGpus, Error> {
        let wanted = list.clone();
        let mut found = store.call(move |c| registry::get_many(c, &wanted)).await?;
        let known: Vec<_> = list.iter().filter_map(|n| found.remove(n)).collect();
        let mut views = self.poller.views(&known, since).await.into_iter();
        let nodes = list
            .iter()
            .map(|name| {
                let view = known.iter().any(|k| &k.name == name).then(|| views.next());
                view.flatten().unwrap_or_else(|| poller::unknown(name))
            })
            .collect();
        Ok(NodeGpus {
            nodes,
            server_time_ms: now_ms(),
        })
    }

    /// Removes node `name` from the registry and forgets its samples; 404 when no such
    /// node is registered.
    pub(crate) async fn remove(&self, store: &Store, name: String) -> Result<(), Error> {
        let key = name.clone();
        if !store.call(move |c| registry::delete(c, &key)).await? {
            return Err(names::not_found(&name));
        }
        self.poller.forget(&name);
        Ok(())
    }

    /// The embed links' secret: read from (or first written to) the store once.
    pub(crate) async fn embed_secret(&self, store: &Store) -> Result<&embed::Secret, Error> {
        self.secret
            .get_or_try_init(|| store.call(embed::load_or_create_secret))
            .await
    }
}
