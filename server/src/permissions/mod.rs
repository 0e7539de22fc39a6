//! Who may do what to which experiment: levels, path rules, explicit grants, and the checks
//! every route goes through.

mod grants;

pub use grants::{level_from_db, level_to_db, principal_id, revoke_grant, set_grant};
