//! Registered models by name: the id lookup and the change stamp that both models and
//! versions use (a leaf, so `models` and `versions` need not import each other).

use crate::db::{params, Conn, OptionalExtension};

use crate::Error;

/// MLflow's 404 for a registered model.
pub(crate) fn not_found(name: &str) -> Error {
    Error::NotFound(format!("Registered Model with name={name} not found"))
}

/// The id of registered model `name`, if it exists.
pub(crate) fn find_id(conn: &Conn, name: &str) -> Result<Option<i64>, Error> {
    Ok(conn
        .prepare_cached("SELECT registered_model_id FROM registered_models WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()?)
}

/// The id of registered model `name`; 404 in MLflow's words when there is none.
pub(crate) fn id_of(conn: &Conn, name: &str) -> Result<i64, Error> {
    find_id(conn, name)?.ok_or_else(|| not_found(name))
}

/// Marks `id` changed now.
pub(crate) fn touch(conn: &Conn, id: i64, now: i64) -> Result<(), Error> {
    conn.prepare_cached(
        "UPDATE registered_models SET last_updated_time = ?2 WHERE registered_model_id = ?1",
    )?
    .execute(params![id, now])?;
    Ok(())
}
