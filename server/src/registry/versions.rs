//! Model versions: register, read, describe, move between stages, delete, and their tags.

use crate::db::{params, Conn, OptionalExtension, Row};

use super::model::{ModelVersion, Stage};
use super::{ids, validate};
use crate::util::now_ms;
use crate::Error;

/// The columns [`from_row`] reads, for `model_versions v` joined to `registered_models r`.
pub(crate) const COLUMNS: &str = "r.name, v.version, v.source, v.storage_location, v.run_id, \
     v.model_id, v.run_link, v.status, v.stage, v.description, v.user_id, v.creation_time, \
     v.last_updated_time, v.registered_model_id";

/// A version's row, without tags or aliases, and its registered model's id.
pub(crate) fn from_row(r: &Row<'_>) -> crate::db::Result<(i64, ModelVersion)> {
    let stage: String = r.get(8)?;
    let mv = ModelVersion {
        name: r.get(0)?,
        version: r.get(1)?,
        source: r.get(2)?,
        storage_location: r.get(3)?,
        run_id: r.get(4)?,
        model_id: r.get(5)?,
        run_link: r.get(6)?,
        status: r.get(7)?,
        stage: Stage::parse(&stage).unwrap_or(Stage::None),
        description: r.get(9)?,
        user_id: r.get(10)?,
        creation_time: r.get(11)?,
        last_updated_time: r.get(12)?,
        tags: Vec::new(),
        aliases: Vec::new(),
    };
    Ok((r.get(13)?, mv))
}

/// MLflow's 404 for a model version.
pub(crate) fn not_found(name: &str, version: i64) -> Error {
    Error::NotFound(format!(
        "Model Version (name={name}, version={version}) not found"
    ))
}

/// What a new version is made of (the source already checked and resolved, see
/// `registry::source`).
#[derive(Debug, Clone, Default)]
pub(crate) struct NewVersion {
    /// Source as registered.
    pub source: String,
    /// Where its files are.
    pub storage_location: String,
    /// The run it came from.
    pub run_id: Option<String>,
    /// The logged model it came from.
    pub model_id: Option<String>,
    /// Link to the run.
    pub run_link: String,
    /// Description.
    pub description: String,
    /// Tags.
    pub tags: Vec<(String, String)>,
    /// Username of who registers it.
    pub user_id: String,
}

/// Registers the next version of `name`.
pub(crate) fn create(conn: &Conn, name: &str, new: &NewVersion) -> Result<ModelVersion, Error> {
    validate::model_name("name", name)?;
    validate::description(&new.description)?;
    for (k, v) in &new.tags {
        validate::tag(k, v)?;
    }
    let id = ids::id_of(conn, name)?;
    let now = now_ms();
    let version: i64 = conn
        .prepare_cached(
            "UPDATE registered_models SET last_version = last_version + 1, last_updated_time = ?2 \
             WHERE registered_model_id = ?1 RETURNING last_version",
        )?
        .query_row(params![id, now], |r| r.get(0))?;
    conn.prepare_cached(
        "INSERT INTO model_versions (registered_model_id, version, source, storage_location, \
         run_id, model_id, run_link, description, user_id, creation_time, last_updated_time) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
    )?
    .execute(params![
        id,
        version,
        new.source,
        new.storage_location,
        new.run_id,
        new.model_id,
        new.run_link,
        new.description,
        new.user_id,
        now
    ])?;
    for (k, v) in &new.tags {
        set_tag_of(conn, id, version, k, v)?;
    }
    get(conn, name, version)
}

/// The id of `name` and the version's row (404 for either missing).
fn row(conn: &Conn, name: &str, version: i64) -> Result<(i64, ModelVersion), Error> {
    validate::model_name("name", name)?;
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM model_versions v \
           JOIN registered_models r ON r.registered_model_id = v.registered_model_id \
          WHERE r.name = ?1 AND v.version = ?2"
    ))?
    .query_row(params![name, version], from_row)
    .optional()?
    .ok_or_else(|| not_found(name, version))
}

/// Version `version` of `name` with its tags and aliases.
pub(crate) fn get(conn: &Conn, name: &str, version: i64) -> Result<ModelVersion, Error> {
    let (id, mv) = row(conn, name, version)?;
    load(conn, id, mv, true)
}

/// Fills a version's tags (and its aliases when `aliases`).
pub(crate) fn load(
    conn: &Conn,
    id: i64,
    mut mv: ModelVersion,
    aliases: bool,
) -> Result<ModelVersion, Error> {
    mv.tags = conn
        .prepare_cached(
            "SELECT key, value FROM model_version_tags \
             WHERE registered_model_id = ?1 AND version = ?2 ORDER BY key",
        )?
        .query_map(params![id, mv.version], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    if aliases {
        mv.aliases = conn
            .prepare_cached(
                "SELECT alias FROM registered_model_aliases \
                 WHERE registered_model_id = ?1 AND version = ?2 ORDER BY alias",
            )?
            .query_map(params![id, mv.version], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
    }
    Ok(mv)
}

/// Every version of registered model `id`, newest first, with tags and
/// aliases.
pub(crate) fn all_of(conn: &Conn, id: i64) -> Result<Vec<ModelVersion>, Error> {
    let rows: Vec<(i64, ModelVersion)> = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM model_versions v \
               JOIN registered_models r ON r.registered_model_id = v.registered_model_id \
              WHERE v.registered_model_id = ?1 ORDER BY v.version DESC"
        ))?
        .query_map([id], from_row)?
        .collect::<Result<_, _>>()?;
    rows.into_iter()
        .map(|(id, mv)| load(conn, id, mv, true))
        .collect()
}

