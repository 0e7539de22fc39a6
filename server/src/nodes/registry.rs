//! The `nodes` table: register (or heartbeat), remove, list and look up node agents.

use std::collections::HashMap;

use crate::db::{params, Conn, OptionalExtension, Row};
use api_types::agent::DriverStatus;
use api_types::nodes::{GpuIdentity, NodeInfo, NodeSource, RegisterNode};

use super::names::{check_name, check_token, check_url};
use crate::db::sql::{json_array, json_list};
use crate::Error;

/// The interval assumed for a node that reports none (an admin added it by hand).
pub(crate) const DEFAULT_INTERVAL_SECS: u64 = 10;
/// Longest interval a node may report (the cache lives that long).
const MAX_INTERVAL_SECS: u64 = 3600;
/// Most GPUs one node may report.
const MAX_GPUS: usize = 256;

/// The bearer token an agent requires. Its `Debug` never shows it, so a logged record
/// never leaks it; only [`AgentToken::expose`] (for the agent call) reads it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct AgentToken(String);

impl AgentToken {
    /// The token, for the `Authorization` header of the call to its agent.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for AgentToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// One row of the registry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeRecord {
    /// The node's name.
    pub name: String,
    /// The agent's base URL (no trailing `/`).
    pub url: String,
    /// What the agent requires on `GET /v1/gpus`.
    pub token: AgentToken,
    /// How it was registered.
    pub source: NodeSource,
    /// The agent's sample interval, seconds (at least 1).
    pub interval_secs: u64,
    /// Driver status as last reported.
    pub driver: Option<DriverStatus>,
    /// Whether the GPUs are simulated.
    pub simulated: bool,
    /// The GPUs as last reported.
    pub gpus: Vec<GpuIdentity>,
    /// Last registration or heartbeat of the agent (Unix ms).
    pub last_heartbeat_ms: Option<i64>,
}

impl NodeRecord {
    /// The record as `GET /api/v1/nodes` shows it: the URL only when `with_url` (admins),
    /// the token never.
    pub(crate) fn info(&self, with_url: bool) -> NodeInfo {
        NodeInfo {
            name: self.name.clone(),
            source: self.source,
            url: with_url.then(|| self.url.clone()),
            last_heartbeat_ms: self.last_heartbeat_ms,
            interval_secs: self.interval_secs,
            driver: self.driver.clone(),
            simulated: self.simulated,
            gpus: self.gpus.clone(),
        }
    }
}

fn source_text(s: NodeSource) -> &'static str {
    match s {
        NodeSource::Agent => "agent",
        NodeSource::Static => "static",
    }
}

