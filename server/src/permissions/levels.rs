//! How a level is stored in `experiment_grants.level`.

use api_types::Level;

/// The stored integer of a level; `None` (MLflow `NO_PERMISSIONS`) is 0.
pub(crate) fn level_to_db(level: Option<Level>) -> i64 {
    match level {
        None => 0,
        Some(Level::CanRead) => 1,
        Some(Level::CanEdit) => 2,
        Some(Level::CanManage) => 3,
    }
}

/// The level of a stored integer (0 and anything unknown: no permission).
pub(crate) fn level_from_db(n: i64) -> Option<Level> {
    match n {
        1 => Some(Level::CanRead),
        2 => Some(Level::CanEdit),
        3 => Some(Level::CanManage),
        _ => None,
    }
}
