//! Writing a series' points: the only place `metric_points` is written. Each call inserts
//! the points (identical ones de-duplicated), then folds the new ones into the series'
//! block summaries and chunks, its point count and its time-order flag, all in the caller's
//! transaction. Points are never updated or deleted, so the summaries only ever grow.
//!
//! A call takes the points of any number of series (a log-batch's keys) and writes them
//! together, a statement for each step whatever the number of series: on PostgreSQL each
//! statement is a round trip, and a batch of ten keys one step each used to cost about
//! twelve statements a key.

use std::collections::HashMap;

use crate::db::sql::{json_array, json_int_list};
use crate::db::{params_from_iter, Conn, Engine, Value};
use api_types as json;

use super::block::{next_level, point_order, top_level, Block, LEVELS, MIN_LEVEL};
use super::blocks;
use super::chunks;
use crate::tracking::model::{from_stored, to_stored, Point};
use crate::Error;

/// Inserts `points` into series `sid` and maintains its summaries; returns how many were
/// new (a point identical to a stored one is not stored again).
pub fn insert_points(c: &Conn, sid: i64, points: &[Point]) -> Result<u64, Error> {
    Ok(insert_series(c, &[(sid, points)])?[0])
}

/// [`insert_points`] for several series at once, each named once: `(series id, points)`.
/// Returns how many points were new in each, in the order given.
pub(crate) fn insert_series(c: &Conn, series: &[(i64, &[Point])]) -> Result<Vec<u64>, Error> {
    let mut added = vec![0u64; series.len()];
    let written: Vec<(i64, &[Point])> = series
        .iter()
        .filter(|(_, points)| !points.is_empty())
        .copied()
        .collect();
    if written.is_empty() {
        return Ok(added);
    }
    let sids: Vec<i64> = written.iter().map(|(sid, _)| *sid).collect();
    let before = priors(c, &sids)?;
    let mut new = match c.engine() {
        Engine::Sqlite => insert_each(c, &written)?,
        Engine::Postgres => insert_rows(c, &written)?,
    };
    let mut changes: Vec<Change> = Vec::with_capacity(written.len());
    for sid in sids {
        let Some(mut points) = new.remove(&sid).filter(|p| !p.is_empty()) else {
            continue;
        };
        let prior = before.get(&sid).ok_or_else(|| {
            Error::Internal(format!("metric series {sid} vanished during a write"))
        })?;
        points.sort_by(point_order);
        changes.push(Change {
            sid,
            still_ordered: prior.time_ordered && appends_in_order(prior.last, &points),
            steps: prior.steps,
            new: points,
        });
    }
    if changes.is_empty() {
        return Ok(added);
    }
    update_blocks(c, &changes)?;
    update_series(c, &changes)?;
    let counts: HashMap<i64, u64> = changes
        .iter()
        .map(|ch| (ch.sid, ch.new.len() as u64))
        .collect();
    for (n, (sid, _)) in added.iter_mut().zip(series) {
        *n = counts.get(sid).copied().unwrap_or(0);
    }
    Ok(added)
}

/// What one call adds to one series.
struct Change {
    sid: i64,
    /// The points it stored (not identical to stored ones), in reading order.
    new: Vec<json::SeriesPoint>,
    /// Its time-order flag after the call.
    still_ordered: bool,
    /// Its smallest and largest step before the call; `None` when it had no points.
    steps: Option<(i64, i64)>,
}

impl Change {
    /// The series' top level before the call (`None`: it had no points, so no summaries).
    fn top_before(&self) -> Option<u32> {
        self.steps.map(top_level)
    }

    /// The series' top level after the call.
    fn top_after(&self) -> u32 {
        // `new` is in reading order, so step order.
        let (first, last) = match (self.new.first(), self.new.last()) {
            (Some(a), Some(b)) => (a.step, b.step),
            _ => return self.top_before().unwrap_or(MIN_LEVEL),
        };
        let (lo, hi) = self
            .steps
            .map_or((first, last), |(lo, hi)| (lo.min(first), hi.max(last)));
        top_level((lo, hi))
    }
}

/// The points stored by one statement each (in-process SQLite: a prepared statement per
/// point is its fastest way); returns the new ones of each series.
fn insert_each(
    c: &Conn,
    series: &[(i64, &[Point])],
) -> Result<HashMap<i64, Vec<json::SeriesPoint>>, Error> {
    let mut insert = c.prepare_cached(
        "INSERT INTO metric_points (series_id, step, timestamp, is_nan, value) \
         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
    )?;
    let mut new: HashMap<i64, Vec<json::SeriesPoint>> = HashMap::new();
    for (sid, points) in series {
        let stored = new.entry(*sid).or_default();
        for p in *points {
            let (is_nan, value) = to_stored(p.value);
            // 0 rows for a point already stored (or repeated within the call).
            if insert.execute(crate::db::params![*sid, p.step, p.timestamp, is_nan, value])? == 1 {
                stored.push(json::SeriesPoint {
                    step: p.step,
                    timestamp: p.timestamp,
                    value: json::F64(p.value),
                });
            }
        }
    }
    Ok(new)
}

