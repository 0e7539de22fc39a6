//! Logging into a run (MLflow's log-batch and the single-item calls): params (write-once),
//! tags (upsert, through `super::tags`) and metric points (de-duplicated, latest value
//! maintained), all inside the caller's transaction so one request is one commit.

use std::collections::HashMap;

use crate::db::{params, params_from_iter, Conn, Value};

use super::columns::{note_keys, ColumnKind};
use super::model::{to_stored, Metric, Point, RunInfo};
use super::series;
use super::validation::{truncate, validate_batch_sizes, validate_key, MAX_PARAM_VALUE_LENGTH};
use super::{runs, tags};
use crate::db::sql::{json_array, json_list, json_pairs};
use crate::Error;

/// A log-batch request (also used for the single-item calls).
#[derive(Debug, Clone, Default)]
pub struct Batch {
    /// Metric points.
    pub metrics: Vec<Metric>,
    /// Params.
    pub params: Vec<(String, String)>,
    /// Tags.
    pub tags: Vec<(String, String)>,
}

/// What a logged batch leaves for its live event (`crate::live::BatchWatch`), so that
/// the event needs no reads of its own (each a round trip on PostgreSQL).
#[derive(Debug, Clone)]
pub struct Logged {
    /// The run, as read before the write (a tag may have renamed it since).
    pub info: RunInfo,
    /// The latest value of each metric key the batch logged, after it, in order of the
    /// keys' first appearance in the batch.
    pub latest: Vec<(String, Point)>,
}

/// Logs a batch into an active run. `single` names fields as the single-item endpoints do
/// (`key`) instead of `metrics[0].key`.
pub fn log_batch(conn: &Conn, run_id: &str, batch: Batch, single: bool) -> Result<Logged, Error> {
    validate_batch_sizes(batch.metrics.len(), batch.params.len(), batch.tags.len())?;
    let info = runs::get_active_info(conn, run_id)?;
    log_params(conn, run_id, batch.params, single)?;
    let latest = log_metrics(conn, run_id, &batch.metrics, single)?;
    let path = if single { "key" } else { "tags" };
    tags::set_tags(conn, run_id, &batch.tags, path)?;
    Ok(Logged { info, latest })
}

fn field(single: bool, list: &str, i: usize, name: &str) -> String {
    if single {
        name.to_string()
    } else {
        format!("{list}[{i}].{name}")
    }
}

fn log_params(
    conn: &Conn,
    run_id: &str,
    params: Vec<(String, String)>,
    single: bool,
) -> Result<(), Error> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, (k, _)) in params.iter().enumerate() {
        validate_key(&field(single, "params", i, "key"), k)?;
        *seen.entry(k.as_str()).or_default() += 1;
    }
    let mut dups: Vec<&str> = seen
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(k, _)| k)
        .collect();
    if !dups.is_empty() {
        dups.sort_unstable();
        return Err(Error::InvalidParameter(format!(
            "Duplicate parameter keys have been submitted: {dups:?}. Please ensure the request \
             contains only one param value per param key."
        )));
    }
    // One statement reads the values already logged for these keys, one writes the new
    // ones and one or two note their column keys, whatever their number (each statement is
    // a round trip on PostgreSQL); none when there are no params.
    if params.is_empty() {
        return Ok(());
    }
    let d = conn.engine();
    let keys: Vec<&str> = params.iter().map(|(k, _)| k.as_str()).collect();
    let mut logged: HashMap<String, String> = HashMap::new();
    {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT key, value FROM params WHERE run_uuid = ?1 AND key IN {}",
            json_list(d, "?2")
        ))?;
        let mut rows = stmt.query(params![run_id, json_array(&keys)?])?;
        while let Some(r) = rows.next()? {
            logged.insert(r.get(0)?, r.get(1)?);
        }
    }
    let mut new: Vec<[String; 2]> = Vec::new();
    for (key, value) in params {
        let value = truncate(value, MAX_PARAM_VALUE_LENGTH);
        match logged.get(&key) {
            Some(old) if *old == value => {}
            Some(old) => {
                return Err(Error::InvalidParameter(format!(
                    "Changing param values is not allowed. Param with key='{key}' was already \
                     logged with value='{old}' for run ID='{run_id}'. Attempted logging new \
                     value '{value}'."
                )))
            }
            None => new.push([key, value]),
        }
    }
    if new.is_empty() {
        return Ok(());
    }
    conn.prepare_cached(&format!(
        "INSERT INTO params (run_uuid, key, value) SELECT ?1, n.a, n.b FROM {} AS n",
        json_pairs(d, "?2")
    ))?
    .execute(params![run_id, json_array(&new)?])?;
    let keys: Vec<&str> = new.iter().map(|[k, _]| k.as_str()).collect();
    note_keys(conn, run_id, ColumnKind::Param, &keys)
}

