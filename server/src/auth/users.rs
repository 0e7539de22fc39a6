//! Users: creation, lookup, password and role changes, enabling and disabling.

use crate::db::{Conn, OptionalExtension};

use super::password::{check_new_password, hash_password};
use crate::Error;

/// A user as stored (never includes the password hash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// `users.user_id`.
    pub user_id: i64,
    /// Username.
    pub username: String,
    /// Administrator role.
    pub is_admin: bool,
    /// Disabled users cannot authenticate.
    pub disabled: bool,
    /// Whether a password is set.
    pub has_password: bool,
    /// Creation time, ms since the epoch.
    pub created: i64,
}

/// Checks a username: 1-64 characters from letters, digits and `. _ @ + -`, not starting
/// with `.` (it becomes a path segment in `/Users/<username>/`).
pub(crate) fn validate_username(username: &str) -> Result<(), Error> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || "._@+-".contains(c);
    if username.is_empty()
        || username.len() > 64
        || username.starts_with('.')
        || !username.chars().all(ok_char)
    {
        return Err(Error::InvalidParameter(format!(
            "Invalid username {username:?}: use 1-64 letters, digits or . _ @ + - \
             (not starting with a dot)."
        )));
    }
    Ok(())
}

/// Creates a user; `password` `None` makes an account that cannot sign in with a password
/// (e.g. created by the proxy header). `AlreadyExists` if the name is taken.
pub fn create_user(
    conn: &Conn,
    username: &str,
    password: Option<&str>,
    is_admin: bool,
) -> Result<i64, Error> {
    validate_username(username)?;
    let hash = match password {
        Some(p) => {
            check_new_password(p)?;
            Some(hash_password(p)?)
        }
        None => None,
    };
    if find_user_id(conn, username)?.is_some() {
        return Err(already_exists(username));
    }
    let inserted = conn.query_row(
        "INSERT INTO users (username, password_hash, is_admin, disabled, created)
         VALUES (?1, ?2, ?3, 0, ?4) RETURNING user_id",
        crate::db::params![username, hash, is_admin, crate::util::now_ms()],
        |r| r.get(0),
    );
    match inserted {
        Ok(id) => Ok(id),
        Err(e) if e.is_constraint_violation() => Err(already_exists(username)),
        Err(e) => Err(e.into()),
    }
}

fn already_exists(username: &str) -> Error {
    Error::AlreadyExists(format!("User '{username}' already exists."))
}

fn not_found(username: &str) -> Error {
    Error::NotFound(format!("User '{username}' does not exist."))
}

/// The id of `username`, if such a user exists.
pub fn find_user_id(conn: &Conn, username: &str) -> Result<Option<i64>, Error> {
    Ok(conn
        .query_row(
            "SELECT user_id FROM users WHERE username = ?1",
            [username],
            |r| r.get(0),
        )
        .optional()?)
}

const USER_COLUMNS: &str =
    "user_id, username, is_admin, disabled, password_hash IS NOT NULL, created";

fn user_from_row(r: &crate::db::Row<'_>) -> crate::db::Result<User> {
    Ok(User {
        user_id: r.get(0)?,
        username: r.get(1)?,
        is_admin: r.get(2)?,
        disabled: r.get(3)?,
        has_password: r.get(4)?,
        created: r.get(5)?,
    })
}

/// The user named `username` (`NotFound` if none).
pub fn get_user(conn: &Conn, username: &str) -> Result<User, Error> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE username = ?1");
    conn.query_row(&sql, [username], user_from_row)
        .optional()?
        .ok_or_else(|| not_found(username))
}

/// The user with id `user_id`, if any. (Through the statement cache: every authenticated
/// request looks its user up.)
pub fn get_user_by_id(conn: &Conn, user_id: i64) -> Result<Option<User>, Error> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE user_id = ?1");
    Ok(conn
        .prepare_cached(&sql)?
        .query_row([user_id], user_from_row)
        .optional()?)
}

