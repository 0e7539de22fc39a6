//! Key/value facts about the store itself (the `meta` table), e.g. `demo_loaded`.

use crate::db::{Conn, OptionalExtension};

use crate::Error;

/// The value of `key`, if set.
pub(crate) fn get(conn: &Conn, key: &str) -> Result<Option<String>, Error> {
    Ok(conn
        .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?)
}

/// Sets `key` to `value`.
pub(crate) fn set(conn: &Conn, key: &str, value: &str) -> Result<(), Error> {
    conn.prepare_cached(
        "INSERT INTO meta (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )?
    .execute([key, value])?;
    Ok(())
}
