//! The checks routes go through: `require_experiment` / `require_run` (404 for unknown ids,
//! 403 with the names of those who can grant access for existing but refused ones), and the
//! rules for creating and renaming experiments.

use crate::db::{Conn, OptionalExtension};
use crate::grants;
use api_types::Level;

use super::rules::{
    experiment_name, level_on, path_owner, scope, DEFAULT_EXPERIMENT, USERS_PREFIX,
};
use crate::auth::Caller;
use crate::Error;

/// What a passed check found: the experiment and the caller's level on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Granted {
    /// The experiment checked (for a run: its experiment).
    pub experiment_id: i64,
    /// The caller's effective level (at least the one required).
    pub level: Level,
}

/// The words for a level in messages.
pub(crate) fn level_name(level: Level) -> &'static str {
    match level {
        Level::CanRead => "CAN_READ",
        Level::CanEdit => "CAN_EDIT",
        Level::CanManage => "CAN_MANAGE",
    }
}

/// Checks that the caller has at least `need` on experiment `id`.
pub(crate) fn require_experiment(
    conn: &Conn,
    caller: &Caller,
    id: i64,
    need: Level,
) -> Result<Granted, Error> {
    let name = experiment_name(conn, id)?
        .ok_or_else(|| Error::NotFound(format!("No Experiment with id={id} exists")))?;
    require_named(conn, caller, id, &name, need)
}

/// [`require_experiment`] for experiment `id` known to exist, named `name`.
fn require_named(
    conn: &Conn,
    caller: &Caller,
    id: i64,
    name: &str,
    need: Level,
) -> Result<Granted, Error> {
    let have = level_on(conn, caller, id, name)?;
    match have {
        Some(level) if level >= need => Ok(Granted {
            experiment_id: id,
            level,
        }),
        _ => Err(denied(conn, id, name, have, need)?),
    }
}

/// Checks that the caller has at least `need` on the experiment of run `run_id`.
pub(crate) fn require_run(
    conn: &Conn,
    caller: &Caller,
    run_id: &str,
    need: Level,
) -> Result<Granted, Error> {
    // The run's experiment and its name in one statement (a round trip on PostgreSQL).
    let (experiment_id, name): (i64, String) = conn
        .prepare_cached(
            "SELECT r.experiment_id, e.name FROM runs AS r
               JOIN experiments AS e ON e.experiment_id = r.experiment_id
              WHERE r.run_uuid = ?1",
        )?
        .query_row([run_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("Run with id={run_id} not found")))?;
    require_named(conn, caller, experiment_id, &name, need)
}

/// The refusal for a caller holding `have` where `need` was required.
fn denied(
    conn: &Conn,
    id: i64,
    name: &str,
    have: Option<Level>,
    need: Level,
) -> Result<Error, Error> {
    let message = match have {
        None => "You don't have access to this experiment.".to_string(),
        Some(_) => format!(
            "You need {} on this experiment to do this.",
            level_name(need)
        ),
    };
    Ok(Error::PermissionDenied {
        message,
        grantors: grantors(conn, id, name)?,
    })
}

/// Who can grant access to experiment `id`: the owner of its `/Users/<owner>/` path, users
/// with CAN_MANAGE (directly or through a group), then admins; enabled accounts only.
pub(crate) fn grantors(conn: &Conn, id: i64, name: &str) -> Result<Vec<String>, Error> {
    let manage = super::levels::level_to_db(Some(Level::CanManage));
    let mut out: Vec<String> = Vec::new();
    if let Some(owner) = path_owner(name) {
        if crate::auth::users::is_enabled(conn, owner)? {
            out.push(owner.to_string());
        }
    }
    for user in grants::users_holding(conn, grants::EXPERIMENT, &id, manage)? {
        if !out.contains(&user) {
            out.push(user);
        }
    }
    grants::with_admins(conn, out)
}

/// Whether the caller may create (or rename to) an experiment named `name`: anywhere but
/// under another user's `/Users/<other>/` folder (admins: anywhere).
pub(crate) fn may_create(caller: &Caller, name: &str) -> Result<(), Error> {
    match path_owner(name) {
        Some(owner) if owner != caller.username && !caller.is_admin => {
            Err(Error::PermissionDenied {
                message: format!(
                    "{USERS_PREFIX}{owner}/ belongs to {owner}. Create experiments under \
                     {USERS_PREFIX}{}/ or /Workspace/Shared/.",
                    caller.username
                ),
                grantors: Vec::new(),
            })
        }
        _ => Ok(()),
    }
}

/// Checks a rename of experiment `id` to `new_name`. Always: the caller may create an
/// experiment at the new name unless it stays in its owner's folder (so never into
/// another user's folder, whatever the old name's scope); an experiment in
/// `/Users/<owner>/` leaves that folder only by its owner's (or an admin's) hand, so a
/// grantee can never take it away from its owner; the Default experiment never moves into
/// a private folder. Then CAN_EDIT when the new name keeps the experiment's implicit access
/// (same owner folder, or both shared, or neither), else CAN_MANAGE, since moving it would
/// change who can see it.
pub(crate) fn require_rename(
    conn: &Conn,
    caller: &Caller,
    id: i64,
    new_name: &str,
) -> Result<Granted, Error> {
    let old = experiment_name(conn, id)?
        .ok_or_else(|| Error::NotFound(format!("No Experiment with id={id} exists")))?;
    let need = match scope(id, &old) == scope(id, new_name) {
        true => Level::CanEdit,
        false => Level::CanManage,
    };
    let granted = require_experiment(conn, caller, id, need)?;
    if id == DEFAULT_EXPERIMENT && path_owner(new_name).is_some() {
        return Err(Error::InvalidParameter(
            "The Default experiment cannot be moved into a private /Users/ folder.".into(),
        ));
    }
    // Within one owner's folder the experiment moves into nothing new.
    let stays_in_folder = path_owner(&old).is_some() && path_owner(&old) == path_owner(new_name);
    if !stays_in_folder {
        may_create(caller, new_name)?;
    }
    match path_owner(&old) {
        Some(owner)
            if path_owner(new_name) != Some(owner)
                && owner != caller.username
                && !caller.is_admin =>
        {
            Err(Error::PermissionDenied {
                message: format!(
                    "Only {owner} (or an admin) can move an experiment out of \
                     {USERS_PREFIX}{owner}/."
                ),
                grantors: Vec::new(),
            })
        }
        _ => Ok(granted),
    }
}
