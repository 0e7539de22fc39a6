//! A run's tags, written by run creation, run updates and logging alike: upserts that keep
//! the run's name in sync with the `mlflow.runName` tag. (Lifecycle checks are the
//! caller's.) It depends on no other tracking module, so `runs` and `log_batch` both use
//! it without importing each other.

use crate::db::{params, Conn};

use super::columns::{note_key, ColumnKind};
use super::validation::{truncate, validate_key, MAX_TAG_VALUE_LENGTH};
use crate::Error;

/// The tag that mirrors a run's name.
pub const RUN_NAME_TAG: &str = "mlflow.runName";

/// Upserts tags of a run; setting `mlflow.runName` renames the run. `path` prefixes field
/// names in errors: `tags` gives `tags[i].key`, anything else names the single field `key`.
pub fn set_tags(
    conn: &Conn,
    run_id: &str,
    tags: &[(String, String)],
    path: &str,
) -> Result<(), Error> {
    let mut upsert = conn.prepare_cached(
        "INSERT INTO tags (run_uuid, key, value) VALUES (?1, ?2, ?3) \
         ON CONFLICT (run_uuid, key) DO UPDATE SET value = excluded.value",
    )?;
    for (i, (key, value)) in tags.iter().enumerate() {
        let name = if path == "tags" {
            format!("tags[{i}].key")
        } else {
            "key".to_string()
        };
        validate_key(&name, key)?;
        let value = truncate(value.clone(), MAX_TAG_VALUE_LENGTH);
        upsert.execute(params![run_id, key, value])?;
        note_key(conn, run_id, ColumnKind::Tag, key)?;
        if key == RUN_NAME_TAG {
            conn.prepare_cached("UPDATE runs SET name = ?1 WHERE run_uuid = ?2")?
                .execute(params![value, run_id])?;
        }
    }
    Ok(())
}

/// Deletes a tag of a run; `false` when the run had no such tag.
pub fn delete_tag(conn: &Conn, run_id: &str, key: &str) -> Result<bool, Error> {
    let n = conn
        .prepare_cached("DELETE FROM tags WHERE run_uuid = ?1 AND key = ?2")?
        .execute(params![run_id, key])?;
    Ok(n > 0)
}
