//! The registered model versions made from logged models (the registry's `model_versions`
//! rows that name a `model_id`), limited to the registered models a condition admits (the
//! caller's readable ones: `registry::grants::readable_sql`, passed in so that this module
//! does not depend on the registry's code).

use std::collections::HashMap;

use crate::db::Conn;
use crate::db::Value;

use crate::permissions::ReadableSql;
use crate::Error;

/// Column of the registered model's id that `readable` must be written over.
pub(crate) const REGISTERED_MODEL_ID: &str = "rm.registered_model_id";

/// For each of `model_ids` that has any: `(registered model name, version)` pairs, by name
/// then version, of the registered models `readable` (over [`REGISTERED_MODEL_ID`]) admits.
pub(crate) fn of_models(
    conn: &Conn,
    readable: &ReadableSql,
    model_ids: &[String],
) -> Result<HashMap<String, Vec<(String, i64)>>, Error> {
    let mut out: HashMap<String, Vec<(String, i64)>> = HashMap::new();
    for chunk in model_ids.chunks(500) {
        let marks = vec!["?"; chunk.len()].join(",");
        let sql = format!(
            "SELECT mv.model_id, rm.name, mv.version FROM model_versions mv \
             JOIN registered_models rm USING (registered_model_id) \
             WHERE mv.model_id IN ({marks}) AND {} ORDER BY rm.name, mv.version",
            readable.sql
        );
        let mut params: Vec<Value> = chunk.iter().cloned().map(Value::Text).collect();
        params.extend(readable.params.iter().cloned());
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt.query_map(crate::db::params_from_iter(params), |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get(2)?))
        })?;
        for row in rows {
            let (model_id, name, version) = row?;
            out.entry(model_id).or_default().push((name, version));
        }
    }
    Ok(out)
}
