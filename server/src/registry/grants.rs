//! Who may do what to a registered model: its explicit grants to users and groups
//! (READ / EDIT / MANAGE as `Level`, NO_PERMISSIONS as level 0, through `crate::grants`),
//! the creator's MANAGE, and administrators, who manage every model. Nothing else gives
//! access: a model nobody shared is its creator's (and the admins') alone.

use crate::db::{Conn, Engine};
use api_types::{Level, Principal, PrincipalKind};

use super::models;
use crate::auth::Caller;
use crate::grants::{self, ReadableSql, REGISTERED_MODEL};
use crate::permissions::{level_from_db, level_name, level_to_db};
use crate::Error;

/// The caller's effective level on registered model `id`: MANAGE for admins, else the
/// highest of their own and their groups' grants (level 0 gives nothing).
pub(crate) fn level(conn: &Conn, caller: &Caller, id: i64) -> Result<Option<Level>, Error> {
    if caller.is_admin {
        return Ok(Some(Level::CanManage));
    }
    let best = grants::held(conn, REGISTERED_MODEL, &id, caller)?.best;
    Ok(best.and_then(level_from_db))
}

/// What a passed check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Granted {
    /// The registered model's id.
    pub id: i64,
    /// The caller's level (at least the one required).
    pub level: Level,
}

/// Checks that the caller holds at least `need` on registered model `name`. Unknown: 404
/// in MLflow's words; refused: 403 naming the model's managers.
pub(crate) fn require(
    conn: &Conn,
    caller: &Caller,
    name: &str,
    need: Level,
) -> Result<Granted, Error> {
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
pub(crate) fn grantors(conn: &Conn, id: i64) -> Result<Vec<String>, Error> {
    let manage = level_to_db(Some(Level::CanManage));
    let holders = grants::users_holding(conn, REGISTERED_MODEL, &id, manage)?;
    grants::with_admins(conn, holders)
}

/// Condition "the caller may read this registered model" over the id column `id_col`.
pub(crate) fn readable_sql(d: Engine, caller: &Caller, id_col: &str) -> ReadableSql {
    grants::granted_sql(d, REGISTERED_MODEL, caller, id_col, 1)
}

/// Gives the creator of registered model `id` MANAGE.
pub(crate) fn grant_creator(conn: &Conn, id: i64, user_id: i64) -> Result<(), Error> {
    let manage = level_to_db(Some(Level::CanManage));
    grants::set_by_id(
        conn,
        REGISTERED_MODEL,
        &id,
        PrincipalKind::User,
        user_id,
        manage,
    )
}

/// The explicit grant level of `principal` on `id` (`Some(None)`: NO_PERMISSIONS; `None`:
/// no grant). Unknown user or group: 404.
pub(crate) fn grant_of(
    conn: &Conn,
    id: i64,
    principal: &Principal,
) -> Result<Option<Option<Level>>, Error> {
    Ok(grants::level_of(conn, REGISTERED_MODEL, &id, principal)?.map(level_from_db))
}

/// Grants `principal` `level` on `id` (`None`: NO_PERMISSIONS), replacing an earlier grant.
/// Unknown user or group: 404.
pub fn set_grant(
    conn: &Conn,
    id: i64,
    principal: &Principal,
    level: Option<Level>,
) -> Result<(), Error> {
    grants::set(conn, REGISTERED_MODEL, &id, principal, level_to_db(level))
}

/// Removes `principal`'s grant on `id`; returns whether there was one. Unknown user or
/// group: 404.
pub(crate) fn revoke(conn: &Conn, id: i64, principal: &Principal) -> Result<bool, Error> {
    grants::revoke(conn, REGISTERED_MODEL, &id, principal)
}
