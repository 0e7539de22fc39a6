//! First start: make sure an administrator exists.

use crate::db::Behavior;

use super::secret::random_alphanumeric;
use super::users;
use crate::{Error, Store};

/// Username of the administrator created on first start.
pub(crate) const ADMIN_USERNAME: &str = "admin";

/// What [`ensure_admin`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Bootstrap {
    /// An enabled administrator already existed; nothing changed.
    AdminExists,
    /// Created (or restored) `admin` with the password from the environment.
    CreatedWithGivenPassword,
    /// Created (or restored) `admin` with this random password, to print once.
    CreatedWithRandomPassword(String),
}

/// Creates user `admin` (administrator) unless an enabled administrator exists. The
/// password is `given` (from `RUNLENS_ADMIN_PASSWORD`) or a random 24-character one. An
/// existing non-admin or disabled `admin` account is promoted, enabled and given that
/// password: whoever starts the server owns it.
pub fn ensure_admin(store: &Store, given: Option<&str>) -> Result<Bootstrap, Error> {
    store.blocking(|conn| {
        // IMMEDIATE: take the write lock before reading, so several servers starting on one
        // new data dir wait for each other (busy timeout) instead of failing the upgrade
        // from a read to a write with "database is locked"; the check is inside, so only
        // the first of them creates the account.
        let tx = conn.transaction(Behavior::Immediate)?;
        if users::admin_exists(&tx)? {
            return Ok(Bootstrap::AdminExists);
        }
        let random = given.is_none().then(|| random_alphanumeric(24));
        let password = given.or(random.as_deref()).unwrap_or_default();
        if users::find_user_id(&tx, ADMIN_USERNAME)?.is_some() {
            users::set_password(&tx, ADMIN_USERNAME, password)?;
            users::set_admin(&tx, ADMIN_USERNAME, true)?;
            users::set_disabled(&tx, ADMIN_USERNAME, false)?;
        } else {
            users::create_user(&tx, ADMIN_USERNAME, Some(password), true)?;
        }
        tx.commit()?;
        Ok(match random {
            Some(p) => Bootstrap::CreatedWithRandomPassword(p),
            None => Bootstrap::CreatedWithGivenPassword,
        })
    })
}

/// The text printed on the terminal (stderr) when a random password was made.
pub fn announce_random_password(password: &str) -> String {
    format!(
        "\n\
         ==================================================================\n\
         runlens created the administrator account for this data directory.\n\
         \n    username: {ADMIN_USERNAME}\n    password: {password}\n\n\
         This password is shown only this once. Sign in and keep it safe,\n\
         or set a new one: echo NEW | runlens user passwd {ADMIN_USERNAME} --password-stdin\n\
         (Set RUNLENS_ADMIN_PASSWORD before the first start to choose it.)\n\
         ==================================================================\n"
    )
}

/// Creates administrator `username` without a password and returns a fresh API token for
/// it (tests and scripts authenticate with `Authorization: Bearer <token>`).
pub fn create_admin_with_token(store: &Store, username: &str) -> Result<String, Error> {
    store.blocking(|conn| {
        let user_id = users::create_user(conn, username, None, true)?;
        Ok(super::tokens::create_token(conn, user_id, "tests")?.token)
    })
}
