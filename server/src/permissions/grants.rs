//! Explicit experiment grants (`experiment_grants`): write, revoke, and the level encoding.

use crate::db::{params, Conn, OptionalExtension};
use api_types::{Level, Principal, PrincipalKind};

pub use super::levels::{level_from_db, level_to_db};
use crate::Error;

/// The column value of a principal kind in `experiment_grants.principal_kind`.
pub(crate) fn kind_str(kind: PrincipalKind) -> &'static str {
    match kind {
        PrincipalKind::User => "user",
        PrincipalKind::Group => "group",
    }
}

/// The `user_id` or `group_id` of a principal; 404 with a clear message when unknown.
pub fn principal_id(conn: &Conn, principal: &Principal) -> Result<i64, Error> {
    let (sql, what) = match principal.kind {
        PrincipalKind::User => ("SELECT user_id FROM users WHERE username = ?1", "User"),
        PrincipalKind::Group => ("SELECT group_id FROM groups WHERE name = ?1", "Group"),
    };
    conn.query_row(sql, [&principal.name], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("{what} '{}' does not exist.", principal.name)))
}

fn ensure_experiment(conn: &Conn, experiment_id: i64) -> Result<(), Error> {
    let found: Option<i64> = conn
        .query_row(
            "SELECT experiment_id FROM experiments WHERE experiment_id = ?1",
            [experiment_id],
            |r| r.get(0),
        )
        .optional()?;
    found
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
    let id = principal_id(conn, principal)?;
    conn.execute(
        "INSERT INTO experiment_grants (experiment_id, principal_kind, principal_id, level)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (experiment_id, principal_kind, principal_id) DO UPDATE SET level = ?4",
        params![
            experiment_id,
            kind_str(principal.kind),
            id,
            level_to_db(level)
        ],
    )?;
    Ok(())
}

/// Removes `principal`'s explicit grant on an experiment. Unknown experiment, user or group,
/// or no such grant: `Error::NotFound`.
pub fn revoke_grant(conn: &Conn, experiment_id: i64, principal: &Principal) -> Result<(), Error> {
    ensure_experiment(conn, experiment_id)?;
    protect_owner(conn, experiment_id, principal)?;
    let id = principal_id(conn, principal)?;
    let n = conn.execute(
        "DELETE FROM experiment_grants
         WHERE experiment_id = ?1 AND principal_kind = ?2 AND principal_id = ?3",
        params![experiment_id, kind_str(principal.kind), id],
    )?;
    if n == 0 {
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

/// Removes every grant held by user `user_id` (their account is being deleted; grants name
/// principals by id, with no foreign key to cascade).
pub fn delete_user_grants(conn: &Conn, user_id: i64) -> Result<(), Error> {
    conn.execute(
        "DELETE FROM experiment_grants WHERE principal_kind = 'user' AND principal_id = ?1",
        [user_id],
    )?;
    Ok(())
}

/// Writes the creator's CAN_MANAGE grant on a new experiment.
pub fn grant_creator(conn: &Conn, experiment_id: i64, user_id: i64) -> Result<(), Error> {
    conn.execute(
        "INSERT INTO experiment_grants (experiment_id, principal_kind, principal_id, level)
         VALUES (?1, 'user', ?2, 3)
         ON CONFLICT (experiment_id, principal_kind, principal_id) DO UPDATE SET level = 3",
        params![experiment_id, user_id],
    )?;
    Ok(())
}
