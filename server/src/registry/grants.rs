//! Who may do what to a registered model: its explicit grants to users and groups
//! (READ / EDIT / MANAGE as `Level`, NO_PERMISSIONS as level 0), the creator's MANAGE, and
//! administrators, who manage every model. Nothing else gives access: a model nobody shared
//! is its creator's (and the admins') alone.

use crate::db::Value;
use crate::db::{params, Conn, OptionalExtension};
use api_types::{Level, Principal, PrincipalKind};

use super::models;
use crate::auth::Caller;
use crate::permissions::{level_from_db, level_name, level_to_db, principal_id, ReadableSql};
use crate::store::sql::{json_array, json_int_list, Dialect};
use crate::Error;

fn kind_str(kind: PrincipalKind) -> &'static str {
    match kind {
        PrincipalKind::User => "user",
        PrincipalKind::Group => "group",
    }
}

/// The caller's effective level on registered model `id`: MANAGE for admins, else the
/// highest of their own and their groups' grants (level 0 gives nothing).
pub fn level(conn: &Conn, caller: &Caller, id: i64) -> Result<Option<Level>, Error> {
    if caller.is_admin {
        return Ok(Some(Level::CanManage));
    }
    let sql = format!(
        "SELECT max(level) FROM registered_model_grants
          WHERE registered_model_id = ?1
            AND ((principal_kind = 'user' AND principal_id = ?2)
              OR (principal_kind = 'group' AND principal_id IN {}))",
        json_int_list(conn.dialect(), "?3")
    );
    let best: Option<i64> = conn.prepare_cached(&sql)?.query_row(
        params![id, caller.user_id, json_array(&caller.group_ids)?],
        |r| r.get(0),
    )?;
    Ok(best.and_then(level_from_db))
}

/// What a passed check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Granted {
    /// The registered model's id.
    pub id: i64,
    /// The caller's level (at least the one required).
    pub level: Level,
}

/// Checks that the caller holds at least `need` on registered model `name`. Unknown: 404
/// in MLflow's words; refused: 403 naming the model's managers.
pub fn require(conn: &Conn, caller: &Caller, name: &str, need: Level) -> Result<Granted, Error> {
    let id = models::id_of(conn, name)?;
    let have = level(conn, caller, id)?;
    match have {
        Some(level) if level >= need => Ok(Granted { id, level }),
        _ => {
            let message = match have {
                None => "You don't have access to this registered model.".to_string(),
                Some(_) => format!(
                    "You need {} on this registered model to do this.",
                    level_name(need)
                ),
            };
            Err(Error::PermissionDenied {
                message,
                grantors: grantors(conn, id)?,
            })
        }
    }
}

/// Who can grant access to registered model `id`: enabled users holding MANAGE directly or
/// through a group, then admins.
pub fn grantors(conn: &Conn, id: i64) -> Result<Vec<String>, Error> {
    let mut out: Vec<String> = conn
        .prepare_cached(
            "SELECT username FROM users WHERE disabled = 0 AND (
                user_id IN (SELECT principal_id FROM registered_model_grants
                             WHERE registered_model_id = ?1 AND principal_kind = 'user'
                               AND level = 3)
             OR user_id IN (SELECT m.user_id FROM group_members m
                              JOIN registered_model_grants g
                                ON g.principal_kind = 'group' AND g.principal_id = m.group_id
                             WHERE g.registered_model_id = ?1 AND g.level = 3))
             ORDER BY username",
        )?
        .query_map([id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let admins: Vec<String> = conn
        .prepare_cached(
            "SELECT username FROM users WHERE is_admin = 1 AND disabled = 0 ORDER BY username",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for admin in admins {
        if !out.contains(&admin) {
            out.push(admin);
        }
    }
    Ok(out)
}

/// Condition "the caller may read this registered model" over the id column `id_col`.
pub fn readable_sql(d: Dialect, caller: &Caller, id_col: &str) -> ReadableSql {
    if caller.is_admin {
        return ReadableSql {
            sql: "1 = 1".into(),
            params: Vec::new(),
        };
    }
    let groups = serde_json::to_string(&caller.group_ids).unwrap_or_else(|_| "[]".into());
    ReadableSql {
        sql: format!(
            "{id_col} IN (SELECT g.registered_model_id FROM registered_model_grants g
                           WHERE g.level > 0
                             AND ((g.principal_kind = 'user' AND g.principal_id = ?)
                               OR (g.principal_kind = 'group'
                                   AND g.principal_id IN {})))",
            json_int_list(d, "?")
        ),
        params: vec![Value::Integer(caller.user_id), Value::Text(groups)],
    }
}

/// Gives the creator of registered model `id` MANAGE.
pub fn grant_creator(conn: &Conn, id: i64, user_id: i64) -> Result<(), Error> {
    conn.prepare_cached(
        "INSERT INTO registered_model_grants \
           (registered_model_id, principal_kind, principal_id, level) VALUES (?1, 'user', ?2, 3) \
         ON CONFLICT (registered_model_id, principal_kind, principal_id) DO UPDATE SET level = 3",
    )?
    .execute(params![id, user_id])?;
    Ok(())
}

/// The explicit grant level of `principal` on `id` (`Some(None)`: NO_PERMISSIONS; `None`:
/// no grant). Unknown user or group: 404.
pub fn grant_of(
    conn: &Conn,
    id: i64,
    principal: &Principal,
) -> Result<Option<Option<Level>>, Error> {
    let pid = principal_id(conn, principal)?;
    let level: Option<i64> = conn
        .prepare_cached(
            "SELECT level FROM registered_model_grants \
             WHERE registered_model_id = ?1 AND principal_kind = ?2 AND principal_id = ?3",
        )?
        .query_row(params![id, kind_str(principal.kind), pid], |r| r.get(0))
        .optional()?;
    Ok(level.map(level_from_db))
}

/// Grants `principal` `level` on `id` (`None`: NO_PERMISSIONS), replacing an earlier grant.
/// Unknown user or group: 404.
pub fn set_grant(
    conn: &Conn,
    id: i64,
    principal: &Principal,
    level: Option<Level>,
) -> Result<(), Error> {
    let pid = principal_id(conn, principal)?;
    conn.prepare_cached(
        "INSERT INTO registered_model_grants \
           (registered_model_id, principal_kind, principal_id, level) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (registered_model_id, principal_kind, principal_id) \
         DO UPDATE SET level = excluded.level",
    )?
    .execute(params![
        id,
        kind_str(principal.kind),
        pid,
        level_to_db(level)
    ])?;
    Ok(())
}

/// Removes `principal`'s grant on `id`; returns whether there was one. Unknown user or
/// group: 404.
pub fn revoke(conn: &Conn, id: i64, principal: &Principal) -> Result<bool, Error> {
    let pid = principal_id(conn, principal)?;
    let n = conn
        .prepare_cached(
            "DELETE FROM registered_model_grants \
             WHERE registered_model_id = ?1 AND principal_kind = ?2 AND principal_id = ?3",
        )?
        .execute(params![id, kind_str(principal.kind), pid])?;
    Ok(n > 0)
}
