//! A run's tags, written by run creation, run updates and logging alike: upserts that keep
//! the run's name in sync with the `mlflow.runName` tag. (Lifecycle checks are the
//! caller's.) It depends on no other tracking module, so `runs` and `log_batch` both use
//! it without importing each other.

use std::collections::HashMap;

use crate::db::{params, Conn};

use super::columns::{note_keys, ColumnKind};
use super::validation::{truncate, validate_key, MAX_TAG_VALUE_LENGTH};
use crate::db::sql::{json_array, json_pairs};
use crate::Error;

/// The tag that mirrors a run's name.
pub(crate) const RUN_NAME_TAG: &str = "mlflow.runName";

/// Upserts tags of a run; setting `mlflow.runName` renames the run. `path` prefixes field
/// names in errors: `tags` gives `tags[i].key`, anything else names the single field `key`.
/// A key given twice keeps its last value. One statement writes them all and one or two
/// note their column keys, whatever their number (each statement is a round trip on
/// PostgreSQL).
pub(crate) fn set_tags(
    conn: &Conn,
    run_id: &str,
    tags: &[(String, String)],
    path: &str,
) -> Result<(), Error> {
    // Each key once, with its last value, in order of first appearance (one upsert may not
    // touch a row twice on PostgreSQL).
    let mut rows: Vec<[String; 2]> = Vec::with_capacity(tags.len());
    let mut at: HashMap<&str, usize> = HashMap::new();
    for (i, (key, value)) in tags.iter().enumerate() {
        let name = if path == "tags" {
            format!("tags[{i}].key")
        } else {
            "key".to_string()
        };
        validate_key(&name, key)?;
        let value = truncate(value.clone(), MAX_TAG_VALUE_LENGTH);
        match at.get(key.as_str()) {
            Some(&j) => rows[j][1] = value,
            None => {
                at.insert(key, rows.len());
                rows.push([key.clone(), value]);
            }
        }
    }
    if rows.is_empty() {
        return Ok(());
    }
    let d = conn.engine();
    // `WHERE true`: SQLite reads `ON` after `INSERT ... SELECT ... FROM x` as a join's
    // constraint without it.
    conn.prepare_cached(&format!(
        "INSERT INTO tags (run_uuid, key, value) SELECT ?1, t.a, t.b FROM {} AS t WHERE true
         ON CONFLICT (run_uuid, key) DO UPDATE SET value = excluded.value",
        json_pairs(d, "?2")
    ))?
    .execute(params![run_id, json_array(&rows)?])?;
    let keys: Vec<&str> = rows.iter().map(|[k, _]| k.as_str()).collect();
    note_keys(conn, run_id, ColumnKind::Tag, &keys)?;
    if let Some(&j) = at.get(RUN_NAME_TAG) {
        conn.prepare_cached("UPDATE runs SET name = ?1 WHERE run_uuid = ?2")?
            .execute(params![rows[j][1], run_id])?;
    }
    Ok(())
}

/// Deletes a tag of a run; `false` when the run had no such tag.
pub(crate) fn delete_tag(conn: &Conn, run_id: &str, key: &str) -> Result<bool, Error> {
    let n = conn
        .prepare_cached("DELETE FROM tags WHERE run_uuid = ?1 AND key = ?2")?
        .execute(params![run_id, key])?;
    Ok(n > 0)
}
