//! Node credentials (`node_credentials`): the secret one node's agent holds to register and
//! heartbeat that node, and nothing else. Made by an administrator, shown once, stored as a
//! SHA-256 digest, listed and revoked like API tokens.

use api_types::nodes::{
    looks_like_node_credential, CreatedNodeCredential, NodeCredentialInfo, NODE_CREDENTIAL_PREFIX,
};

use super::secret::{random_alphanumeric, sha256_hex};
use crate::db::{params, Conn, OptionalExtension, Row};
use crate::Error;

/// Characters of a credential kept in clear to recognise it (`rln_` + 6).
const SHOWN_PREFIX_LEN: usize = 10;

/// Who a node credential speaks for: put in a request's extensions by the auth layer
/// instead of a [`super::Caller`], on the routes marked [`AcceptsNodeCredential`] only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NodeAgent {
    /// The credential's id.
    pub credential_id: i64,
    /// The one node it may register and heartbeat.
    pub node: String,
}

/// The mark (a request extension, set by the route table) of the one kind of route a node
/// credential may call: its node's registration and heartbeat. Everywhere else the auth
/// layer answers a node credential with 403.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AcceptsNodeCredential;

const COLUMNS: &str = "credential_id, node_name, prefix, created_by, created, last_used";

fn info(r: &Row<'_>) -> crate::db::Result<NodeCredentialInfo> {
    Ok(NodeCredentialInfo {
        id: r.get(0)?,
        node: r.get(1)?,
        prefix: r.get(2)?,
        created_by: r.get(3)?,
        created: r.get(4)?,
        last_used: r.get(5)?,
    })
}

/// Makes a credential for node `node` (which need not be registered yet) on behalf of
/// administrator `created_by`; the secret is in the answer only. 400 for a bad node name.
pub fn create(
    conn: &Conn,
    node: &str,
    created_by: &str,
    now_ms: i64,
) -> Result<CreatedNodeCredential, Error> {
    if !api_types::nodes::is_valid_node_name(node) {
        return Err(Error::InvalidParameter(format!(
            "'{node}' is not a node name: 1 to {} letters, digits, '.', '_' and '-'.",
            api_types::nodes::MAX_NODE_NAME
        )));
    }
    let secret = format!("{NODE_CREDENTIAL_PREFIX}{}", random_alphanumeric(40));
    let prefix = secret[..SHOWN_PREFIX_LEN].to_string();
    let id: i64 = conn
        .prepare_cached(
            "INSERT INTO node_credentials (node_name, prefix, token_hash, created_by, created)
             VALUES (?1, ?2, ?3, ?4, ?5) RETURNING credential_id",
        )?
        .query_row(
            params![node, prefix, sha256_hex(&secret), created_by, now_ms],
            |r| r.get(0),
        )?;
    Ok(CreatedNodeCredential {
        info: NodeCredentialInfo {
            id,
            node: node.to_string(),
            prefix,
            created_by: created_by.to_string(),
            created: now_ms,
            last_used: None,
        },
        credential: secret,
    })
}

/// The active credentials (of `node` only, when given), newest first.
pub fn list(conn: &Conn, node: Option<&str>) -> Result<Vec<NodeCredentialInfo>, Error> {
    let order = "ORDER BY created DESC, credential_id DESC";
    let rows = match node {
        Some(node) => conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM node_credentials
                  WHERE revoked IS NULL AND node_name = ?1 {order}"
            ))?
            .query_map([node], info)?
            .collect::<Result<_, _>>()?,
        None => conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM node_credentials WHERE revoked IS NULL {order}"
            ))?
            .query_map([], info)?
            .collect::<Result<_, _>>()?,
    };
    Ok(rows)
}

/// Revokes credential `id`: its agent's next call is refused. 404 when there is no active
/// credential with that id.
pub fn revoke(conn: &Conn, id: i64, now_ms: i64) -> Result<NodeCredentialInfo, Error> {
    let found = conn
        .prepare_cached(&format!(
            "UPDATE node_credentials SET revoked = ?2
              WHERE credential_id = ?1 AND revoked IS NULL RETURNING {COLUMNS}"
        ))?
        .query_row(params![id, now_ms], info)
        .optional()?;
    found.ok_or_else(|| Error::NotFound(format!("Node credential {id} does not exist.")))
}

/// The node agent an active credential `secret` speaks for at time `now_ms`, recording its
/// use (at most once a minute); `None` for anything else.
pub(crate) fn resolve(conn: &Conn, secret: &str, now_ms: i64) -> Result<Option<NodeAgent>, Error> {
    if !looks_like_node_credential(secret) {
        return Ok(None);
    }
    let row: Option<(i64, String, Option<i64>)> = conn
        .prepare_cached(
            "SELECT credential_id, node_name, last_used FROM node_credentials
              WHERE token_hash = ?1 AND revoked IS NULL",
        )?
        .query_row([sha256_hex(secret)], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()?;
    let Some((credential_id, node, last_used)) = row else {
        return Ok(None);
    };
    if last_used.is_none_or(|t| now_ms - t > 60_000) {
        conn.prepare_cached("UPDATE node_credentials SET last_used = ?2 WHERE credential_id = ?1")?
            .execute(params![credential_id, now_ms])?;
    }
    Ok(Some(NodeAgent {
        credential_id,
        node,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    #[test]
    fn a_credential_resolves_to_its_node_until_revoked() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store
            .blocking(|c| {
                let made = create(c, "gpu-a", "root", 10)?;
                assert!(made.credential.starts_with(NODE_CREDENTIAL_PREFIX));
                assert!(made.credential.starts_with(&made.info.prefix));
                let other = create(c, "gpu-b", "root", 11)?;
                let agent = resolve(c, &made.credential, 20)?.expect("resolves");
                assert_eq!(agent.node, "gpu-a");
                assert_eq!(list(c, None)?.len(), 2);
                assert_eq!(list(c, Some("gpu-b"))?, vec![other.info.clone()]);
                assert_eq!(list(c, Some("gpu-a"))?[0].last_used, Some(20));
                assert!(resolve(c, "rl_not-a-node-credential", 20)?.is_none());
                revoke(c, made.info.id, 30)?;
                assert!(resolve(c, &made.credential, 40)?.is_none());
                assert!(matches!(
                    revoke(c, made.info.id, 50),
                    Err(Error::NotFound(_))
                ));
                assert!(create(c, "bad name", "root", 1).is_err());
                Ok(())
            })
            .unwrap();
    }
}
