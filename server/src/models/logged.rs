//! Logged models: create, read, finalize, delete, params, tags and linked metrics.

use crate::db::{params, Conn, OptionalExtension, Row};

use api_types::Level;

use crate::auth::Caller;
use crate::permissions::require_experiment;
use crate::tracking::model::{from_stored, to_stored, Point};
use crate::tracking::{experiments, names};
use crate::util::now_ms;
use crate::Error;

/// A logged model's status (MLflow `LoggedModelStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// `LOGGED_MODEL_STATUS_UNSPECIFIED` (0).
    Unspecified,
    /// `LOGGED_MODEL_PENDING` (1): artifacts being uploaded.
    Pending,
    /// `LOGGED_MODEL_READY` (2).
    Ready,
    /// `LOGGED_MODEL_UPLOAD_FAILED` (3).
    UploadFailed,
}

impl Status {
    /// Every status, by number.
    pub(crate) const ALL: [Status; 4] = [
        Status::Unspecified,
        Status::Pending,
        Status::Ready,
        Status::UploadFailed,
    ];

    /// The protobuf number.
    pub(crate) fn number(self) -> i64 {
        self as i64
    }

    /// The status of a protobuf number.
    pub(crate) fn from_number(n: i64) -> Option<Status> {
        Self::ALL.into_iter().find(|s| s.number() == n)
    }

    /// The protobuf name, e.g. `LOGGED_MODEL_READY`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Unspecified => "LOGGED_MODEL_STATUS_UNSPECIFIED",
            Status::Pending => "LOGGED_MODEL_PENDING",
            Status::Ready => "LOGGED_MODEL_READY",
            Status::UploadFailed => "LOGGED_MODEL_UPLOAD_FAILED",
        }
    }

    /// Parses a protobuf name or number (as text).
    pub(crate) fn parse(s: &str) -> Option<Status> {
        Self::ALL
            .into_iter()
            .find(|st| st.as_str() == s || st.number().to_string() == s)
    }
}

/// A metric value linked to a logged model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelMetric {
    /// Metric key.
    pub key: String,
    /// Step, timestamp and value.
    pub point: Point,
    /// The run that logged it.
    pub run_id: String,
    /// Dataset it was computed on, if given.
    pub dataset_name: Option<String>,
    /// That dataset's digest, if given.
    pub dataset_digest: Option<String>,
}

/// A logged model with its params, tags and metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedModel {
    /// `m-<32 hex>`.
    pub model_id: String,
    /// Its experiment.
    pub experiment_id: i64,
    /// Name (`model` by default on the client).
    pub name: String,
    /// `<experiment artifact_location>/models/<model_id>/artifacts`.
    pub artifact_uri: String,
    /// Status.
    pub status: Status,
    /// Status message, if any.
    pub status_message: Option<String>,
    /// Model type, if given.
    pub model_type: Option<String>,
    /// Run that logged it, if any.
    pub source_run_id: Option<String>,
    /// Username of its creator ("" when unknown).
    pub creator: String,
    /// Created, ms since the epoch.
    pub creation_time: i64,
    /// Last change, ms since the epoch.
    pub last_updated_time: i64,
    /// `active` or `deleted`.
    pub lifecycle_stage: String,
    /// Params, sorted by key.
    pub params: Vec<(String, String)>,
    /// Tags, sorted by key.
    pub tags: Vec<(String, String)>,
    /// Linked metric values (every point), by key, then time.
    pub metrics: Vec<ModelMetric>,
}

/// What `logged-models` create asks for.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewModel {
    /// Target experiment (must be active).
    pub experiment_id: i64,
    /// Name; a random one when `None` or empty.
    pub name: Option<String>,
    /// Model type.
    pub model_type: Option<String>,
    /// Source run.
    pub source_run_id: Option<String>,
    /// Initial params.
    pub params: Vec<(String, String)>,
    /// Initial tags.
    pub tags: Vec<(String, String)>,
    /// Username of the caller.
    pub creator: String,
}