/// The user `user_id` with the ids of the groups they belong to (by group name), in one
/// statement: every authenticated request reads both (each statement is a round trip on
/// PostgreSQL).
pub(crate) fn get_user_and_groups(
    conn: &Conn,
    user_id: i64,
) -> Result<Option<(User, Vec<i64>)>, Error> {
    let sql = format!(
        "SELECT u.*, g.group_id FROM (SELECT {USER_COLUMNS} FROM users WHERE user_id = ?1) AS u
           LEFT JOIN (group_members AS m JOIN groups AS g ON g.group_id = m.group_id)
             ON m.user_id = u.user_id
          ORDER BY g.name"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query([user_id])?;
    let mut found: Option<(User, Vec<i64>)> = None;
    while let Some(r) = rows.next()? {
        let group: Option<i64> = r.get(6)?;
        let (_, groups) = match &mut found {
            Some(f) => f,
            None => found.insert((user_from_row(&r)?, Vec::new())),
        };
        groups.extend(group);
    }
    Ok(found)
}

/// Every user, by username.
pub fn list_users(conn: &Conn) -> Result<Vec<User>, Error> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users ORDER BY username");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([], user_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Sets a new password (and signs the user out everywhere: their sessions end).
pub fn set_password(conn: &Conn, username: &str, password: &str) -> Result<(), Error> {
    check_new_password(password)?;
    let hash = hash_password(password)?;
    update(conn, username, "password_hash = ?2", &hash)?;
    super::sessions::delete_user_sessions(conn, get_user(conn, username)?.user_id)
}

/// Grants or removes the administrator role.
pub fn set_admin(conn: &Conn, username: &str, is_admin: bool) -> Result<(), Error> {
    update(conn, username, "is_admin = ?2", &is_admin)
}

/// Disables (cannot authenticate; sessions end) or re-enables a user.
pub fn set_disabled(conn: &Conn, username: &str, disabled: bool) -> Result<(), Error> {
    update(conn, username, "disabled = ?2", &disabled)?;
    if disabled {
        super::sessions::delete_user_sessions(conn, get_user(conn, username)?.user_id)?;
    }
    Ok(())
}

/// Deletes a user with their sessions, tokens and memberships; returns the user's id. Their
/// experiment grants belong to `permissions` (`permissions::delete_user_grants`): delete
/// them in the same transaction.
pub fn delete_user(conn: &Conn, username: &str) -> Result<i64, Error> {
    let user = get_user(conn, username)?;
    conn.execute("DELETE FROM users WHERE user_id = ?1", [user.user_id])?;
    Ok(user.user_id)
}

fn update(
    conn: &Conn,
    username: &str,
    set: &str,
    value: &dyn crate::db::ToValue,
) -> Result<(), Error> {
    let sql = format!("UPDATE users SET {set} WHERE username = ?1");
    match conn.execute(&sql, crate::db::params![username, value])? {
        0 => Err(not_found(username)),
        _ => Ok(()),
    }
}

/// Whether any enabled administrator exists.
pub(crate) fn admin_exists(conn: &Conn) -> Result<bool, Error> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM users WHERE is_admin = 1 AND disabled = 0)",
        [],
        |r| r.get(0),
    )?)
}

/// Usernames of every enabled administrator (named as grantors after owners).
pub fn admin_usernames(conn: &Conn) -> Result<Vec<String>, Error> {
    let mut stmt = conn.prepare(
        "SELECT username FROM users WHERE is_admin = 1 AND disabled = 0 ORDER BY username",
    )?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The name of user `user_id` when the account exists and is enabled.
pub(crate) fn enabled_name(conn: &Conn, user_id: i64) -> Result<Option<String>, Error> {
    Ok(conn
        .prepare_cached("SELECT username FROM users WHERE user_id = ?1 AND disabled = 0")?
        .query_row([user_id], |r| r.get(0))
        .optional()?)
}

/// Whether `username` is an existing, enabled account.
pub(crate) fn is_enabled(conn: &Conn, username: &str) -> Result<bool, Error> {
    Ok(login_row(conn, username)?.is_some_and(|(_, _, disabled)| !disabled))
}

/// What a password check needs of a user: id, PHC hash (none for proxy users) and
/// whether the account is disabled. `None` for an unknown username.
pub(crate) fn login_row(
    conn: &Conn,
    username: &str,
) -> Result<Option<(i64, Option<String>, bool)>, Error> {
    Ok(conn
        .prepare_cached("SELECT user_id, password_hash, disabled FROM users WHERE username = ?1")?
        .query_row([username], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?)
}
