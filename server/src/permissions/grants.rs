//! Explicit experiment grants (`experiment_grants`, through [`crate::grants`]): write,
//! revoke, and the level encoding.

use crate::db::Conn;
use api_types::{Level, Principal, PrincipalKind};

pub(crate) use super::levels::{level_from_db, level_to_db};
use crate::grants::{self, EXPERIMENT};
use crate::Error;

pub(crate) use crate::grants::principal_id;

fn ensure_experiment(conn: &Conn, experiment_id: i64) -> Result<(), Error> {
    super::rules::experiment_name(conn, experiment_id)?
        .map(|_| ())
        .ok_or_else(|| Error::NotFound(format!("Experiment '{experiment_id}' does not exist.")))
}

/// Grants `principal` `level` on an experiment, replacing any earlier grant; `None` writes
/// level 0 (MLflow `NO_PERMISSIONS`), which also removes the implicit access of shared paths.
/// Unknown experiment, user or group: `Error::NotFound`.
pub fn set_grant(
    conn: &Conn,
    experiment_id: i64,
    principal: &Principal,
    level: Option<Level>,
) -> Result<(), Error> {
    ensure_experiment(conn, experiment_id)?;
    if level.is_none() {
        protect_owner(conn, experiment_id, principal)?;
    }
    grants::set(
        conn,
        EXPERIMENT,
        &experiment_id,
        principal,
        level_to_db(level),
    )
}

/// Removes `principal`'s explicit grant on an experiment. Unknown experiment, user or group,
/// or no such grant: `Error::NotFound`.
pub fn revoke_grant(conn: &Conn, experiment_id: i64, principal: &Principal) -> Result<(), Error> {
    ensure_experiment(conn, experiment_id)?;
    protect_owner(conn, experiment_id, principal)?;
    if !grants::revoke(conn, EXPERIMENT, &experiment_id, principal)? {
        return Err(Error::NotFound(format!(
            "'{}' has no grant on experiment '{experiment_id}'.",
            principal.name
        )));
    }
    Ok(())
}

/// Refuses to take access away from an experiment's owner (`<name>` of its
/// `/Users/<name>/...` path): nobody, not even an admin, can lock an owner out.
fn protect_owner(conn: &Conn, experiment_id: i64, principal: &Principal) -> Result<(), Error> {
    if principal.kind != PrincipalKind::User {
        return Ok(());
    }
    let name = super::rules::experiment_name(conn, experiment_id)?.unwrap_or_default();
    if super::rules::path_owner(&name) == Some(principal.name.as_str()) {
        return Err(Error::InvalidParameter(format!(
            "Cannot remove the owner's access: {} owns '{name}'.",
            principal.name
        )));
    }
    Ok(())
}

/// Removes every experiment grant held by user `user_id` (their account is being deleted;
/// grants name principals by id, with no foreign key to cascade).
pub(crate) fn delete_user_grants(conn: &Conn, user_id: i64) -> Result<(), Error> {
    grants::delete_user(conn, EXPERIMENT, user_id)
}

/// Writes the creator's CAN_MANAGE grant on a new experiment.
pub(crate) fn grant_creator(conn: &Conn, experiment_id: i64, user_id: i64) -> Result<(), Error> {
    let manage = level_to_db(Some(Level::CanManage));
    grants::set_by_id(
        conn,
        EXPERIMENT,
        &experiment_id,
        PrincipalKind::User,
        user_id,
        manage,
    )
}
