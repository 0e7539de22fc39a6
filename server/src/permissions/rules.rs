//! The level rules: which experiments a path makes private or shared, and a caller's
//! effective level on one experiment (admin, owner path, shared path, explicit grants).

use crate::db::{Conn, OptionalExtension};
use api_types::Level;

use super::levels::level_from_db;
use crate::auth::Caller;
use crate::Error;

/// Prefix of per-user private folders: `/Users/<username>/...`.
pub(crate) const USERS_PREFIX: &str = "/Users/";
/// Prefix of the folder every signed-in user may read and edit.
pub(crate) const SHARED_PREFIX: &str = "/Workspace/Shared/";
/// The Default experiment, where unconfigured clients log; treated like Shared.
pub const DEFAULT_EXPERIMENT: i64 = 0;

/// Where an experiment's name puts it, which decides its implicit access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `/Users/<owner>/...`: private to the owner until shared.
    Owned(String),
    /// `/Workspace/Shared/...` or experiment 0: every user may read and edit.
    Shared,
    /// Anywhere else: only explicit grants (and admins).
    Plain,
}

/// The scope of experiment `id` named `name`.
pub(crate) fn scope(id: i64, name: &str) -> Scope {
    if id == DEFAULT_EXPERIMENT || name.starts_with(SHARED_PREFIX) {
        return Scope::Shared;
    }
    match path_owner(name) {
        Some(owner) => Scope::Owned(owner.to_string()),
        None => Scope::Plain,
    }
}

/// The `<owner>` of `/Users/<owner>/...` (non-empty and followed by a slash).
pub(crate) fn path_owner(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(USERS_PREFIX)?;
    let (owner, _) = rest.split_once('/')?;
    (!owner.is_empty()).then_some(owner)
}

/// What a caller's explicit grants on one experiment amount to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Explicit {
    /// Highest level granted to the user or any of their groups.
    pub best: Option<Level>,
    /// A level-0 (`NO_PERMISSIONS`) grant to the user themself: no implicit Shared access.
    pub blocked: bool,
}

/// The caller's explicit grants on experiment `id`.
pub(crate) fn explicit(conn: &Conn, caller: &Caller, id: i64) -> Result<Explicit, Error> {
    let held = crate::grants::held(conn, crate::grants::EXPERIMENT, &id, caller)?;
    Ok(Explicit {
        best: held.best.and_then(level_from_db),
        blocked: held.blocked,
    })
}

/// Combines the rules: admins manage everything; the owner of a `/Users/<owner>/` path
/// manages it; Shared gives CAN_EDIT unless blocked by a level-0 grant; explicit grants
/// add to that (the highest wins). `None`: no access at all.
pub(crate) fn combine(caller: &Caller, scope: &Scope, explicit: Explicit) -> Option<Level> {
    if caller.is_admin {
        return Some(Level::CanManage);
    }
    let implicit = match scope {
        Scope::Owned(owner) if *owner == caller.username => Some(Level::CanManage),
        Scope::Shared if !explicit.blocked => Some(Level::CanEdit),
        _ => None,
    };
    implicit.max(explicit.best)
}

/// Name of experiment `id`, or `None` when no such experiment exists.
pub(crate) fn experiment_name(conn: &Conn, id: i64) -> Result<Option<String>, Error> {
    Ok(conn
        .prepare_cached("SELECT name FROM experiments WHERE experiment_id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?)
}

/// The caller's effective level on existing experiment `id` named `name`.
pub(crate) fn level_on(
    conn: &Conn,
    caller: &Caller,
    id: i64,
    name: &str,
) -> Result<Option<Level>, Error> {
    if caller.is_admin {
        return Ok(Some(Level::CanManage));
    }
    Ok(combine(
        caller,
        &scope(id, name),
        explicit(conn, caller, id)?,
    ))
}
