//! The demo's GPU nodes: the simulated agents that `make run` starts (`runlens-agent serve
//! --simulate-gpus`), registered as static nodes so the demo's two-node run has a live GPU
//! panel out of the box, and granted to the users of that run's experiment (alice and bob;
//! carol sees no node, as a user without a grant).

use api_types::nodes::{NodeSource, RegisterNode};

use super::DEMO_NODES;
use crate::nodes::{registry, visibility};
use crate::{Error, Store};

/// Where `make run` starts the demo agents unless told otherwise.
const DEFAULT_URLS: [&str; 2] = ["http://127.0.0.1:9401", "http://127.0.0.1:9402"];

/// The demo users who may watch the demo nodes (readers of the two-node run's experiment).
const NODE_VIEWERS: [&str; 2] = ["alice", "bob"];

/// Registers the demo agents (`NAME=URL` each; empty: the two defaults) with `token`.
/// Runs at every start with `--demo`, so changed ports take effect.
pub fn register(store: &Store, agents: &[String], token: &str) -> Result<(), Error> {
    let pairs: Vec<(String, String)> = if agents.is_empty() {
        DEMO_NODES
            .iter()
            .zip(DEFAULT_URLS)
            .map(|(n, u)| (n.to_string(), u.to_string()))
            .collect()
    } else {
        agents
            .iter()
            .map(|a| match a.split_once('=') {
                Some((n, u)) => Ok((n.trim().to_string(), u.trim().to_string())),
                None => Err(Error::InvalidParameter(format!(
                    "--demo-node must be NAME=URL, got {a:?}"
                ))),
            })
            .collect::<Result<_, _>>()?
    };
    let now = crate::util::now_ms();
    store.blocking(|c| {
        for (name, url) in &pairs {
            let node = RegisterNode {
                url: url.clone(),
                token: token.to_string(),
                interval_secs: None,
                driver: None,
                simulated: true,
                gpus: Vec::new(),
            };
            registry::upsert(c, name, &node, NodeSource::Static, now)?;
            for user in NODE_VIEWERS {
                let viewer = api_types::Principal {
                    kind: api_types::PrincipalKind::User,
                    name: user.to_string(),
                };
                visibility::grant(c, name, &viewer)?;
            }
        }
        Ok(())
    })
}