/// Points per multi-row insert on a networked database.
const ROWS_PER_INSERT: usize = 200;

/// The points of every series stored [`ROWS_PER_INSERT`] a statement, each statement
/// returning the rows it stored (a round trip per point would dominate over a network);
/// returns the new ones of each series.
fn insert_rows(
    c: &Conn,
    series: &[(i64, &[Point])],
) -> Result<HashMap<i64, Vec<json::SeriesPoint>>, Error> {
    let rows: Vec<(i64, &Point)> = series
        .iter()
        .flat_map(|(sid, points)| points.iter().map(move |p| (*sid, p)))
        .collect();
    let mut new: HashMap<i64, Vec<json::SeriesPoint>> = HashMap::new();
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        let values = vec!["(?, ?, ?, ?, ?)"; chunk.len()].join(", ");
        let sql = format!(
            "INSERT INTO metric_points (series_id, step, timestamp, is_nan, value) \
             VALUES {values} ON CONFLICT DO NOTHING \
             RETURNING series_id, step, timestamp, is_nan, value"
        );
        let mut args = Vec::with_capacity(chunk.len() * 5);
        for (sid, p) in chunk {
            let (is_nan, value) = to_stored(p.value);
            args.extend([
                Value::Integer(*sid),
                Value::Integer(p.step),
                Value::Integer(p.timestamp),
                Value::from(is_nan),
                Value::Real(value),
            ]);
        }
        let mut stmt = c.prepare_cached(&sql)?;
        let stored = stmt.query_map(params_from_iter(args), |r| {
            Ok((
                r.get::<_, i64>(0)?,
                json::SeriesPoint {
                    step: r.get(1)?,
                    timestamp: r.get(2)?,
                    value: json::F64(from_stored(r.get(3)?, r.get(4)?)),
                },
            ))
        })?;
        for row in stored {
            let (sid, p) = row?;
            new.entry(sid).or_default().push(p);
        }
    }
    Ok(new)
}

/// What a series was before the insert.
struct Prior {
    /// Its time-order flag.
    time_ordered: bool,
    /// Its largest step and timestamp; `None` when it has no points yet.
    last: Option<(i64, i64)>,
    /// Its smallest and largest step; `None` when it has no points yet.
    steps: Option<(i64, i64)>,
}