/// Deletes a tag of an active run; a missing tag is `RESOURCE_DOES_NOT_EXIST`.
pub(crate) fn delete_tag(conn: &Conn, run_id: &str, key: &str) -> Result<(), Error> {
    runs::get_active_info(conn, run_id)?;
    if !tags::delete_tag(conn, run_id, key)? {
        return Err(Error::NotFound(format!(
            "No tag with name: {key} in run with id {run_id}"
        )));
    }
    Ok(())
}

/// MLflow's latest-value rule: `new` replaces `old` when (step, timestamp, value) of `new`
/// is >= that of `old`. A NaN never wins a tie on value; a stored NaN compares as 0 (as
/// MLflow's SQL store, which keeps NaN as value 0).
pub(crate) fn supersedes(new: &Point, old: &Point) -> bool {
    let old_value = if old.value.is_nan() { 0.0 } else { old.value };
    (new.step, new.timestamp) > (old.step, old.timestamp)
        || ((new.step, new.timestamp) == (old.step, old.timestamp) && new.value >= old_value)
}

/// Logs `metrics`; returns each key's latest value after them (see [`Logged::latest`]).
fn log_metrics(
    conn: &Conn,
    run_id: &str,
    metrics: &[Metric],
    single: bool,
) -> Result<Vec<(String, Point)>, Error> {
    for (i, m) in metrics.iter().enumerate() {
        validate_key(&field(single, "metrics", i, "key"), &m.key)?;
        if m.point.timestamp < 0 {
            return Err(Error::InvalidParameter(format!(
                "Got invalid timestamp {} for metric '{}' (value={}). Timestamp must be \
                 nonnegative.",
                m.point.timestamp, m.key, m.point.value
            )));
        }
    }
    // Each key's points in request order, keys in order of first appearance.
    let mut by_key: Vec<(&str, Vec<Point>)> = Vec::new();
    let mut slot: HashMap<&str, usize> = HashMap::new();
    let mut best: HashMap<&str, Point> = HashMap::new();
    for m in metrics {
        let i = *slot.entry(m.key.as_str()).or_insert_with(|| {
            by_key.push((m.key.as_str(), Vec::new()));
            by_key.len() - 1
        });
        by_key[i].1.push(m.point);
        match best.get(m.key.as_str()) {
            Some(b) if !supersedes(&m.point, b) => {}
            _ => {
                best.insert(&m.key, m.point);
            }
        }
    }
    if by_key.is_empty() {
        return Ok(Vec::new());
    }
    let keys: Vec<&str> = by_key.iter().map(|(key, _)| *key).collect();
    let ids = series_ids(conn, run_id, &keys)?;
    let mut series = Vec::with_capacity(by_key.len());
    for (key, points) in &by_key {
        let id = ids
            .get(*key)
            .ok_or_else(|| Error::Internal(format!("no metric series for key {key:?}")))?;
        series.push((*id, points.as_slice()));
    }
    series::insert_series(conn, &series)?;
    let best: Vec<(&str, Point)> = keys.iter().map(|k| (*k, best[k])).collect();
    update_latest(conn, run_id, &best)
}

/// The series id of each of `keys` (distinct) in run `run_id`, made for the keys that have
/// none: one statement to look and at most one to insert, whatever their number.
fn series_ids(conn: &Conn, run_id: &str, keys: &[&str]) -> Result<HashMap<String, i64>, Error> {
    let d = conn.engine();
    let mut ids: HashMap<String, i64> = HashMap::with_capacity(keys.len());
    let list = json_array(keys)?;
    {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT key, series_id FROM metric_series WHERE run_uuid = ?1 AND key IN {}",
            json_list(d, "?2")
        ))?;
        let rows = stmt.query_map(params![run_id, list], |r| Ok((r.get(0)?, r.get(1)?)))?;
        for row in rows {
            let (key, id) = row?;
            ids.insert(key, id);
        }
    }
    let missing: Vec<&str> = keys
        .iter()
        .filter(|k| !ids.contains_key(**k))
        .copied()
        .collect();
    if missing.is_empty() {
        return Ok(ids);
    }
    let mut stmt = conn.prepare_cached(&format!(
        "INSERT INTO metric_series (run_uuid, key) SELECT ?1, k.value FROM {} AS k
         RETURNING key, series_id",
        json_list(d, "?2")
    ))?;
    let rows = stmt.query_map(params![run_id, json_array(&missing)?], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    for row in rows {
        let (key, id) = row?;
        ids.insert(key, id);
    }
    Ok(ids)
}

/// Latest-value rows a statement: 16, 4 or 1 (few distinct statements for the cache).
const LATEST_ROWS: [usize; 3] = [16, 4, 1];

