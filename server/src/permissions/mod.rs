//! Who may do what to which experiment: levels, path rules, explicit grants, and the checks
//! every route goes through.
//!
//! Offers the checks `require_experiment` / `require_run` (404 for unknown ids, 403 below
//! the level), the create and rename rules, the SQL filter of lists (`readable_sql`), an
//! experiment's grants ([`set_grant`], [`revoke_grant`], and their listing), a user as a
//! caller ([`caller_for`]) and [`DEFAULT_EXPERIMENT`]. The path rules and the effective
//! level's computation (`rules`, `levels`) are its own; grant rows go through
//! `crate::grants`.

mod access;
mod check;
mod grants;
mod levels;
mod principals;
mod readable;
mod rules;
#[cfg(test)]
mod tests;

pub(crate) use access::{implicit_access, list_grants, positive_grants, search_principals};
pub(crate) use check::{level_name, may_create, require_experiment, require_rename, require_run};
pub(crate) use grants::{
    delete_user_grants, grant_creator, level_from_db, level_to_db, principal_id,
};
pub use grants::{revoke_grant, set_grant};
pub use principals::caller_for;
pub(crate) use principals::experiment_level;
pub(crate) use readable::{readable_sql, ReadableSql};
pub(crate) use rules::path_owner;
pub use rules::DEFAULT_EXPERIMENT;
