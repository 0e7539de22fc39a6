//! Which nodes a caller may watch: admins every node; everyone else the nodes named in the
//! `runlens.nodes` tag of runs in experiments they may read.

use std::collections::HashSet;

use api_types::nodes::RUN_NODES_TAG;

use super::names::not_found;
use super::registry::{self, NodeRecord};
use crate::auth::Caller;
use crate::permissions::readable_sql;
use crate::store::Conn;
use crate::Error;

/// The node names in `runlens.nodes` tags of runs the caller may read; `None` for admins
/// (every node).
fn watchable_names(conn: &Conn, caller: &Caller) -> Result<Option<HashSet<String>>, Error> {
    if caller.is_admin {
        return Ok(None);
    }
    let readable = readable_sql(conn.dialect(), caller, "e.experiment_id", "e.name");
    // The tag key is a literal (not a parameter) so the partial index of migration 0002
    // (`WHERE key = 'runlens.nodes'`) applies.
    let sql = format!(
        "SELECT DISTINCT t.value FROM tags t
           JOIN runs r ON r.run_uuid = t.run_uuid
           JOIN experiments e ON e.experiment_id = r.experiment_id
          WHERE t.key = '{RUN_NODES_TAG}' AND {}",
        readable.sql
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(crate::db::params_from_iter(readable.params.iter()), |r| {
        r.get::<_, String>(0)
    })?;
    let mut names = HashSet::new();
    for value in rows {
        names.extend(
            value?
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_string),
        );
    }
    Ok(Some(names))
}

/// The registered nodes the caller may watch, by name.
pub fn visible_nodes(conn: &Conn, caller: &Caller) -> Result<Vec<NodeRecord>, Error> {
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
pub fn require_watchable(
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
