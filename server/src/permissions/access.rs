//! What the Share dialog shows: an experiment's explicit grants by name, the access its path
//! gives in words, and the users and groups a picker may offer.

use crate::db::Conn;
use api_types::{Grant, Level, Principal, PrincipalKind};

use super::levels::level_from_db;
use super::rules::{scope, Scope, SHARED_PREFIX, USERS_PREFIX};
use crate::db::sql::contains;
use crate::Error;

/// Explicit grants on experiment `id` by principal name: users first, then groups, by name.
/// Level-0 (`NO_PERMISSIONS`) grants come back with `None`.
pub(crate) fn list_grants(conn: &Conn, id: i64) -> Result<Vec<(Principal, Option<Level>)>, Error> {
    Ok(crate::grants::list(conn, crate::grants::EXPERIMENT, &id)?
        .into_iter()
        .map(|(principal, level)| (principal, level_from_db(level)))
        .collect())
}

/// The grants with a level, as the wire type lists them.
pub(crate) fn positive_grants(all: &[(Principal, Option<Level>)]) -> Vec<Grant> {
    all.iter()
        .filter_map(|(principal, level)| {
            level.map(|level| Grant {
                principal: principal.clone(),
                level,
            })
        })
        .collect()
}

/// Access that comes from the path (and level-0 grants), in words.
pub(crate) fn implicit_access(
    id: i64,
    name: &str,
    all: &[(Principal, Option<Level>)],
) -> Vec<String> {
    let mut out = match scope(id, name) {
        Scope::Owned(owner) => vec![format!(
            "{owner} owns experiments under {USERS_PREFIX}{owner}/ (CAN_MANAGE)."
        )],
        Scope::Shared if id == super::rules::DEFAULT_EXPERIMENT => {
            vec!["Everyone can read and edit the Default experiment.".to_string()]
        }
        Scope::Shared => vec![format!(
            "Everyone can read and edit experiments under {SHARED_PREFIX}."
        )],
        Scope::Plain => Vec::new(),
    };
    for (p, level) in all {
        if level.is_none() && p.kind == PrincipalKind::User {
            out.push(format!("{} is denied access (NO_PERMISSIONS).", p.name));
        }
    }
    out.push("Administrators can manage every experiment.".to_string());
    out
}

/// Enabled users and groups whose name contains `q` (case-insensitive), users first, at most
/// `limit`.
pub(crate) fn search_principals(
    conn: &Conn,
    q: &str,
    limit: usize,
) -> Result<Vec<Principal>, Error> {
    let needle = q.to_lowercase();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT 'user', username FROM users WHERE disabled = 0 AND {}
         UNION ALL
         SELECT 'group', name FROM groups WHERE {}
         ORDER BY 1 DESC, 2 LIMIT ?2",
        contains(conn.engine(), "lower(username)", "?1"),
        contains(conn.engine(), "lower(name)", "?1")
    ))?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = stmt.query_map(crate::db::params![needle, limit], |r| {
        let kind = match r.get::<_, String>(0)?.as_str() {
            "group" => PrincipalKind::Group,
            _ => PrincipalKind::User,
        };
        Ok(Principal {
            kind,
            name: r.get(1)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
