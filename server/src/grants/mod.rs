//! Grants on shared things: experiments, jobs, registered models and GPU nodes.
//!
//! Every kind keeps its grants in a table of one shape, `<kind>_grants (<id column>,
//! principal_kind 'user' | 'group', principal_id, level)`, and this module is the only code
//! that reads or writes those rows. A feature names its [`Kind`] and what its stored levels
//! mean (experiments and registered models: 0 `NO_PERMISSIONS` to 3 `CAN_MANAGE`; jobs:
//! `CAN_VIEW` to `CAN_MANAGE`; nodes: 1 `CAN_VIEW`), plus its own implicit access (owners,
//! shared paths, administrators). The questions answered here are the same for every kind:
//! the best level a caller holds, who holds a level (who can grant), which resources a
//! caller may see (a SQL condition), and writing and revoking grants.
//!
//! Offers [`Kind`] and its four kinds ([`EXPERIMENT`], [`JOB`], [`REGISTERED_MODEL`],
//! [`NODE`]), the level held ([`held`], [`level_of`]), the list filters ([`granted_sql`],
//! [`blocked_sql`], [`granted_ids`]), the writers ([`set`], [`set_by_id`], [`revoke`],
//! [`delete_user`]) and the readers ([`list`], [`holders`], [`users_holding`]); the
//! tables' SQL stays inside.

#[cfg(test)]
mod tests;

use api_types::{Principal, PrincipalKind};

use crate::auth::Caller;
use crate::db::sql::{json_array, json_int_list};
use crate::db::{params, Conn, Engine, OptionalExtension, ToValue, Value};
use crate::Error;

/// A kind of shared thing: the table of its grants and the column naming the resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    table: &'static str,
    id_col: &'static str,
}

/// Experiments (`experiment_grants`, by experiment id).
pub(crate) const EXPERIMENT: Kind = Kind {
    table: "experiment_grants",
    id_col: "experiment_id",
};
/// Jobs (`job_grants`, by job id).
pub(crate) const JOB: Kind = Kind {
    table: "job_grants",
    id_col: "job_id",
};
/// Registered models (`registered_model_grants`, by registered model id).
pub(crate) const REGISTERED_MODEL: Kind = Kind {
    table: "registered_model_grants",
    id_col: "registered_model_id",
};
/// GPU nodes (`node_grants`, by node name).
pub(crate) const NODE: Kind = Kind {
    table: "node_grants",
    id_col: "node_name",
};

/// A boolean SQL expression with the values it binds, in order, for bare `?` placeholders.
#[derive(Debug, Clone)]
pub(crate) struct ReadableSql {
    /// The condition, e.g. `(... OR ...)`.
    pub sql: String,
    /// Its bound values.
    pub params: Vec<Value>,
}

impl ReadableSql {
    /// A condition every row meets (administrators).
    pub(crate) fn all() -> ReadableSql {
        ReadableSql {
            sql: "1 = 1".into(),
            params: Vec::new(),
        }
    }
}

/// The column value of a principal kind.
pub(crate) fn kind_str(kind: PrincipalKind) -> &'static str {
    match kind {
        PrincipalKind::User => "user",
        PrincipalKind::Group => "group",
    }
}

fn principal(kind: &str, name: String) -> Principal {
    let kind = match kind {
        "group" => PrincipalKind::Group,
        _ => PrincipalKind::User,
    };
    Principal { kind, name }
}

/// The `user_id` or `group_id` of a principal; 404 with a clear message when unknown.
pub(crate) fn principal_id(conn: &Conn, principal: &Principal) -> Result<i64, Error> {
    let (sql, what) = match principal.kind {
        PrincipalKind::User => ("SELECT user_id FROM users WHERE username = ?1", "User"),
        PrincipalKind::Group => ("SELECT group_id FROM groups WHERE name = ?1", "Group"),
    };
    conn.prepare_cached(sql)?
        .query_row([&principal.name], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("{what} '{}' does not exist.", principal.name)))
}

/// What a caller's grants on one resource amount to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Held {
    /// The highest stored level granted to the caller or any of their groups.
    pub best: Option<i64>,
    /// A level-0 (`NO_PERMISSIONS`) grant to the caller themself.
    pub blocked: bool,
}

