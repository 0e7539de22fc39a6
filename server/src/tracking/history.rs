//! Metric history: every point of a run's metric (paged), and the step-sampled
//! multi-run history behind `get-history-bulk-interval`.

use std::collections::BTreeSet;

use rusqlite::{params, Connection, OptionalExtension};

use super::model::{from_stored, Point};
use super::runs;
use crate::Error;

/// Most run ids one bulk-interval request may name.
pub const MAX_BULK_RUNS: usize = 100;
/// Most sampled steps per bulk-interval request.
pub const MAX_BULK_RESULTS: usize = 2500;

fn series_of(conn: &Connection, run_id: &str, key: &str) -> Result<Option<i64>, Error> {
    Ok(conn
        .prepare_cached("SELECT series_id FROM metric_series WHERE run_uuid = ?1 AND key = ?2")?
        .query_row(params![run_id, key], |r| r.get(0))
        .optional()?)
}

fn point(r: &rusqlite::Row<'_>) -> rusqlite::Result<Point> {
    Ok(Point {
        step: r.get(0)?,
        timestamp: r.get(1)?,
        value: from_stored(r.get(2)?, r.get(3)?),
    })
}

/// Points of `key` in run `run_id` ordered by (timestamp, step, value), skipping `offset`,
/// at most `limit` (`None` = all). The run must exist.
pub fn get_history(
    conn: &Connection,
    run_id: &str,
    key: &str,
    offset: usize,
    limit: Option<usize>,
) -> Result<Vec<Point>, Error> {
    runs::get_info(conn, run_id)?;
    let Some(series) = series_of(conn, run_id, key)? else {
        return Ok(Vec::new());
    };
    let limit = limit.map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
    let mut stmt = conn.prepare_cached(
        "SELECT step, timestamp, is_nan, value FROM metric_points WHERE series_id = ?1 \
         ORDER BY timestamp, step, is_nan, value LIMIT ?2 OFFSET ?3",
    )?;
    let offset = i64::try_from(offset).unwrap_or(i64::MAX);
    let points = stmt
        .query_map(params![series, limit, offset], point)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(points)
}

/// Picks at most `max` of the sorted `steps`, evenly spaced, always keeping the first
/// and the last.
pub fn sample_steps(steps: &[i64], max: usize) -> Vec<i64> {
    if steps.len() <= max {
        return steps.to_vec();
    }
    if max <= 1 {
        return steps.first().copied().into_iter().collect();
    }
    let n = steps.len() - 1;
    let picks: BTreeSet<i64> = (0..max).map(|i| steps[i * n / (max - 1)]).collect();
    picks.into_iter().collect()
}

/// For each run (in order) the points of `key` at a common sample of at most `max_results`
/// steps within `[start, end]` (inclusive; `None` = all), plus each run's own first and last
/// step in range so the ends of every line survive. Unknown runs contribute nothing.
pub fn bulk_interval(
    conn: &Connection,
    run_ids: &[String],
    key: &str,
    range: Option<(i64, i64)>,
    max_results: usize,
) -> Result<Vec<(String, Point)>, Error> {
    let (lo, hi) = range.unwrap_or((i64::MIN, i64::MAX));
    let mut per_run: Vec<(String, i64, Vec<i64>)> = Vec::new();
    let mut all: BTreeSet<i64> = BTreeSet::new();
    let mut steps_stmt = conn.prepare_cached(
        "SELECT DISTINCT step FROM metric_points WHERE series_id = ?1 AND step BETWEEN ?2 AND ?3 \
         ORDER BY step",
    )?;
    for run_id in run_ids {
        let Some(series) = series_of(conn, run_id, key)? else {
            continue;
        };
        let steps = steps_stmt
            .query_map(params![series, lo, hi], |r| r.get(0))?
            .collect::<Result<Vec<i64>, _>>()?;
        all.extend(steps.iter().copied());
        per_run.push((run_id.clone(), series, steps));
    }
    let all: Vec<i64> = all.into_iter().collect();
    let sampled: BTreeSet<i64> = sample_steps(&all, max_results).into_iter().collect();
    let mut at_step = conn.prepare_cached(
        "SELECT step, timestamp, is_nan, value FROM metric_points WHERE series_id = ?1 \
         AND step = ?2 ORDER BY timestamp, is_nan, value",
    )?;
    let mut out = Vec::new();
    for (run_id, series, steps) in per_run {
        let ends = [steps.first(), steps.last()];
        for step in steps
            .iter()
            .filter(|s| sampled.contains(s) || ends.contains(&Some(s)))
        {
            for p in at_step.query_map(params![series, step], point)? {
                out.push((run_id.clone(), p?));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::sample_steps;

    #[test]
    fn sampling_keeps_ends_and_bounds_count() {
        let steps: Vec<i64> = (0..10_000).collect();
        let s = sample_steps(&steps, 2500);
        assert!(s.len() <= 2500);
        assert_eq!(s.first(), Some(&0));
        assert_eq!(s.last(), Some(&9999));
        assert_eq!(sample_steps(&[1, 5, 9], 10), vec![1, 5, 9]);
        assert_eq!(sample_steps(&[1, 5, 9], 1), vec![1]);
        assert_eq!(sample_steps(&[1, 5, 9], 2), vec![1, 9]);
    }
}
