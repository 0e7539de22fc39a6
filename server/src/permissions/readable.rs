//! The SQL condition that restricts experiment queries to those a caller may read, so lists,
//! searches, counts and page tokens never see anything else. It encodes the same rules as
//! [`super::rules::combine`]; a unit test checks that both agree.

use crate::db::{Engine, Value};

use super::rules::{DEFAULT_EXPERIMENT, SHARED_PREFIX, USERS_PREFIX};
use crate::auth::Caller;
pub(crate) use crate::grants::ReadableSql;
use crate::grants::{self, EXPERIMENT};

/// Condition "the caller may read this experiment" over the given columns.
pub(crate) fn readable_sql(
    d: Engine,
    caller: &Caller,
    id_col: &str,
    name_col: &str,
) -> ReadableSql {
    if caller.is_admin {
        return ReadableSql::all();
    }
    let own_prefix = format!("{USERS_PREFIX}{}/", caller.username);
    let granted = grants::granted_ids(d, EXPERIMENT, "?", "?", 1);
    let blocked = grants::blocked_sql(EXPERIMENT, id_col);
    let sql = format!(
        "({id_col} IN {granted}
          OR substr({name_col}, 1, ?) = ?
          OR (({id_col} = {DEFAULT_EXPERIMENT} OR substr({name_col}, 1, ?) = ?)
              AND NOT {blocked}))"
    );
    let len = |s: &str| Value::Integer(s.chars().count() as i64);
    let mut params = grants::caller_params(caller);
    params.extend([
        len(&own_prefix),
        Value::Text(own_prefix.clone()),
        len(SHARED_PREFIX),
        Value::Text(SHARED_PREFIX.into()),
        Value::Integer(caller.user_id),
    ]);
    ReadableSql { sql, params }
}
