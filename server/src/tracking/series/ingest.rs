//! Writing a series' points: the only place `metric_points` is written. Each call inserts
//! the points (identical ones de-duplicated), then folds the new ones into the series'
//! block summaries and chunks, its point count and its time-order flag, all in the caller's
//! transaction. Points are never updated or deleted, so the summaries only ever grow.

use crate::db::{params, params_from_iter, Conn, Dialect, Value};
use api_types as json;

use super::block::{next_level, point_order, Block, LEVELS, LEVEL_STEP, MIN_LEVEL};
use super::blocks;
use super::chunks;
use crate::tracking::model::{from_stored, to_stored, Point};
use crate::Error;

/// Inserts `points` into series `sid` and maintains its summaries; returns how many were
/// new (a point identical to a stored one is not stored again).
pub fn insert_points(c: &Conn, sid: i64, points: &[Point]) -> Result<u64, Error> {
    if points.is_empty() {
        return Ok(0);
    }
    let before = prior(c, sid)?;
    let mut new = match c.dialect() {
        Dialect::Sqlite => insert_each(c, sid, points)?,
        Dialect::Postgres => insert_rows(c, sid, points)?,
    };
    if new.is_empty() {
        return Ok(0);
    }
    new.sort_by(point_order);
    let still_ordered = before.time_ordered && appends_in_order(before.last, &new);
    update_blocks(c, sid, &new, before.last.map(|(step, _)| step))?;
    let added = new.len() as u64;
    c.prepare_cached(
        "UPDATE metric_series SET point_count = point_count + ?2, time_ordered = ?3 \
         WHERE series_id = ?1",
    )?
    .execute(params![sid, added as i64, still_ordered])?;
    Ok(added)
}

/// The points stored by one statement each (in-process SQLite: a prepared statement per
/// point is its fastest way); returns the new ones.
fn insert_each(c: &Conn, sid: i64, points: &[Point]) -> Result<Vec<json::SeriesPoint>, Error> {
    let mut insert = c.prepare_cached(
        "INSERT INTO metric_points (series_id, step, timestamp, is_nan, value) \
         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
    )?;
    let mut new = Vec::with_capacity(points.len());
    for p in points {
        let (is_nan, value) = to_stored(p.value);
        // 0 rows for a point already stored (or repeated within the call).
        if insert.execute(params![sid, p.step, p.timestamp, is_nan, value])? == 1 {
            new.push(json::SeriesPoint {
                step: p.step,
                timestamp: p.timestamp,
                value: json::F64(p.value),
            });
        }
    }
    Ok(new)
}

/// Points per multi-row insert on a networked database.
const ROWS_PER_INSERT: usize = 200;

/// The points stored [`ROWS_PER_INSERT`] a statement, each statement returning the rows
/// it stored (a round trip per point would dominate over a network); returns the new ones.
fn insert_rows(c: &Conn, sid: i64, points: &[Point]) -> Result<Vec<json::SeriesPoint>, Error> {
    let mut new = Vec::with_capacity(points.len());
    for chunk in points.chunks(ROWS_PER_INSERT) {
        let rows = vec!["(?, ?, ?, ?, ?)"; chunk.len()].join(", ");
        let sql = format!(
            "INSERT INTO metric_points (series_id, step, timestamp, is_nan, value) \
             VALUES {rows} ON CONFLICT DO NOTHING RETURNING step, timestamp, is_nan, value"
        );
        let mut values = Vec::with_capacity(chunk.len() * 5);
        for p in chunk {
            let (is_nan, value) = to_stored(p.value);
            values.extend([
                Value::Integer(sid),
                Value::Integer(p.step),
                Value::Integer(p.timestamp),
                Value::from(is_nan),
                Value::Real(value),
            ]);
        }
        let mut stmt = c.prepare_cached(&sql)?;
        let stored = stmt.query_map(params_from_iter(values), |r| {
            Ok(json::SeriesPoint {
                step: r.get(0)?,
                timestamp: r.get(1)?,
                value: json::F64(from_stored(r.get(2)?, r.get(3)?)),
            })
        })?;
        for p in stored {
            new.push(p?);
        }
    }
    Ok(new)
}

/// What the series was before the insert.
struct Prior {
    /// Its time-order flag.
    time_ordered: bool,
    /// Its largest step and timestamp; `None` when it has no points yet.
    last: Option<(i64, i64)>,
}

/// The series' flag, largest step and largest timestamp (from the indexes' ends).
fn prior(c: &Conn, sid: i64) -> Result<Prior, Error> {
    let (time_ordered, step, ts): (bool, Option<i64>, Option<i64>) = c
        .prepare_cached(
            "SELECT time_ordered,
                    (SELECT max(step) FROM metric_points WHERE series_id = ?1),
                    (SELECT max(timestamp) FROM metric_points WHERE series_id = ?1)
               FROM metric_series WHERE series_id = ?1",
        )?
        .query_row([sid], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(Prior {
        time_ordered,
        last: step.zip(ts),
    })
}

/// Whether a time-ordered series whose largest step and timestamp were `prior` stays
/// time-ordered with `new` (sorted in reading order) added: the new points never go back
/// in time as steps grow, and come after every stored point in both step and time. A
/// conservative test: a series it clears may still be ordered (it then charts by time
/// through the scan).
fn appends_in_order(prior: Option<(i64, i64)>, new: &[json::SeriesPoint]) -> bool {
    let in_order = new.windows(2).all(|w| w[0].timestamp <= w[1].timestamp);
    let after = prior.is_none_or(|(step, ts)| {
        new.first().is_some_and(|p| p.step >= step)
            && new.iter().map(|p| p.timestamp).min() >= Some(ts)
    });
    in_order && after
}

/// Folds `new` (sorted in reading order) into the stored blocks of every level and the
/// lowest level's chunks ([`chunks::update`]): one statement reads the stored blocks touched (none for a block that starts after
/// `last_step`, the series' largest step before the insert: appended points mostly open
/// new blocks), upserts of up to 16 rows write them back.
fn update_blocks(
    c: &Conn,
    sid: i64,
    new: &[json::SeriesPoint],
    last_step: Option<i64>,
) -> Result<(), Error> {
    let mut level: Vec<(i64, Block)> = Vec::new();
    for p in new {
        let b = p.step >> MIN_LEVEL;
        match level.last_mut() {
            Some((last, acc)) if *last == b => *acc = acc.merge(&Block::of(*p)),
            _ => level.push((b, Block::of(*p))),
        }
    }
    let mut all: Vec<(u32, i64, Block)> = Vec::new();
    for (i, k) in LEVELS.iter().enumerate() {
        if i > 0 {
            level = next_level(&level);
        }
        debug_assert_eq!(*k, MIN_LEVEL + LEVEL_STEP * i as u32);
        all.extend(level.iter().map(|(b, s)| (*k, *b, *s)));
    }
    // Only blocks that start at or before the last stored step can hold stored points.
    let wanted: Vec<(u32, i64)> = all
        .iter()
        .filter(|(k, b, _)| last_step.is_some_and(|last| (b << k) <= last))
        .map(|(k, b, _)| (*k, *b))
        .collect();
    let stored = blocks::read_wanted(c, sid, &wanted)?;
    chunks::update(c, sid, new, |b| {
        stored.get(&(MIN_LEVEL, b)).map_or(0, |s| s.n)
    })?;
    for (k, b, s) in &mut all {
        if let Some(old) = stored.get(&(*k, *b)) {
            *s = old.merge(s);
        }
    }
    blocks::write_all(c, sid, &all)?;
    Ok(())
}