/// The latest version of each stage of registered model `id`, by version, with tags (no
/// aliases: MLflow's `latest_versions`).
pub(crate) fn latest_per_stage(conn: &Conn, id: i64) -> Result<Vec<ModelVersion>, Error> {
    let rows: Vec<(i64, ModelVersion)> = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM model_versions v \
               JOIN registered_models r ON r.registered_model_id = v.registered_model_id \
              WHERE v.registered_model_id = ?1 \
                AND v.version = (SELECT max(w.version) FROM model_versions w \
                                  WHERE w.registered_model_id = v.registered_model_id \
                                    AND w.stage = v.stage) \
              ORDER BY v.version"
        ))?
        .query_map([id], from_row)?
        .collect::<Result<_, _>>()?;
    rows.into_iter()
        .map(|(id, mv)| load(conn, id, mv, false))
        .collect()
}

/// The latest version per stage of `name`, limited to `stages` (all when empty), with
/// their aliases (`get-latest-versions`).
pub(crate) fn latest_versions(
    conn: &Conn,
    name: &str,
    stages: &[Stage],
) -> Result<Vec<ModelVersion>, Error> {
    let id = ids::id_of(conn, name)?;
    let mut out = Vec::new();
    for mv in latest_per_stage(conn, id)? {
        if stages.is_empty() || stages.contains(&mv.stage) {
            out.push(load(conn, id, mv, true)?);
        }
    }
    Ok(out)
}

/// Sets (or with `None` clears) the description of a version.
pub(crate) fn set_description(
    conn: &Conn,
    name: &str,
    version: i64,
    description: Option<&str>,
) -> Result<ModelVersion, Error> {
    let (id, _) = row(conn, name, version)?;
    let text = description.unwrap_or("");
    validate::description(text)?;
    conn.prepare_cached(
        "UPDATE model_versions SET description = ?3, last_updated_time = ?4 \
         WHERE registered_model_id = ?1 AND version = ?2",
    )?
    .execute(params![id, version, text, now_ms()])?;
    get(conn, name, version)
}

/// Moves a version to `stage`; with `archive_existing`, the other versions in that stage
/// move to Archived (only for Staging and Production).
pub(crate) fn transition(
    conn: &Conn,
    name: &str,
    version: i64,
    stage: Stage,
    archive_existing: bool,
) -> Result<ModelVersion, Error> {
    if archive_existing && !stage.is_active() {
        // MLflow answers this with a 500 INTERNAL_ERROR, which clients retry: a 400 here.
        return Err(Error::InvalidParameter(format!(
            "Model version transition cannot archive existing model versions because '{}' is \
             not an Active stage. Valid stages are ['Staging', 'Production']",
            stage.as_str()
        )));
    }
    let (id, _) = row(conn, name, version)?;
    let now = now_ms();
    if archive_existing {
        conn.prepare_cached(
            "UPDATE model_versions SET stage = 'Archived', last_updated_time = ?4 \
             WHERE registered_model_id = ?1 AND version <> ?2 AND stage = ?3",
        )?
        .execute(params![id, version, stage.as_str(), now])?;
    }
    conn.prepare_cached(
        "UPDATE model_versions SET stage = ?3, last_updated_time = ?4 \
         WHERE registered_model_id = ?1 AND version = ?2",
    )?
    .execute(params![id, version, stage.as_str(), now])?;
    ids::touch(conn, id, now)?;
    get(conn, name, version)
}

/// Deletes a version with its tags and aliases; its number is never given again.
pub(crate) fn delete(conn: &Conn, name: &str, version: i64) -> Result<(), Error> {
    let (id, _) = row(conn, name, version)?;
    conn.prepare_cached(
        "DELETE FROM model_versions WHERE registered_model_id = ?1 AND version = ?2",
    )?
    .execute(params![id, version])?;
    ids::touch(conn, id, now_ms())
}

/// Where a version's files are (`get-download-uri`).
pub(crate) fn download_uri(conn: &Conn, name: &str, version: i64) -> Result<String, Error> {
    Ok(row(conn, name, version)?.1.storage_location)
}

fn set_tag_of(conn: &Conn, id: i64, version: i64, key: &str, value: &str) -> Result<(), Error> {
    conn.prepare_cached(
        "INSERT INTO model_version_tags (registered_model_id, version, key, value) \
         VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (registered_model_id, version, key) DO UPDATE SET value = excluded.value",
    )?
    .execute(params![id, version, key, value])?;
    Ok(())
}

/// Sets tag `key` of a version.
pub(crate) fn set_tag(
    conn: &Conn,
    name: &str,
    version: i64,
    key: &str,
    value: &str,
) -> Result<(), Error> {
    validate::tag(key, value)?;
    let (id, _) = row(conn, name, version)?;
    set_tag_of(conn, id, version, key, value)
}

/// Deletes tag `key` of a version (a missing tag is no error, as in MLflow).
pub(crate) fn delete_tag(conn: &Conn, name: &str, version: i64, key: &str) -> Result<(), Error> {
    crate::tracking::validation::validate_key("key", key)?;
    let (id, _) = row(conn, name, version)?;
    conn.prepare_cached(
        "DELETE FROM model_version_tags \
         WHERE registered_model_id = ?1 AND version = ?2 AND key = ?3",
    )?
    .execute(params![id, version, key])?;
    Ok(())
}

/// How many versions registered model `id` has, and the highest version number.
pub(crate) fn count_and_latest(conn: &Conn, id: i64) -> Result<(u64, Option<i64>), Error> {
    Ok(conn
        .prepare_cached(
            "SELECT count(*), max(version) FROM model_versions WHERE registered_model_id = ?1",
        )?
        .query_row([id], |r| Ok((r.get::<_, i64>(0)? as u64, r.get(1)?)))?)
}