/// The caller's grants (their own and their groups') on resource `id` of `kind`.
pub(crate) fn held(
    conn: &Conn,
    kind: Kind,
    id: &dyn ToValue,
    caller: &Caller,
) -> Result<Held, Error> {
    let sql = format!(
        "SELECT max(level), max(CASE WHEN principal_kind = 'user' AND level = 0 THEN 1 ELSE 0 END)
           FROM {table}
          WHERE {id_col} = ?1
            AND ((principal_kind = 'user' AND principal_id = ?2)
              OR (principal_kind = 'group' AND principal_id IN {groups}))",
        table = kind.table,
        id_col = kind.id_col,
        groups = json_int_list(conn.engine(), "?3"),
    );
    let (best, blocked): (Option<i64>, Option<i64>) = conn.prepare_cached(&sql)?.query_row(
        params![id, caller.user_id, json_array(&caller.group_ids)?],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok(Held {
        best,
        blocked: blocked == Some(1),
    })
}

/// A subquery of the ids of `kind` on which the principal bound at `user` (a user id) or
/// any group in the JSON list bound at `groups` holds at least `min_level`.
pub(crate) fn granted_ids(
    d: Engine,
    kind: Kind,
    user: &str,
    groups: &str,
    min_level: i64,
) -> String {
    format!(
        "(SELECT g.{id_col} FROM {table} g
           WHERE g.level >= {min_level}
             AND ((g.principal_kind = 'user' AND g.principal_id = {user})
               OR (g.principal_kind = 'group' AND g.principal_id IN {groups_in})))",
        id_col = kind.id_col,
        table = kind.table,
        groups_in = json_int_list(d, groups),
    )
}

/// Condition "the user bound at `?` holds a level-0 (`NO_PERMISSIONS`) grant of their own on
/// the resource in column `id_col`".
pub(crate) fn blocked_sql(kind: Kind, id_col: &str) -> String {
    format!(
        "EXISTS (SELECT 1 FROM {table} b
                  WHERE b.{kid} = {id_col} AND b.principal_kind = 'user'
                    AND b.principal_id = ? AND b.level = 0)",
        table = kind.table,
        kid = kind.id_col,
    )
}

/// Condition "the caller holds at least `min_level` on the resource in column `id_col`",
/// with bare `?` placeholders (administrators: every row).
pub(crate) fn granted_sql(
    d: Engine,
    kind: Kind,
    caller: &Caller,
    id_col: &str,
    min_level: i64,
) -> ReadableSql {
    if caller.is_admin {
        return ReadableSql::all();
    }
    ReadableSql {
        sql: format!("{id_col} IN {}", granted_ids(d, kind, "?", "?", min_level)),
        params: caller_params(caller),
    }
}

/// The caller's user id and JSON list of group ids, as [`granted_ids`] binds them.
pub(crate) fn caller_params(caller: &Caller) -> Vec<Value> {
    let groups = serde_json::to_string(&caller.group_ids).unwrap_or_else(|_| "[]".into());
    vec![Value::Integer(caller.user_id), Value::Text(groups)]
}

/// The stored level of `principal`'s own grant on `id` (`None`: no grant). Unknown user or
/// group: 404.
pub(crate) fn level_of(
    conn: &Conn,
    kind: Kind,
    id: &dyn ToValue,
    principal: &Principal,
) -> Result<Option<i64>, Error> {
    let pid = principal_id(conn, principal)?;
    Ok(conn
        .prepare_cached(&format!(
            "SELECT level FROM {} WHERE {} = ?1 AND principal_kind = ?2 AND principal_id = ?3",
            kind.table, kind.id_col
        ))?
        .query_row(params![id, kind_str(principal.kind), pid], |r| r.get(0))
        .optional()?)
}

/// Grants `principal` the stored `level` on `id`, replacing an earlier grant. Unknown user
/// or group: 404.
pub(crate) fn set(
    conn: &Conn,
    kind: Kind,
    id: &dyn ToValue,
    principal: &Principal,
    level: i64,
) -> Result<(), Error> {
    let pid = principal_id(conn, principal)?;
    set_by_id(conn, kind, id, principal.kind, pid, level)
}

/// Grants the principal `kind_of`/`pid` the stored `level` on `id`, replacing an earlier
/// grant (a creator's grant on what they just created).
pub(crate) fn set_by_id(
    conn: &Conn,
    kind: Kind,
    id: &dyn ToValue,
    kind_of: PrincipalKind,
    pid: i64,
    level: i64,
) -> Result<(), Error> {
    conn.prepare_cached(&format!(
        "INSERT INTO {table} ({id_col}, principal_kind, principal_id, level)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT ({id_col}, principal_kind, principal_id) DO UPDATE SET level = ?4",
        table = kind.table,
        id_col = kind.id_col,
    ))?
    .execute(params![id, kind_str(kind_of), pid, level])?;
    Ok(())
}

