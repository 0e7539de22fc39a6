//! Who may watch which node: administrators every node; everyone else the nodes granted to
//! them or one of their groups (`node_grants`, through `crate::grants`). Nothing a user can
//! write (a run's `runlens.nodes` tag, a job run's node list, a run name) adds to that.

use std::collections::HashSet;

use api_types::Principal;

use super::names::not_found;
use super::registry::{self, NodeRecord};
use crate::auth::Caller;
use crate::db::Conn;
use crate::grants::{self, NODE};
use crate::Error;

/// The stored level of a node grant: watch its GPUs.
const CAN_VIEW: i64 = 1;

/// The names of the nodes granted to the caller; `None` for admins (every node).
fn watchable_names(conn: &Conn, caller: &Caller) -> Result<Option<HashSet<String>>, Error> {
    if caller.is_admin {
        return Ok(None);
    }
    let sql = format!(
        "SELECT name FROM nodes WHERE name IN {}",
        grants::granted_ids(conn.engine(), NODE, "?1", "?2", CAN_VIEW)
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let params = grants::caller_params(caller);
    let rows = stmt.query_map(crate::db::params_from_iter(params.iter()), |r| {
        r.get::<_, String>(0)
    })?;
    Ok(Some(rows.collect::<Result<_, _>>()?))
}

/// The registered nodes the caller may watch, by name.
pub(crate) fn visible_nodes(conn: &Conn, caller: &Caller) -> Result<Vec<NodeRecord>, Error> {
    let all = registry::list(conn)?;
    Ok(match watchable_names(conn, caller)? {
        None => all,
        Some(names) => all
            .into_iter()
            .filter(|n| names.contains(&n.name))
            .collect(),
    })
}

/// The records of `names`, in that order, when the caller may watch every one of them;
/// otherwise 404 for the first one that is unknown or not watchable (the same answer for
/// both).
pub(crate) fn require_watchable(
    conn: &Conn,
    caller: &Caller,
    names: &[String],
) -> Result<Vec<NodeRecord>, Error> {
    let allowed = watchable_names(conn, caller)?;
    let mut found = registry::get_many(conn, names)?;
    names
        .iter()
        .map(|name| {
            let may = allowed.as_ref().is_none_or(|a| a.contains(name));
            match found.remove(name) {
                Some(rec) if may => Ok(rec),
                _ => Err(not_found(name)),
            }
        })
        .collect()
}

/// 404 unless node `name` is registered.
fn ensure_node(conn: &Conn, name: &str) -> Result<(), Error> {
    registry::get(conn, name)?
        .map(|_| ())
        .ok_or_else(|| not_found(name))
}

/// The users and groups who may watch node `name` besides the administrators: users first,
/// each by name. Unknown node: 404.
pub(crate) fn viewers(conn: &Conn, name: &str) -> Result<Vec<Principal>, Error> {
    ensure_node(conn, name)?;
    Ok(grants::list(conn, NODE, &name)?
        .into_iter()
        .map(|(principal, _)| principal)
        .collect())
}

/// Lets `principal` watch node `name`. Unknown node, user or group: 404.
pub fn grant(conn: &Conn, name: &str, principal: &Principal) -> Result<(), Error> {
    ensure_node(conn, name)?;
    grants::set(conn, NODE, &name, principal, CAN_VIEW)
}

/// Stops `principal` watching node `name` (administrators still do). Unknown node, user or
/// group, or no such grant: 404.
pub fn revoke(conn: &Conn, name: &str, principal: &Principal) -> Result<(), Error> {
    ensure_node(conn, name)?;
    if !grants::revoke(conn, NODE, &name, principal)? {
        return Err(Error::NotFound(format!(
            "'{}' has no grant on node '{name}'.",
            principal.name
        )));
    }
    Ok(())
}