/// Each series' flag, smallest and largest step and largest timestamp (from the indexes'
/// ends), with one statement.
fn priors(c: &Conn, sids: &[i64]) -> Result<HashMap<i64, Prior>, Error> {
    let sql = format!(
        "SELECT s.series_id, s.time_ordered,
                (SELECT max(step) FROM metric_points WHERE series_id = s.series_id),
                (SELECT max(timestamp) FROM metric_points WHERE series_id = s.series_id),
                (SELECT min(step) FROM metric_points WHERE series_id = s.series_id)
           FROM metric_series AS s
          WHERE s.series_id IN {}",
        json_int_list(c.engine(), "?1")
    );
    let mut stmt = c.prepare_cached(&sql)?;
    let rows = stmt.query_map([json_array(sids)?], |r| {
        let (step, ts): (Option<i64>, Option<i64>) = (r.get(2)?, r.get(3)?);
        let first: Option<i64> = r.get(4)?;
        Ok((
            r.get::<_, i64>(0)?,
            Prior {
                time_ordered: r.get(1)?,
                last: step.zip(ts),
                steps: first.zip(step),
            },
        ))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
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

/// Folds each change's new points into the stored blocks of every level up to its series'
/// top level ([`top_level`]) and the lowest level's chunks ([`chunks::update`]): one
/// statement reads the stored blocks touched (none for a block that starts after the
/// series' largest step before the insert: appended points mostly open new blocks),
/// multi-row upserts write them back. A write that raises the top level writes the levels
/// above the old one whole: the old points all lie in the old top's one block, so each new
/// level's block holding them starts as that block's summary.
fn update_blocks(c: &Conn, changes: &[Change]) -> Result<(), Error> {
    // Each change's new points as blocks of every level up to its top, lowest first.
    let mut levels: Vec<Vec<Vec<(i64, Block)>>> = Vec::with_capacity(changes.len());
    let mut wanted: Vec<(i64, u32, i64)> = Vec::new();
    for ch in changes {
        let mut lowest: Vec<(i64, Block)> = Vec::new();
        for p in &ch.new {
            let b = p.step >> MIN_LEVEL;
            match lowest.last_mut() {
                Some((last, acc)) if *last == b => *acc = acc.merge(&Block::of(*p)),
                _ => lowest.push((b, Block::of(*p))),
            }
        }
        let mut mine = vec![lowest];
        for _ in LEVELS.iter().skip(1).take_while(|k| **k <= ch.top_after()) {
            mine.push(next_level(&mine[mine.len() - 1]));
        }
        if let (Some((first, last)), Some(before)) = (ch.steps, ch.top_before()) {
            for (k, level) in LEVELS.iter().zip(&mine).take_while(|(k, _)| **k <= before) {
                // Only blocks that start at or before the last stored step can hold
                // stored points.
                wanted.extend(
                    level
                        .iter()
                        .filter(|(b, _)| (b << k) <= last)
                        .map(|(b, _)| (ch.sid, *k, *b)),
                );
            }
            if before < ch.top_after() {
                wanted.push((ch.sid, before, first >> before));
            }
        }
        levels.push(mine);
    }
    let stored = blocks::read_wanted(c, &wanted)?;
    let chunk_changes: Vec<chunks::Change> = changes
        .iter()
        .map(|ch| chunks::Change {
            sid: ch.sid,
            new: &ch.new,
        })
        .collect();
    chunks::update(c, &chunk_changes, |sid, b| {
        stored.get(&(sid, MIN_LEVEL, b)).map_or(0, |s| s.n)
    })?;
    let mut all: Vec<(i64, u32, i64, Block)> = Vec::new();
    for (ch, mut mine) in changes.iter().zip(levels) {
        let before = ch.top_before();
        if let (Some((first, _)), Some(before)) = (ch.steps, before) {
            if before < ch.top_after() {
                let old = stored
                    .get(&(ch.sid, before, first >> before))
                    .ok_or_else(|| {
                        Error::Internal(format!(
                            "metric series {}: no summary of its points at level {before}",
                            ch.sid
                        ))
                    })?;
                // The first level above the old top gets the old points' block; the
                // levels above it follow from it.
                let i = LEVELS
                    .iter()
                    .position(|k| *k > before)
                    .unwrap_or(mine.len());
                let k = LEVELS[i];
                let level = &mut mine[i];
                match level.binary_search_by_key(&(first >> k), |(b, _)| *b) {
                    Ok(at) => level[at].1 = old.merge(&level[at].1),
                    Err(at) => level.insert(at, (first >> k, *old)),
                }
                for j in i + 1..mine.len() {
                    mine[j] = next_level(&mine[j - 1]);
                }
            }
        }
        for (k, level) in LEVELS.iter().zip(mine) {
            let had = before.is_some_and(|t| *k <= t);
            for (b, s) in level {
                let s = match stored.get(&(ch.sid, *k, b)).filter(|_| had) {
                    Some(old) => old.merge(&s),
                    None => s,
                };
                all.push((ch.sid, *k, b, s));
            }
        }
    }
    blocks::write_all(c, &all)
}

/// Adds each change's new points to its series' count and sets its time-order flag, with
/// one statement.
fn update_series(c: &Conn, changes: &[Change]) -> Result<(), Error> {
    let d = c.engine();
    let sids: Vec<i64> = changes.iter().map(|ch| ch.sid).collect();
    let added: Vec<i64> = changes.iter().map(|ch| ch.new.len() as i64).collect();
    let ordered: Vec<i64> = changes
        .iter()
        .map(|ch| i64::from(ch.still_ordered))
        .collect();
    let sql = match d {
        Engine::Sqlite => "UPDATE metric_series
                SET point_count = point_count + json_extract(?2, '$[' || s.key || ']'),
                    time_ordered = json_extract(?3, '$[' || s.key || ']')
               FROM json_each(?1) AS s
              WHERE metric_series.series_id = s.value"
            .to_owned(),
        Engine::Postgres => format!(
            "UPDATE metric_series AS m
                SET point_count = m.point_count + r.added, time_ordered = r.ordered
               FROM unnest(ARRAY{}, ARRAY{}, ARRAY{}) AS r(sid, added, ordered)
              WHERE m.series_id = r.sid",
            json_int_list(d, "?1"),
            json_int_list(d, "?2"),
            json_int_list(d, "?3")
        ),
    };
    c.prepare_cached(&sql)?.execute(params_from_iter([
        json_array(&sids)?,
        json_array(&added)?,
        json_array(&ordered)?,
    ]))?;
    Ok(())
}