/// Removes `principal`'s grant on `id`; whether there was one. Unknown user or group: 404.
pub(crate) fn revoke(
    conn: &Conn,
    kind: Kind,
    id: &dyn ToValue,
    principal: &Principal,
) -> Result<bool, Error> {
    let pid = principal_id(conn, principal)?;
    let n = conn
        .prepare_cached(&format!(
            "DELETE FROM {} WHERE {} = ?1 AND principal_kind = ?2 AND principal_id = ?3",
            kind.table, kind.id_col
        ))?
        .execute(params![id, kind_str(principal.kind), pid])?;
    Ok(n > 0)
}

/// Removes every grant of `kind` held by user `user_id` (the account is being deleted;
/// grants name principals by id).
pub(crate) fn delete_user(conn: &Conn, kind: Kind, user_id: i64) -> Result<(), Error> {
    conn.execute(
        &format!(
            "DELETE FROM {} WHERE principal_kind = 'user' AND principal_id = ?1",
            kind.table
        ),
        [user_id],
    )?;
    Ok(())
}

/// The grants on `id` by principal name with their stored levels: users, then groups, each
/// by name.
pub(crate) fn list(
    conn: &Conn,
    kind: Kind,
    id: &dyn ToValue,
) -> Result<Vec<(Principal, i64)>, Error> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT 'user', u.username, g.level FROM {table} g
           JOIN users u ON g.principal_kind = 'user' AND u.user_id = g.principal_id
          WHERE g.{id_col} = ?1
         UNION ALL
         SELECT 'group', gr.name, g.level FROM {table} g
           JOIN groups gr ON g.principal_kind = 'group' AND gr.group_id = g.principal_id
          WHERE g.{id_col} = ?1
         ORDER BY 1 DESC, 2",
        table = kind.table,
        id_col = kind.id_col,
    ))?;
    let rows = stmt.query_map(params![id], |r| {
        Ok((principal(&r.get::<_, String>(0)?, r.get(1)?), r.get(2)?))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The principals holding exactly `level` on `id` themselves: enabled users (other than
/// `except`, a user id), then groups, each by name.
pub(crate) fn holders(
    conn: &Conn,
    kind: Kind,
    id: &dyn ToValue,
    level: i64,
    except: Option<i64>,
) -> Result<Vec<Principal>, Error> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT 'user', u.username FROM {table} g
           JOIN users u ON g.principal_kind = 'user' AND u.user_id = g.principal_id
          WHERE g.{id_col} = ?1 AND g.level = ?2 AND u.disabled = 0
            AND u.user_id IS DISTINCT FROM ?3
         UNION ALL
         SELECT 'group', gr.name FROM {table} g
           JOIN groups gr ON g.principal_kind = 'group' AND gr.group_id = g.principal_id
          WHERE g.{id_col} = ?1 AND g.level = ?2
         ORDER BY 1 DESC, 2",
        table = kind.table,
        id_col = kind.id_col,
    ))?;
    let rows = stmt.query_map(params![id, level, except], |r| {
        Ok(principal(&r.get::<_, String>(0)?, r.get(1)?))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The enabled users holding exactly `level` on `id`, directly or through a group, by name.
pub(crate) fn users_holding(
    conn: &Conn,
    kind: Kind,
    id: &dyn ToValue,
    level: i64,
) -> Result<Vec<String>, Error> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT username FROM users WHERE disabled = 0 AND (
            user_id IN (SELECT principal_id FROM {table}
                         WHERE {id_col} = ?1 AND principal_kind = 'user' AND level = ?2)
         OR user_id IN (SELECT m.user_id FROM group_members m
                          JOIN {table} g ON g.principal_kind = 'group' AND g.principal_id = m.group_id
                         WHERE g.{id_col} = ?1 AND g.level = ?2))
         ORDER BY username",
        table = kind.table,
        id_col = kind.id_col,
    ))?;
    let rows = stmt.query_map(params![id, level], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// `names` followed by the enabled administrators not already among them (the end of every
/// "who can grant" list: administrators manage everything).
pub(crate) fn with_admins(conn: &Conn, mut names: Vec<String>) -> Result<Vec<String>, Error> {
    let admins: Vec<String> = conn
        .prepare_cached(
            "SELECT username FROM users WHERE is_admin = 1 AND disabled = 0 ORDER BY username",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for admin in admins {
        if !names.contains(&admin) {
            names.push(admin);
        }
    }
    Ok(names)
}

/// The usernames among `principals`, in order.
pub(crate) fn user_names(principals: Vec<Principal>) -> Vec<String> {
    principals
        .into_iter()
        .filter(|p| p.kind == PrincipalKind::User)
        .map(|p| p.name)
        .collect()
}