pub(crate) const COLUMNS: &str = "model_id, experiment_id, name, artifact_location, status, \
     status_message, model_type, source_run_id, creator, creation_time, last_updated_time, \
     lifecycle_stage";

pub(crate) fn from_row(r: &Row<'_>) -> crate::db::Result<LoggedModel> {
    let status: i64 = r.get(4)?;
    Ok(LoggedModel {
        model_id: r.get(0)?,
        experiment_id: r.get(1)?,
        name: r.get(2)?,
        artifact_uri: r.get(3)?,
        status: Status::from_number(status).unwrap_or(Status::Unspecified),
        status_message: r.get(5)?,
        model_type: r.get(6)?,
        source_run_id: r.get(7)?,
        creator: r.get(8)?,
        creation_time: r.get(9)?,
        last_updated_time: r.get(10)?,
        lifecycle_stage: r.get(11)?,
        params: Vec::new(),
        tags: Vec::new(),
        metrics: Vec::new(),
    })
}

/// MLflow's 404 for a logged model.
pub(crate) fn not_found(model_id: &str) -> Error {
    Error::NotFound(format!("Logged model with ID '{model_id}' not found."))
}

/// The model's row without params, tags and metrics (deleted ones too).
fn get_row(conn: &Conn, model_id: &str) -> Result<LoggedModel, Error> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM logged_models WHERE model_id = ?1"
    ))?
    .query_row([model_id], from_row)
    .optional()?
    .ok_or_else(|| not_found(model_id))
}

/// An active logged model with its params, tags and metrics; 404 (MLflow's words) when
/// unknown or deleted.
pub fn get(conn: &Conn, model_id: &str) -> Result<LoggedModel, Error> {
    get_with(conn, model_id, false)
}

/// [`get`], deleted models too when `allow_deleted`.
pub(crate) fn get_with(
    conn: &Conn,
    model_id: &str,
    allow_deleted: bool,
) -> Result<LoggedModel, Error> {
    let m = get_row(conn, model_id)?;
    if m.lifecycle_stage == "deleted" && !allow_deleted {
        return Err(not_found(model_id));
    }
    Ok(load(conn, vec![m])?.remove(0))
}

/// The experiment of a logged model (deleted ones too: permissions follow it); 404 when
/// unknown.
pub(crate) fn experiment_of(conn: &Conn, model_id: &str) -> Result<i64, Error> {
    conn.prepare_cached("SELECT experiment_id FROM logged_models WHERE model_id = ?1")?
        .query_row([model_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| not_found(model_id))
}

/// At least `need` on the experiment of the logged model `model_id` (404 when unknown):
/// logged models follow their experiment's grants.
pub(crate) fn require(
    conn: &Conn,
    caller: &Caller,
    model_id: &str,
    need: Level,
) -> Result<(), Error> {
    let experiment_id = experiment_of(conn, model_id)?;
    require_experiment(conn, caller, experiment_id, need).map(drop)
}

/// [`require`] when the model exists (MLflow links unknown model ids to runs without
/// complaint).
pub(crate) fn require_if_known(
    conn: &Conn,
    caller: &Caller,
    model_id: &str,
    need: Level,
) -> Result<(), Error> {
    match require(conn, caller, model_id, need) {
        Err(Error::NotFound(_)) => Ok(()),
        other => other,
    }
}

/// Fills params, tags and metrics of `models` (a few IN queries per page).
pub(crate) fn load(conn: &Conn, mut models: Vec<LoggedModel>) -> Result<Vec<LoggedModel>, Error> {
    use std::collections::HashMap;
    for chunk in models.chunks_mut(500) {
        let index: HashMap<String, usize> = chunk
            .iter()
            .enumerate()
            .map(|(i, m)| (m.model_id.clone(), i))
            .collect();
        let ids: Vec<String> = chunk.iter().map(|m| m.model_id.clone()).collect();
        let marks = vec!["?"; ids.len()].join(",");
        for (table, is_param) in [("logged_model_params", true), ("logged_model_tags", false)] {
            let sql = format!(
                "SELECT model_id, key, value FROM {table} WHERE model_id IN ({marks}) \
                 ORDER BY model_id, key"
            );
            let mut stmt = conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(crate::db::params_from_iter(&ids), |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })?;
            for row in rows {
                let (id, k, v) = row?;
                if let Some(&i) = index.get(&id) {
                    let m = &mut chunk[i];
                    match is_param {
                        true => m.params.push((k, v)),
                        false => m.tags.push((k, v)),
                    }
                }
            }
        }
        let sql = format!(
            "SELECT model_id, key, step, timestamp, is_nan, value, run_uuid, dataset_name, \
             dataset_digest FROM logged_model_metrics WHERE model_id IN ({marks}) \
             ORDER BY model_id, key, timestamp, step, run_uuid"
        );
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(crate::db::params_from_iter(&ids), |r| {
            let metric = ModelMetric {
                key: r.get(1)?,
                point: Point {
                    step: r.get(2)?,
                    timestamp: r.get(3)?,
                    value: from_stored(r.get(4)?, r.get(5)?),
                },
                run_id: r.get(6)?,
                dataset_name: r.get(7)?,
                dataset_digest: r.get(8)?,
            };
            Ok((r.get::<_, String>(0)?, metric))
        })?;
        for row in rows {
            let (id, metric) = row?;
            if let Some(&i) = index.get(&id) {
                chunk[i].metrics.push(metric);
            }
        }
    }
    Ok(models)
}

