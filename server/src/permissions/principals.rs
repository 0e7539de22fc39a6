//! Principals as the rules see them: a stored user as a [`Caller`] (to answer "what may
//! this user do"), and the effective level of anyone on an experiment by id.

use crate::db::{Conn, OptionalExtension};
use api_types::Level;

use super::rules::{experiment_name, level_on};
use crate::auth::{AuthMethod, Caller};
use crate::Error;

/// The user `username` as a caller (admin flag and groups from the store); 404 if unknown.
pub fn caller_for(conn: &Conn, username: &str) -> Result<Caller, Error> {
    let (user_id, is_admin): (i64, bool) = conn
        .prepare_cached("SELECT user_id, is_admin FROM users WHERE username = ?1")?
        .query_row([username], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("User '{username}' does not exist.")))?;
    let group_ids = conn
        .prepare_cached("SELECT group_id FROM group_members WHERE user_id = ?1 ORDER BY group_id")?
        .query_map([user_id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(Caller {
        user_id,
        username: username.to_string(),
        is_admin,
        group_ids,
        method: AuthMethod::Token,
    })
}

/// The caller's level on experiment `id`: `Ok(None)` when the experiment does not exist,
/// `Ok(Some(None))` when it exists but the caller has no access.
pub(crate) fn experiment_level(
    conn: &Conn,
    caller: &Caller,
    id: i64,
) -> Result<Option<Option<Level>>, Error> {
    match experiment_name(conn, id)? {
        Some(name) => Ok(Some(level_on(conn, caller, id, &name)?)),
        None => Ok(None),
    }
}
