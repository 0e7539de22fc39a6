//! Experiments: create, read, rename, delete/restore (cascading to runs) and tags.

use crate::db::{params, Conn, OptionalExtension, Row};

use super::model::Experiment;
use super::validation::{
    validate_artifact_location, validate_experiment_name, validate_key, validate_length,
    MAX_EXPERIMENT_TAG_VALUE_LENGTH,
};
use crate::util::now_ms;
use crate::Error;

mod location;

pub(crate) use location::append_to_uri_path;

/// Columns read by [`from_row`].
pub(crate) const COLUMNS: &str =
    "experiment_id, name, artifact_location, lifecycle_stage, creation_time, last_update_time";

/// Parses an experiment id as sent on the wire (a decimal string).
pub(crate) fn parse_id(id: &str) -> Result<i64, Error> {
    id.trim()
        .parse::<i64>()
        .map_err(|_| Error::NotFound(format!("No Experiment with id={id} exists")))
}

/// Reads one experiment row (without tags).
pub(crate) fn from_row(r: &Row<'_>) -> crate::db::Result<Experiment> {
    Ok(Experiment {
        experiment_id: r.get(0)?,
        name: r.get(1)?,
        artifact_location: r.get(2)?,
        lifecycle_stage: r.get(3)?,
        creation_time: r.get(4)?,
        last_update_time: r.get(5)?,
        tags: Vec::new(),
    })
}

/// Loads the tags of `exp`.
pub(crate) fn with_tags(conn: &Conn, mut exp: Experiment) -> Result<Experiment, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT key, value FROM experiment_tags WHERE experiment_id = ?1 ORDER BY key",
    )?;
    exp.tags = stmt
        .query_map([exp.experiment_id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(exp)
}

/// Creates an experiment; the name must be unused (deleted experiments included).
pub(crate) fn create(
    conn: &Conn,
    name: &str,
    artifact_location: Option<&str>,
    tags: &[(String, String)],
) -> Result<i64, Error> {
    create_at(conn, name, artifact_location, tags, now_ms())
}

/// [`create`] with the creation time given (ms since the epoch); the demo backdates its
/// experiments.
pub(crate) fn create_at(
    conn: &Conn,
    name: &str,
    artifact_location: Option<&str>,
    tags: &[(String, String)],
    created: i64,
) -> Result<i64, Error> {
    validate_experiment_name(name)?;
    // As MLflow: checked as given, then a relative local path made absolute (against the
    // server's working directory) and its length checked again.
    let artifact_location = match artifact_location.filter(|l| !l.is_empty()) {
        Some(loc) => {
            validate_artifact_location(loc)?;
            if !location::query_is_safe(loc) {
                return Err(Error::InvalidParameter("Invalid query string".into()));
            }
            let resolved = location::resolve_if_local(loc)?;
            validate_artifact_location(&resolved)?;
            Some(resolved)
        }
        None => None,
    };
    for (i, (k, v)) in tags.iter().enumerate() {
        validate_key(&format!("tags[{i}].key"), k)?;
        validate_length("Experiment tag value", v, MAX_EXPERIMENT_TAG_VALUE_LENGTH)?;
    }
    if find_id_by_name(conn, name)?.is_some() {
        return Err(Error::AlreadyExists(format!(
            "Experiment(name={name}) already exists. Error: experiment names must be unique \
             across active and deleted experiments"
        )));
    }
    let id: i64 = conn
        .prepare_cached(
            "INSERT INTO experiments (name, artifact_location, lifecycle_stage, creation_time, \
             last_update_time) VALUES (?1, '', 'active', ?2, ?2) RETURNING experiment_id",
        )?
        .query_row(params![name, created], |r| r.get(0))?;
    let loc = artifact_location.unwrap_or_else(|| format!("mlflow-artifacts:/{id}"));
    conn.prepare_cached("UPDATE experiments SET artifact_location = ?1 WHERE experiment_id = ?2")?
        .execute(params![loc, id])?;
    for (k, v) in tags {
        upsert_tag(conn, id, k, v)?;
    }
    Ok(id)
}

/// The id of the experiment named `name` (deleted ones too), if any.
pub(crate) fn find_id_by_name(conn: &Conn, name: &str) -> Result<Option<i64>, Error> {
    Ok(conn
        .prepare_cached("SELECT experiment_id FROM experiments WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()?)
}

/// The id of the experiment that `key` names: an id (if `key` is a number naming one) or
/// else an exact name (deleted experiments too); `Error::NotFound` otherwise.
pub fn find_id(conn: &Conn, key: &str) -> Result<i64, Error> {
    if let Ok(id) = key.parse::<i64>() {
        let found: Option<i64> = conn
            .prepare_cached("SELECT experiment_id FROM experiments WHERE experiment_id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?;
        if let Some(id) = found {
            return Ok(id);
        }
    }
    find_id_by_name(conn, key)?
        .ok_or_else(|| Error::NotFound(format!("Experiment '{key}' does not exist.")))
}

/// An experiment by id (deleted ones too).
pub(crate) fn get(conn: &Conn, id: i64) -> Result<Experiment, Error> {
    let exp = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM experiments WHERE experiment_id = ?1"
        ))?
        .query_row([id], from_row)
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("No Experiment with id={id} exists")))?;
    with_tags(conn, exp)
}