/// A new model id, `m-<32 hex>`.
fn new_model_id() -> String {
    format!("m-{}", uuid::Uuid::new_v4().simple())
}

/// Creates a logged model (status PENDING) in an active experiment.
pub(crate) fn create(conn: &Conn, new: NewModel) -> Result<LoggedModel, Error> {
    let exp = experiments::get(conn, new.experiment_id)?;
    if exp.lifecycle_stage != "active" {
        return Err(Error::InvalidState(format!(
            "The experiment {} must be in the 'active' state. Current state is {}.",
            exp.experiment_id, exp.lifecycle_stage
        )));
    }
    let model_id = new_model_id();
    let artifact_location = experiments::append_to_uri_path(
        &exp.artifact_location,
        &format!("models/{model_id}/artifacts"),
    );
    let name = new
        .name
        .filter(|n| !n.is_empty())
        .unwrap_or_else(names::random_run_name);
    let now = now_ms();
    conn.prepare_cached(&format!(
        "INSERT INTO logged_models ({COLUMNS}) \
         VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6, ?7, ?8, ?9, ?9, 'active')"
    ))?
    .execute(params![
        model_id,
        new.experiment_id,
        name,
        artifact_location,
        Status::Pending.number(),
        new.model_type.filter(|t| !t.is_empty()),
        new.source_run_id.filter(|r| !r.is_empty()),
        new.creator,
        now
    ])?;
    put_pairs(conn, "logged_model_params", &model_id, &new.params)?;
    put_pairs(conn, "logged_model_tags", &model_id, &new.tags)?;
    get(conn, &model_id)
}

/// Upserts key/value pairs of a model (the last value of a repeated key wins).
fn put_pairs(
    conn: &Conn,
    table: &str,
    model_id: &str,
    pairs: &[(String, String)],
) -> Result<(), Error> {
    let mut stmt = conn.prepare_cached(&format!(
        "INSERT INTO {table} (model_id, key, value) VALUES (?1, ?2, ?3) \
         ON CONFLICT (model_id, key) DO UPDATE SET value = excluded.value"
    ))?;
    for (k, v) in pairs {
        stmt.execute(params![model_id, k, v])?;
    }
    Ok(())
}

fn touch(conn: &Conn, model_id: &str) -> Result<(), Error> {
    conn.prepare_cached("UPDATE logged_models SET last_updated_time = ?1 WHERE model_id = ?2")?
        .execute(params![now_ms(), model_id])?;
    Ok(())
}

