//! Writing a series' points: the only place `metric_points` is written. Each call inserts
//! the points (identical ones de-duplicated), then folds the new ones into the series'
//! block summaries, its point count and its time-order flag, all in the caller's
//! transaction. Points are never updated or deleted, so the summaries only ever grow.

use api_types as json;
use rusqlite::{params, Connection};

use super::block::{next_level, point_order, Block, LEVELS, LEVEL_STEP, MIN_LEVEL};
use super::blocks;
use crate::tracking::model::{to_stored, Point};
use crate::Error;

/// Inserts `points` into series `sid` and maintains its summaries; returns how many were
/// new (a point identical to a stored one is not stored again).
pub fn insert_points(c: &Connection, sid: i64, points: &[Point]) -> Result<u64, Error> {
    if points.is_empty() {
        return Ok(0);
    }
    let ordered = was_time_ordered(c, sid)?;
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
    if new.is_empty() {
        return Ok(0);
    }
    new.sort_by(point_order);
    let still_ordered = ordered.is_some_and(|prior| appends_in_order(prior, &new));
    update_blocks(c, sid, &new)?;
    let added = new.len() as u64;
    c.prepare_cached(
        "UPDATE metric_series SET point_count = point_count + ?2, time_ordered = ?3 \
         WHERE series_id = ?1",
    )?
    .execute(params![sid, added as i64, still_ordered])?;
    Ok(added)
}

/// Before the insert: `None` when the series is not time-ordered, else its largest step
/// and timestamp (`None` inside when it has no points yet).
fn was_time_ordered(c: &Connection, sid: i64) -> Result<Option<Option<(i64, i64)>>, Error> {
    let ordered: bool = c
        .prepare_cached("SELECT time_ordered FROM metric_series WHERE series_id = ?1")?
        .query_row([sid], |r| r.get(0))?;
    if !ordered {
        return Ok(None);
    }
    let last: (Option<i64>, Option<i64>) = c
        .prepare_cached(
            "SELECT (SELECT max(step) FROM metric_points WHERE series_id = ?1),
                    (SELECT max(timestamp) FROM metric_points WHERE series_id = ?1)",
        )?
        .query_row([sid], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(Some(last.0.zip(last.1)))
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

/// Folds `new` (sorted in reading order) into the stored blocks of every level: one read
/// and one write per block touched.
fn update_blocks(c: &Connection, sid: i64, new: &[json::SeriesPoint]) -> Result<(), Error> {
    let mut level: Vec<(i64, Block)> = Vec::new();
    for p in new {
        let b = p.step >> MIN_LEVEL;
        match level.last_mut() {
            Some((last, acc)) if *last == b => *acc = acc.merge(&Block::of(*p)),
            _ => level.push((b, Block::of(*p))),
        }
    }
    for (i, k) in LEVELS.iter().enumerate() {
        if i > 0 {
            level = next_level(&level);
        }
        debug_assert_eq!(*k, MIN_LEVEL + LEVEL_STEP * i as u32);
        for (b, s) in &level {
            let merged = match blocks::read_one(c, sid, *k, *b)? {
                Some(old) => old.merge(s),
                None => *s,
            };
            blocks::write(c, sid, *k, *b, &merged)?;
        }
    }
    Ok(())
}