/// Makes each of `best` (distinct keys, each key's winning point of this batch) the
/// latest value of its key in run `run_id` where it supersedes the stored one (MLflow's
/// rule, [`supersedes`]); keys with no value yet become columns of the experiment. One
/// statement reads the stored values, and the upserts write several keys a statement.
/// Returns each key's latest value after the update, in the order of `best`.
fn update_latest(
    conn: &Conn,
    run_id: &str,
    best: &[(&str, Point)],
) -> Result<Vec<(String, Point)>, Error> {
    if best.is_empty() {
        return Ok(Vec::new());
    }
    let d = conn.engine();
    let keys: Vec<&str> = best.iter().map(|(k, _)| *k).collect();
    let mut old: HashMap<String, Point> = HashMap::with_capacity(best.len());
    {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT key, step, timestamp, is_nan, value FROM latest_metrics \
             WHERE run_uuid = ?1 AND key IN {}",
            json_list(d, "?2")
        ))?;
        let rows = stmt.query_map(params![run_id, json_array(&keys)?], |r| {
            Ok((
                r.get::<_, String>(0)?,
                Point {
                    step: r.get(1)?,
                    timestamp: r.get(2)?,
                    value: super::model::from_stored(r.get(3)?, r.get(4)?),
                },
            ))
        })?;
        for row in rows {
            let (key, p) = row?;
            old.insert(key, p);
        }
    }
    // Each key keeps its stored value unless this batch's point supersedes it.
    let mut latest: Vec<(String, Point)> = Vec::with_capacity(best.len());
    let mut write: Vec<(&str, Point)> = Vec::with_capacity(best.len());
    for &(k, p) in best {
        match old.get(k) {
            Some(o) if !supersedes(&p, o) => latest.push((k.to_owned(), *o)),
            _ => {
                latest.push((k.to_owned(), p));
                write.push((k, p));
            }
        }
    }
    let fresh: Vec<&str> = write
        .iter()
        .map(|(k, _)| *k)
        .filter(|k| !old.contains_key(*k))
        .collect();
    note_keys(conn, run_id, ColumnKind::Metric, &fresh)?;
    let mut rest = write.as_slice();
    while !rest.is_empty() {
        let n = LATEST_ROWS
            .into_iter()
            .find(|n| *n <= rest.len())
            .unwrap_or(1);
        let (now, later) = rest.split_at(n);
        let values = vec!["(?, ?, ?, ?, ?, ?)"; n].join(", ");
        let mut args: Vec<Value> = Vec::with_capacity(n * 6);
        for (key, p) in now {
            let (is_nan, value) = to_stored(p.value);
            args.extend([
                Value::Text(run_id.to_owned()),
                Value::Text((*key).to_owned()),
                Value::Integer(p.step),
                Value::Integer(p.timestamp),
                Value::from(is_nan),
                Value::Real(value),
            ]);
        }
        conn.prepare_cached(&format!(
            "INSERT INTO latest_metrics (run_uuid, key, step, timestamp, is_nan, value) \
             VALUES {values} ON CONFLICT (run_uuid, key) DO UPDATE SET \
             step = excluded.step, timestamp = excluded.timestamp, is_nan = excluded.is_nan, \
             value = excluded.value"
        ))?
        .execute(params_from_iter(args))?;
        rest = later;
    }
    Ok(latest)
}

#[cfg(test)]
mod tests {
    use super::{supersedes, Point};

    fn p(step: i64, timestamp: i64, value: f64) -> Point {
        Point {
            step,
            timestamp,
            value,
        }
    }

    #[test]
    fn latest_metric_rule_is_step_then_timestamp_then_value() {
        assert!(supersedes(&p(2, 0, 0.0), &p(1, 99, 9.0)));
        assert!(!supersedes(&p(1, 99, 9.0), &p(2, 0, 0.0)));
        assert!(supersedes(&p(1, 5, 0.0), &p(1, 4, 9.0)));
        assert!(supersedes(&p(1, 5, 2.0), &p(1, 5, 1.0)));
        assert!(!supersedes(&p(1, 5, 1.0), &p(1, 5, 2.0)));
        assert!(supersedes(&p(1, 5, 1.0), &p(1, 5, 1.0)));
        assert!(supersedes(&p(1, 5, f64::INFINITY), &p(1, 5, 1e308)));
    }

    #[test]
    fn nan_never_wins_a_value_tie_and_stored_nan_is_zero() {
        assert!(!supersedes(&p(1, 5, f64::NAN), &p(1, 5, -1.0)));
        assert!(supersedes(&p(1, 6, f64::NAN), &p(1, 5, 1.0)));
        assert!(supersedes(&p(1, 5, 0.5), &p(1, 5, f64::NAN)));
        assert!(!supersedes(&p(1, 5, -0.5), &p(1, 5, f64::NAN)));
    }
}
