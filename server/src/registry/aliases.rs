//! Aliases of registered models (`champion` → version 3), and `latest`.

use crate::db::{params, Conn, OptionalExtension};

use super::model::ModelVersion;
use super::{models, validate, versions};
use crate::Error;

/// Points `alias` of `name` at `version` (which must exist), replacing its old target.
pub(crate) fn set(conn: &Conn, name: &str, alias: &str, version: i64) -> Result<(), Error> {
    validate::model_name("name", name)?;
    validate::settable_alias(alias)?;
    let id = models::id_of(conn, name)?;
    versions::get(conn, name, version)?;
    conn.prepare_cached(
        "INSERT INTO registered_model_aliases (registered_model_id, alias, version) \
         VALUES (?1, ?2, ?3) \
         ON CONFLICT (registered_model_id, alias) DO UPDATE SET version = excluded.version",
    )?
    .execute(params![id, alias, version])?;
    Ok(())
}

/// Removes `alias` of `name` (a missing alias is no error, as in MLflow).
pub(crate) fn delete(conn: &Conn, name: &str, alias: &str) -> Result<(), Error> {
    validate::model_name("name", name)?;
    validate::alias(alias)?;
    let id = models::id_of(conn, name)?;
    conn.prepare_cached(
        "DELETE FROM registered_model_aliases WHERE registered_model_id = ?1 AND alias = ?2",
    )?
    .execute(params![id, alias])?;
    Ok(())
}

/// The version `alias` of `name` names; `latest` (any case) is the highest version.
pub(crate) fn version_of(conn: &Conn, name: &str, alias: &str) -> Result<ModelVersion, Error> {
    validate::model_name("name", name)?;
    validate::alias(alias)?;
    let id = models::id_of(conn, name)?;
    if alias.eq_ignore_ascii_case("latest") {
        let latest: Option<i64> = conn
            .prepare_cached(
                "SELECT max(version) FROM model_versions WHERE registered_model_id = ?1",
            )?
            .query_row([id], |r| r.get(0))?;
        let version = latest.ok_or_else(|| {
            Error::NotFound(format!("Latest version not found for model {name}."))
        })?;
        return versions::get(conn, name, version);
    }
    let version: i64 = conn
        .prepare_cached(
            "SELECT version FROM registered_model_aliases \
             WHERE registered_model_id = ?1 AND alias = ?2",
        )?
        .query_row(params![id, alias], |r| r.get(0))
        .optional()?
        .ok_or_else(|| {
            Error::InvalidParameter(format!("Registered model alias {alias} not found."))
        })?;
    versions::get(conn, name, version)
}