/// 400 unless the registration is acceptable: name, URL, token, interval 1..=3600 s, at
/// most 256 GPUs. Returns the URL as stored.
fn validate(name: &str, node: &RegisterNode) -> Result<String, Error> {
    check_name(name)?;
    let url = check_url(&node.url)?;
    check_token(&node.token)?;
    if let Some(s) = node.interval_secs {
        if !(1..=MAX_INTERVAL_SECS).contains(&s) {
            return Err(Error::InvalidParameter(format!(
                "interval_secs must be between 1 and {MAX_INTERVAL_SECS}, got {s}"
            )));
        }
    }
    if node.gpus.len() > MAX_GPUS {
        return Err(Error::InvalidParameter(format!(
            "A node reports at most {MAX_GPUS} GPUs, got {}",
            node.gpus.len()
        )));
    }
    Ok(url)
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String, Error> {
    serde_json::to_string(v).map_err(|e| Error::Internal(format!("encoding a node: {e}")))
}

/// Registers node `name`, or updates it (a heartbeat): URL, token, interval, driver,
/// simulated flag and GPUs as given, `source` as given. An agent's registration
/// (`NodeSource::Agent`) sets the last heartbeat to `now_ms`; a static one keeps it.
/// Validates everything first (400 `InvalidParameter`). Returns the node as an admin sees it.
///
/// The demo registers its simulated agents with this (`NodeSource::Static`).
pub(crate) fn upsert(
    conn: &Conn,
    name: &str,
    node: &RegisterNode,
    source: NodeSource,
    now_ms: i64,
) -> Result<NodeInfo, Error> {
    let url = validate(name, node)?;
    let interval = node.interval_secs.unwrap_or(DEFAULT_INTERVAL_SECS) as i64;
    let driver = node.driver.as_ref().map(to_json).transpose()?;
    let gpus = to_json(&node.gpus)?;
    let heartbeat = (source == NodeSource::Agent).then_some(now_ms);
    conn.prepare_cached(
        "INSERT INTO nodes (name, url, token, source, interval_secs, driver, simulated, gpus,
                            last_heartbeat_ms, created_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT (name) DO UPDATE SET
           url = excluded.url, token = excluded.token, source = excluded.source,
           interval_secs = excluded.interval_secs, driver = excluded.driver,
           simulated = excluded.simulated, gpus = excluded.gpus,
           last_heartbeat_ms = coalesce(excluded.last_heartbeat_ms, nodes.last_heartbeat_ms)",
    )?
    .execute(params![
        name,
        url,
        node.token,
        source_text(source),
        interval,
        driver,
        node.simulated,
        gpus,
        heartbeat,
        now_ms
    ])?;
    get(conn, name)?
        .map(|r| r.info(true))
        .ok_or_else(|| Error::Internal(format!("node {name} vanished after its upsert")))
}

/// Removes node `name`; false when there was none.
pub(crate) fn delete(conn: &Conn, name: &str) -> Result<bool, Error> {
    let n = conn
        .prepare_cached("DELETE FROM nodes WHERE name = ?1")?
        .execute([name])?;
    Ok(n > 0)
}

const COLUMNS: &str = "name, url, token, source, interval_secs, driver, simulated, gpus, \
                       last_heartbeat_ms";

fn record(r: &Row<'_>) -> crate::db::Result<NodeRecord> {
    let bad = |i: usize, e: serde_json::Error| crate::db::DbError::column(i, e);
    let driver: Option<String> = r.get(5)?;
    let gpus: String = r.get(7)?;
    let source: String = r.get(3)?;
    Ok(NodeRecord {
        name: r.get(0)?,
        url: r.get(1)?,
        token: AgentToken(r.get(2)?),
        source: if source == "agent" {
            NodeSource::Agent
        } else {
            NodeSource::Static
        },
        interval_secs: r.get::<_, i64>(4)?.max(1) as u64,
        driver: driver
            .map(|d| serde_json::from_str(&d).map_err(|e| bad(5, e)))
            .transpose()?,
        simulated: r.get(6)?,
        gpus: serde_json::from_str(&gpus).map_err(|e| bad(7, e))?,
        last_heartbeat_ms: r.get(8)?,
    })
}

/// Node `name`, if registered.
pub(crate) fn get(conn: &Conn, name: &str) -> Result<Option<NodeRecord>, Error> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM nodes WHERE name = ?1"))?
        .query_row([name], record)
        .optional()?)
}

/// Every registered node, by name.
pub(crate) fn list(conn: &Conn) -> Result<Vec<NodeRecord>, Error> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM nodes ORDER BY name"))?;
    let rows = stmt.query_map([], record)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The registered nodes among `names`, by name (unknown names are absent).
pub(crate) fn get_many(
    conn: &Conn,
    names: &[String],
) -> Result<HashMap<String, NodeRecord>, Error> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM nodes WHERE name IN {}",
        json_list(conn.engine(), "?1")
    ))?;
    let rows = stmt.query_map([json_array(names)?], record)?;
    rows.map(|r| r.map(|n| (n.name.clone(), n)).map_err(Error::from))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    fn node(url: &str) -> RegisterNode {
        RegisterNode {
            url: url.into(),
            token: "agent-secret".into(),
            interval_secs: Some(2),
            driver: None,
            simulated: true,
            gpus: vec![GpuIdentity {
                index: 0,
                name: Some("Sim".into()),
                uuid: None,
                memory_total_bytes: Some(1),
            }],
        }
    }

    #[test]
    fn upsert_registers_then_heartbeats_and_keeps_static_heartbeats() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store
            .blocking(|c| {
                let info = upsert(c, "n1", &node("http://a:1/"), NodeSource::Static, 5)?;
                assert_eq!(info.url.as_deref(), Some("http://a:1"));
                assert_eq!(info.last_heartbeat_ms, None);
                let info = upsert(c, "n1", &node("http://b:2"), NodeSource::Agent, 7)?;
                assert_eq!(info.last_heartbeat_ms, Some(7));
                assert_eq!(info.source, NodeSource::Agent);
                let info = upsert(c, "n1", &node("http://b:2"), NodeSource::Static, 9)?;
                assert_eq!(
                    info.last_heartbeat_ms,
                    Some(7),
                    "static keeps the heartbeat"
                );
                let rec = get(c, "n1")?.unwrap();
                assert_eq!(rec.token.expose(), "agent-secret");
                assert!(!format!("{rec:?}").contains("agent-secret"));
                assert_eq!(list(c)?.len(), 1);
                assert_eq!(get_many(c, &["n1".into(), "zz".into()])?.len(), 1);
                assert!(upsert(c, "bad name", &node("http://a"), NodeSource::Static, 1).is_err());
                assert!(delete(c, "n1")?);
                assert!(!delete(c, "n1")?);
                Ok(())
            })
            .unwrap();
    }
}
