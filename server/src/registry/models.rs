//! Registered models: create, read, describe, rename, delete, and their tags.

use crate::db::{params, Conn, OptionalExtension, Row};

pub(crate) use super::ids::{find_id, id_of, not_found};
use super::model::RegisteredModel;
use super::{validate, versions};
use crate::util::now_ms;
use crate::Error;

/// The columns [`from_row`] reads, for `registered_models r`.
pub(crate) const COLUMNS: &str =
    "r.registered_model_id, r.name, r.description, r.creator, r.creation_time, r.last_updated_time";

/// A registered model's row, without tags, aliases or versions.
pub(crate) fn from_row(r: &Row<'_>) -> crate::db::Result<RegisteredModel> {
    Ok(RegisteredModel {
        id: r.get(0)?,
        name: r.get(1)?,
        description: r.get(2)?,
        creator: r.get(3)?,
        creation_time: r.get(4)?,
        last_updated_time: r.get(5)?,
        tags: Vec::new(),
        aliases: Vec::new(),
        latest_versions: Vec::new(),
    })
}

/// Creates registered model `name` by `creator` (a username); returns its id. A taken
/// name is MLflow's RESOURCE_ALREADY_EXISTS.
pub(crate) fn create(
    conn: &Conn,
    name: &str,
    description: Option<&str>,
    tags: &[(String, String)],
    creator: &str,
) -> Result<i64, Error> {
    validate::model_name("name", name)?;
    if let Some(d) = description {
        validate::description(d)?;
    }
    for (k, v) in tags {
        validate::tag(k, v)?;
    }
    if find_id(conn, name)?.is_some() {
        return Err(already_exists(name));
    }
    let now = now_ms();
    let id: i64 = conn
        .prepare_cached(
            "INSERT INTO registered_models (name, description, creator, creation_time, \
             last_updated_time) VALUES (?1, ?2, ?3, ?4, ?4) RETURNING registered_model_id",
        )?
        .query_row(params![name, description, creator, now], |r| r.get(0))?;
    for (k, v) in tags {
        set_tag_of(conn, id, k, v)?;
    }
    Ok(id)
}

fn already_exists(name: &str) -> Error {
    Error::AlreadyExists(format!("Registered Model (name={name}) already exists."))
}

/// Registered model `name` with its tags, aliases and latest version per stage.
pub(crate) fn get(conn: &Conn, name: &str) -> Result<RegisteredModel, Error> {
    validate::model_name("name", name)?;
    let m = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM registered_models r WHERE r.name = ?1"
        ))?
        .query_row([name], from_row)
        .optional()?
        .ok_or_else(|| not_found(name))?;
    load(conn, m)
}

/// Fills a model's tags, aliases and latest versions.
pub(crate) fn load(conn: &Conn, mut m: RegisteredModel) -> Result<RegisteredModel, Error> {
    m.tags = conn
        .prepare_cached(
            "SELECT key, value FROM registered_model_tags WHERE registered_model_id = ?1 \
             ORDER BY key",
        )?
        .query_map([m.id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    m.aliases = conn
        .prepare_cached(
            "SELECT alias, version FROM registered_model_aliases WHERE registered_model_id = ?1 \
             ORDER BY alias",
        )?
        .query_map([m.id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    m.latest_versions = versions::latest_per_stage(conn, m.id)?;
    Ok(m)
}

/// Sets (or with `None` clears) the description of `name`.
pub(crate) fn set_description(
    conn: &Conn,
    name: &str,
    description: Option<&str>,
) -> Result<RegisteredModel, Error> {
    if let Some(d) = description {
        validate::description(d)?;
    }
    let id = id_of(conn, name)?;
    conn.prepare_cached(
        "UPDATE registered_models SET description = ?2, last_updated_time = ?3 \
         WHERE registered_model_id = ?1",
    )?
    .execute(params![id, description, now_ms()])?;
    get(conn, name)
}

/// Renames `name` to `new_name`; its versions, tags, aliases and grants go along.
pub(crate) fn rename(conn: &Conn, name: &str, new_name: &str) -> Result<RegisteredModel, Error> {
    validate::model_name("new_name", new_name)?;
    let id = id_of(conn, name)?;
    if new_name != name && find_id(conn, new_name)?.is_some() {
        return Err(already_exists(new_name));
    }
    let now = now_ms();
    conn.prepare_cached(
        "UPDATE registered_models SET name = ?2, last_updated_time = ?3 \
         WHERE registered_model_id = ?1",
    )?
    .execute(params![id, new_name, now])?;
    conn.prepare_cached(
        "UPDATE model_versions SET last_updated_time = ?2 WHERE registered_model_id = ?1",
    )?
    .execute(params![id, now])?;
    get(conn, new_name)
}

/// Deletes `name` with its versions, tags, aliases and grants.
pub(crate) fn delete(conn: &Conn, name: &str) -> Result<(), Error> {
    let id = id_of(conn, name)?;
    conn.prepare_cached("DELETE FROM registered_models WHERE registered_model_id = ?1")?
        .execute([id])?;
    Ok(())
}

fn set_tag_of(conn: &Conn, id: i64, key: &str, value: &str) -> Result<(), Error> {
    conn.prepare_cached(
        "INSERT INTO registered_model_tags (registered_model_id, key, value) \
         VALUES (?1, ?2, ?3) \
         ON CONFLICT (registered_model_id, key) DO UPDATE SET value = excluded.value",
    )?
    .execute(params![id, key, value])?;
    Ok(())
}

/// Sets tag `key` of `name`.
pub(crate) fn set_tag(conn: &Conn, name: &str, key: &str, value: &str) -> Result<(), Error> {
    validate::model_name("name", name)?;
    validate::tag(key, value)?;
    let id = id_of(conn, name)?;
    set_tag_of(conn, id, key, value)
}

/// Deletes tag `key` of `name` (a missing tag is no error, as in MLflow).
pub(crate) fn delete_tag(conn: &Conn, name: &str, key: &str) -> Result<(), Error> {
    validate::model_name("name", name)?;
    crate::tracking::validation::validate_key("key", key)?;
    let id = id_of(conn, name)?;
    conn.prepare_cached(
        "DELETE FROM registered_model_tags WHERE registered_model_id = ?1 AND key = ?2",
    )?
    .execute(params![id, key])?;
    Ok(())
}

/// Registered models that `readable` admits (over `r.registered_model_id`) whose name
/// contains `needle` (case-insensitive, Unicode-aware; empty: all), by name, skipping
/// `offset`, at most `limit`, each with its tags, aliases and latest versions.
pub(crate) fn list(
    conn: &Conn,
    readable: &crate::permissions::ReadableSql,
    needle: &str,
    offset: usize,
    limit: usize,
) -> Result<Vec<RegisteredModel>, Error> {
    let needle = needle.to_lowercase();
    let sql = format!(
        "SELECT {COLUMNS} FROM registered_models r WHERE {} ORDER BY r.name",
        readable.sql
    );
    let all: Vec<RegisteredModel> = conn
        .prepare_cached(&sql)?
        .query_map(
            crate::db::params_from_iter(readable.params.iter()),
            from_row,
        )?
        .collect::<Result<_, _>>()?;
    all.into_iter()
        .filter(|m| m.name.to_lowercase().contains(&needle))
        .skip(offset)
        .take(limit)
        .map(|m| load(conn, m))
        .collect()
}