/// An experiment by exact name (deleted ones too; names are unique across both).
pub(crate) fn get_by_name(conn: &Conn, name: &str) -> Result<Experiment, Error> {
    match find_id_by_name(conn, name)? {
        Some(id) => get(conn, id),
        None => Err(Error::NotFound(format!(
            "Could not find experiment with name {name}"
        ))),
    }
}

/// Renames an active experiment.
pub(crate) fn rename(conn: &Conn, id: i64, new_name: &str) -> Result<(), Error> {
    validate_experiment_name(new_name)?;
    let exp = get(conn, id)?;
    if exp.lifecycle_stage != "active" {
        return Err(Error::InvalidState(
            "Cannot rename a non-active experiment.".to_string(),
        ));
    }
    if exp.name == new_name {
        return Ok(());
    }
    if find_id_by_name(conn, new_name)?.is_some() {
        return Err(Error::AlreadyExists(format!(
            "Experiment(name={new_name}) already exists."
        )));
    }
    conn.prepare_cached(
        "UPDATE experiments SET name = ?1, last_update_time = ?2 WHERE experiment_id = ?3",
    )?
    .execute(params![new_name, now_ms(), id])?;
    Ok(())
}

/// Marks an experiment and all its runs deleted (`deleted = true`) or active again.
pub(crate) fn set_deleted(conn: &Conn, id: i64, deleted: bool) -> Result<(), Error> {
    let exp = get(conn, id)?;
    if deleted && id == 0 {
        return Err(Error::InvalidParameter(
            "Cannot delete the default experiment '0'. This is an internally reserved \
             experiment."
                .to_string(),
        ));
    }
    let (from, to) = if deleted {
        ("active", "deleted")
    } else {
        ("deleted", "active")
    };
    if exp.lifecycle_stage != from {
        return Err(Error::InvalidState(format!(
            "Cannot {} experiment {id}: it is {}.",
            if deleted { "delete" } else { "restore" },
            exp.lifecycle_stage
        )));
    }
    let now = now_ms();
    conn.prepare_cached(
        "UPDATE experiments SET lifecycle_stage = ?1, last_update_time = ?2 WHERE experiment_id = ?3",
    )?
    .execute(params![to, now, id])?;
    let deleted_time = deleted.then_some(now);
    conn.prepare_cached(
        "UPDATE runs SET lifecycle_stage = ?1, deleted_time = ?2 \
         WHERE experiment_id = ?3 AND lifecycle_stage = ?4",
    )?
    .execute(params![to, deleted_time, id, from])?;
    Ok(())
}

fn upsert_tag(conn: &Conn, id: i64, key: &str, value: &str) -> Result<(), Error> {
    conn.prepare_cached(
        "INSERT INTO experiment_tags (experiment_id, key, value) VALUES (?1, ?2, ?3) \
         ON CONFLICT (experiment_id, key) DO UPDATE SET value = excluded.value",
    )?
    .execute(params![id, key, value])?;
    Ok(())
}

/// Sets (upserts) a tag on an active experiment.
pub(crate) fn set_tag(conn: &Conn, id: i64, key: &str, value: &str) -> Result<(), Error> {
    validate_key("key", key)?;
    validate_length(
        "Experiment tag value",
        value,
        MAX_EXPERIMENT_TAG_VALUE_LENGTH,
    )?;
    let exp = get(conn, id)?;
    if exp.lifecycle_stage != "active" {
        return Err(Error::InvalidState(format!(
            "The experiment {id} must be in the 'active' state. Current state is {}.",
            exp.lifecycle_stage
        )));
    }
    upsert_tag(conn, id, key, value)?;
    conn.prepare_cached("UPDATE experiments SET last_update_time = ?1 WHERE experiment_id = ?2")?
        .execute(params![now_ms(), id])?;
    Ok(())
}

/// Deletes a tag of an experiment; a missing tag is an error.
pub(crate) fn delete_tag(conn: &Conn, id: i64, key: &str) -> Result<(), Error> {
    get(conn, id)?;
    let n = conn
        .prepare_cached("DELETE FROM experiment_tags WHERE experiment_id = ?1 AND key = ?2")?
        .execute(params![id, key])?;
    if n == 0 {
        return Err(Error::NotFound(format!("No tag with name: {key}")));
    }
    Ok(())
}
