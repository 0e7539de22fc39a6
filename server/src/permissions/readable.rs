//! The SQL condition that restricts experiment queries to those a caller may read, so lists,
//! searches, counts and page tokens never see anything else. It encodes the same rules as
//! [`super::rules::combine`]; a unit test checks that both agree.

use crate::db::Value;

use super::rules::{DEFAULT_EXPERIMENT, SHARED_PREFIX, USERS_PREFIX};
use crate::auth::Caller;
use crate::store::sql::{json_int_list, Dialect};

/// A boolean SQL expression over the experiment id column `id_col` and name column
/// `name_col`, with the values it binds (in order, for `?` placeholders).
#[derive(Debug, Clone)]
pub struct ReadableSql {
    /// The condition, e.g. `(... OR ...)`.
    pub sql: String,
    /// Its bound values.
    pub params: Vec<Value>,
}

/// Condition "the caller may read this experiment" over the given columns.
pub fn readable_sql(d: Dialect, caller: &Caller, id_col: &str, name_col: &str) -> ReadableSql {
    if caller.is_admin {
        return ReadableSql {
            sql: "1 = 1".into(),
            params: Vec::new(),
        };
    }
    let own_prefix = format!("{USERS_PREFIX}{}/", caller.username);
    let groups = serde_json::to_string(&caller.group_ids).unwrap_or_else(|_| "[]".into());
    let groups_in = json_int_list(d, "?");
    let sql = format!(
        "({id_col} IN (SELECT g.experiment_id FROM experiment_grants g
                        WHERE g.level > 0
                          AND ((g.principal_kind = 'user' AND g.principal_id = ?)
                            OR (g.principal_kind = 'group'
                                AND g.principal_id IN {groups_in})))
          OR substr({name_col}, 1, ?) = ?
          OR (({id_col} = {DEFAULT_EXPERIMENT} OR substr({name_col}, 1, ?) = ?)
              AND NOT EXISTS (SELECT 1 FROM experiment_grants b
                               WHERE b.experiment_id = {id_col} AND b.principal_kind = 'user'
                                 AND b.principal_id = ? AND b.level = 0)))"
    );
    let len = |s: &str| Value::Integer(s.chars().count() as i64);
    let params = vec![
        Value::Integer(caller.user_id),
        Value::Text(groups),
        len(&own_prefix),
        Value::Text(own_prefix.clone()),
        len(SHARED_PREFIX),
        Value::Text(SHARED_PREFIX.into()),
        Value::Integer(caller.user_id),
    ];
    ReadableSql { sql, params }
}