/// Sets the status of a model (finalize); returns it.
pub(crate) fn finalize(conn: &Conn, model_id: &str, status: Status) -> Result<LoggedModel, Error> {
    get(conn, model_id)?;
    conn.prepare_cached(
        "UPDATE logged_models SET status = ?1, last_updated_time = ?2 WHERE model_id = ?3",
    )?
    .execute(params![status.number(), now_ms(), model_id])?;
    get(conn, model_id)
}

/// Marks a model deleted.
pub(crate) fn delete(conn: &Conn, model_id: &str) -> Result<(), Error> {
    get(conn, model_id)?;
    conn.prepare_cached(
        "UPDATE logged_models SET lifecycle_stage = 'deleted', last_updated_time = ?1 \
         WHERE model_id = ?2",
    )?
    .execute(params![now_ms(), model_id])?;
    Ok(())
}

/// Sets (upserts) tags of a model.
pub(crate) fn set_tags(
    conn: &Conn,
    model_id: &str,
    tags: &[(String, String)],
) -> Result<(), Error> {
    get(conn, model_id)?;
    put_pairs(conn, "logged_model_tags", model_id, tags)?;
    touch(conn, model_id)
}

/// Deletes one tag; MLflow's 404 when the model has no such tag.
pub(crate) fn delete_tag(conn: &Conn, model_id: &str, key: &str) -> Result<(), Error> {
    get(conn, model_id)?;
    let n = conn
        .prepare_cached("DELETE FROM logged_model_tags WHERE model_id = ?1 AND key = ?2")?
        .execute(params![model_id, key])?;
    if n == 0 {
        return Err(Error::NotFound(format!(
            "No tag with key '{key}' found for model with ID '{model_id}'."
        )));
    }
    touch(conn, model_id)
}

/// Logs (upserts) params of a model.
pub(crate) fn log_params(
    conn: &Conn,
    model_id: &str,
    params: &[(String, String)],
) -> Result<(), Error> {
    get(conn, model_id)?;
    put_pairs(conn, "logged_model_params", model_id, params)?;
    touch(conn, model_id)
}

/// A metric value logged with a `model_id`: linked to that logged model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MetricLink {
    /// The model.
    pub model_id: String,
    /// Metric key.
    pub key: String,
    /// Step, timestamp and value.
    pub point: Point,
    /// Dataset it was computed on, if given.
    pub dataset_name: Option<String>,
    /// That dataset's digest, if given.
    pub dataset_digest: Option<String>,
}

/// Links metric values logged by `run_id` to their models; metrics of unknown models are
/// ignored, identical points de-duplicated.
pub(crate) fn log_metrics(conn: &Conn, run_id: &str, links: &[MetricLink]) -> Result<(), Error> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO logged_model_metrics (model_id, key, timestamp, step, \
         run_uuid, is_nan, value, dataset_name, dataset_digest) \
         SELECT model_id, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9 FROM logged_models WHERE model_id = ?1 \
         ON CONFLICT DO NOTHING",
    )?;
    for m in links {
        let (is_nan, value) = to_stored(m.point.value);
        stmt.execute(params![
            m.model_id,
            m.key,
            m.point.timestamp,
            m.point.step,
            run_id,
            is_nan,
            value,
            m.dataset_name,
            m.dataset_digest
        ])?;
    }
    Ok(())
}

/// Active models whose source run is one of `run_ids`, oldest first.
pub(crate) fn of_runs(conn: &Conn, run_ids: &[String]) -> Result<Vec<LoggedModel>, Error> {
    let mut out = Vec::new();
    for chunk in run_ids.chunks(500) {
        let marks = vec!["?"; chunk.len()].join(",");
        let sql = format!(
            "SELECT {COLUMNS} FROM logged_models WHERE source_run_id IN ({marks}) \
             AND lifecycle_stage = 'active' ORDER BY creation_time, model_id"
        );
        let rows = conn
            .prepare_cached(&sql)?
            .query_map(crate::db::params_from_iter(chunk), from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        out.extend(rows);
    }
    load(conn, out)
}
