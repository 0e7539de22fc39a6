//! Groups and their members.

use crate::db::{Conn, OptionalExtension};

use super::users::find_user_id;
use crate::Error;

/// A group with its members' usernames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// `groups.group_id`.
    pub group_id: i64,
    /// Group name.
    pub name: String,
    /// Usernames of its members, sorted.
    pub members: Vec<String>,
}

/// Checks a group name: same rules as usernames (1-64 letters, digits, `. _ @ + -`).
fn validate_group_name(name: &str) -> Result<(), Error> {
    super::users::validate_username(name).map_err(|_| {
        Error::InvalidParameter(format!(
            "Invalid group name {name:?}: use 1-64 letters, digits or . _ @ + - \
             (not starting with a dot)."
        ))
    })
}

/// Creates a group; `AlreadyExists` if the name is taken.
pub fn create_group(conn: &Conn, name: &str) -> Result<i64, Error> {
    validate_group_name(name)?;
    if find_group_id(conn, name)?.is_some() {
        return Err(Error::AlreadyExists(format!(
            "Group '{name}' already exists."
        )));
    }
    Ok(conn.query_row(
        "INSERT INTO groups (name, created) VALUES (?1, ?2) RETURNING group_id",
        crate::db::params![name, crate::util::now_ms()],
        |r| r.get(0),
    )?)
}

/// The id of the group `name`, if it exists.
pub(crate) fn find_group_id(conn: &Conn, name: &str) -> Result<Option<i64>, Error> {
    Ok(conn
        .query_row("SELECT group_id FROM groups WHERE name = ?1", [name], |r| {
            r.get(0)
        })
        .optional()?)
}

fn ids(conn: &Conn, group: &str, username: &str) -> Result<(i64, i64), Error> {
    let gid = find_group_id(conn, group)?
        .ok_or_else(|| Error::NotFound(format!("Group '{group}' does not exist.")))?;
    let uid = find_user_id(conn, username)?
        .ok_or_else(|| Error::NotFound(format!("User '{username}' does not exist.")))?;
    Ok((gid, uid))
}

/// Adds `username` to `group` (no-op if already a member).
pub fn add_member(conn: &Conn, group: &str, username: &str) -> Result<(), Error> {
    let (gid, uid) = ids(conn, group, username)?;
    conn.execute(
        "INSERT INTO group_members (group_id, user_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
        [gid, uid],
    )?;
    Ok(())
}

/// Removes `username` from `group` (`NotFound` if they were not a member).
pub fn remove_member(conn: &Conn, group: &str, username: &str) -> Result<(), Error> {
    let (gid, uid) = ids(conn, group, username)?;
    let n = conn.execute(
        "DELETE FROM group_members WHERE group_id = ?1 AND user_id = ?2",
        [gid, uid],
    )?;
    if n == 0 {
        return Err(Error::NotFound(format!(
            "User '{username}' is not a member of group '{group}'."
        )));
    }
    Ok(())
}

/// Every group with its members, by name.
pub fn list_groups(conn: &Conn) -> Result<Vec<Group>, Error> {
    let mut stmt = conn.prepare(
        "SELECT g.group_id, g.name, u.username FROM groups g
         LEFT JOIN group_members m ON m.group_id = g.group_id
         LEFT JOIN users u ON u.user_id = m.user_id
         ORDER BY g.name, u.username",
    )?;
    let mut rows = stmt.query([])?;
    let mut groups: Vec<Group> = Vec::new();
    while let Some(r) = rows.next()? {
        let (id, name, member): (i64, String, Option<String>) = (r.get(0)?, r.get(1)?, r.get(2)?);
        if groups.last().is_none_or(|g| g.group_id != id) {
            groups.push(Group {
                group_id: id,
                name,
                members: Vec::new(),
            });
        }
        if let (Some(m), Some(g)) = (member, groups.last_mut()) {
            g.members.push(m);
        }
    }
    Ok(groups)
}

/// `(group_id, name)` of every group `user_id` belongs to, by name. (An authenticated
/// request reads the ids with its user: `super::users::get_user_and_groups`.)
pub fn groups_of(conn: &Conn, user_id: i64) -> Result<Vec<(i64, String)>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT g.group_id, g.name FROM group_members m JOIN groups g ON g.group_id = m.group_id
         WHERE m.user_id = ?1 ORDER BY g.name",
    )?;
    let rows = stmt.query_map([user_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}
