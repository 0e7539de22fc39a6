//! Metric history: every point of a run's metric (paged), and the sampled multi-run
//! history behind `get-history-bulk-interval` (the sampler is in `bulk`).

use crate::db::{params, Conn, Engine, OptionalExtension};

use super::model::{from_stored, Point};
use super::runs;
use super::series::{self, interval::Piece};
use crate::Error;
use api_types as json;

mod bulk;

/// Most run ids one bulk-interval request may name.
pub(crate) const MAX_BULK_RUNS: usize = 100;
/// Most points sampled per run in one bulk-interval request (MLflow's `MAX_RESULTS_PER_RUN`).
pub(crate) const MAX_BULK_RESULTS: usize = 2500;

fn series_of(conn: &Conn, run_id: &str, key: &str) -> Result<Option<i64>, Error> {
    Ok(conn
        .prepare_cached("SELECT series_id FROM metric_series WHERE run_uuid = ?1 AND key = ?2")?
        .query_row(params![run_id, key], |r| r.get(0))
        .optional()?)
}

fn point(r: &crate::db::Row<'_>) -> crate::db::Result<Point> {
    Ok(Point {
        step: r.get(0)?,
        timestamp: r.get(1)?,
        value: from_stored(r.get(2)?, r.get(3)?),
    })
}

/// Points of `key` in run `run_id` ordered by (timestamp, step, value), skipping `offset`,
/// at most `limit` (`None` = all). The run must exist.
pub(crate) fn get_history(
    conn: &Conn,
    run_id: &str,
    key: &str,
    offset: usize,
    limit: Option<usize>,
) -> Result<Vec<Point>, Error> {
    runs::get_info(conn, run_id)?;
    let Some(series) = series_of(conn, run_id, key)? else {
        return Ok(Vec::new());
    };
    let limit = limit.map_or(i64::MAX, |l| i64::try_from(l).unwrap_or(i64::MAX));
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

/// For each run in `run_ids` (in order, unknown runs contributing nothing) the sample of
/// its points of `key` with steps in `[start, end]` (inclusive; `None` = all) that MLflow
/// 3.17.2 returns for `max_results` (at most that many, each run sampled on its own, see
/// the module `bulk`), plus the farthest spikes that sample hides (at most a tenth more).
/// A series of more than [`SCAN_PER_BUCKET`] points a bucket is sampled from its block
/// summaries (`series::interval`: rows read grow with `max_results`, not with the points),
/// a smaller one by streaming its points; both give the same answer.
pub(crate) fn bulk_interval(
    conn: &Conn,
    run_ids: &[String],
    key: &str,
    range: Option<(i64, i64)>,
    max_results: usize,
) -> Result<Vec<(String, Point)>, Error> {
    let mut out = Vec::new();
    for run_id in run_ids {
        let Some(series) = series_of(conn, run_id, key)? else {
            continue;
        };
        let points: i64 = conn
            .prepare_cached("SELECT point_count FROM metric_series WHERE series_id = ?1")?
            .query_row(params![series], |r| r.get(0))?;
        let many = u64::try_from(points).unwrap_or(0) > SCAN_PER_BUCKET * max_results as u64;
        let sample = if many {
            sample_summaries(conn, series, range, max_results)?
        } else {
            sample_points(conn, series, range, max_results)?
        };
        out.extend(sample.into_iter().map(|p| (run_id.clone(), p)));
    }
    Ok(out)
}

/// Up to this many points a bucket (on average over the whole series), a run's sample
/// streams its points: then nearly every lowest-level block holds a bucket's first point,
/// and the summaries would be read on top of them.
pub const SCAN_PER_BUCKET: u64 = 4;

/// The sample of series `series` streamed from every point in range: one statement counts
/// them, one reads them in order.
pub fn sample_points(
    conn: &Conn,
    series: i64,
    range: Option<(i64, i64)>,
    max_results: usize,
) -> Result<Vec<Point>, Error> {
    let (lo, hi) = range.unwrap_or((i64::MIN, i64::MAX));
    let total: i64 = conn
        .prepare_cached(
            "SELECT count(*) FROM metric_points WHERE series_id = ?1 AND step BETWEEN ?2 AND ?3",
        )?
        .query_row(params![series, lo, hi], |r| r.get(0))?;
    if total == 0 {
        return Ok(Vec::new());
    }
    // The primary key's order, so SQLite sorts nothing: MLflow's (step, timestamp, value),
    // but a NaN after the numbers logged at the same step and timestamp (MLflow sorts it as
    // the 0 it stores).
    let mut points = conn.prepare_cached(
        "SELECT step, timestamp, is_nan, value FROM metric_points WHERE series_id = ?1 \
         AND step BETWEEN ?2 AND ?3 ORDER BY step, timestamp, is_nan, value",
    )?;
    let mut sampler = bulk::Sampler::new(u64::try_from(total).unwrap_or(0), max_results);
    let mut rows = points.query(params![series, lo, hi])?;
    while let Some(row) = rows.next()? {
        sampler.push(point(&row)?);
    }
    Ok(sampler.finish())
}

/// Whether the database keeps the sign of a stored zero (PostgreSQL's `double precision`
/// does; SQLite reads -0.0 back as 0.0).
fn keeps_signed_zero(conn: &Conn) -> bool {
    matches!(conn.engine(), Engine::Postgres)
}

/// The sample of series `series` from its block summaries: each bucket's first point and
/// the last point exactly, the stretches between as summaries.
pub fn sample_summaries(
    conn: &Conn,
    series: i64,
    range: Option<(i64, i64)>,
    max_results: usize,
) -> Result<Vec<Point>, Error> {
    let range = range.unwrap_or((i64::MIN, i64::MAX));
    let (total, pieces) = series::interval::pieces(conn, series, range, |total| {
        bulk::Sampler::new(total, max_results).wanted()
    })?;
    let mut sampler = bulk::Sampler::new(total, max_results);
    // Summaries and chunks keep a value as logged; SQLite stores -0.0 as 0.0, and the
    // answer is the stored points'.
    let signed_zero = keeps_signed_zero(conn);
    let of = |p: json::SeriesPoint| Point {
        step: p.step,
        timestamp: p.timestamp,
        value: if p.value.0 == 0.0 && !signed_zero {
            0.0
        } else {
            p.value.0
        },
    };
    for piece in pieces {
        match piece {
            Piece::Points(points) => points.into_iter().for_each(|p| sampler.push(of(p))),
            Piece::Span { n, low, high } => sampler.push_span(n, low.map(of), high.map(of)),
        }
    }
    Ok(sampler.finish())
}
