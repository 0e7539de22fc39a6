//! A chart's data: one metric of one run over an x range, streamed from the index in x
//! order through the M4 reducer.

use std::collections::HashSet;

use crate::db::{Conn, OptionalExtension};
use api_types as json;

use super::axis::Axis;
use super::block::level_for;
use super::cover;
use super::downsample::{Reduced, Reducer, Reduction, Sample, Viewport, M4};
use super::scan::{Order, Scan};
use crate::Error;

/// What a series request asks for, validated.
pub struct SeriesRequest {
    /// The run.
    pub run_id: String,
    /// The metric key.
    pub key: String,
    /// What x is.
    pub axis: json::XAxis,
    /// Pixel columns.
    pub width: u32,
    /// Left end of the range; the series' first x when `None`.
    pub x_min: Option<f64>,
    /// Right end of the range; the series' last x when `None`.
    pub x_max: Option<f64>,
}

/// One metric of one run reduced with M4 to `width` pixel columns over the requested range
/// on the chosen axis. A key the run never logged gives an empty series; an unknown run
/// `Error::NotFound`; a bad range or width `Error::InvalidParameter`.
///
/// Relative times (the `relative` axis, and `run_start_time` on every axis) are measured
/// from the series' origin: the run's start, or the series' first timestamp when points
/// were logged before the run started (a client whose clock is behind the server's, a
/// run created with an explicit later `start_time`).
pub fn query(c: &Conn, req: SeriesRequest) -> Result<json::MetricSeries, Error> {
    let found = open(c, &req)?;
    let (mut out, Some(sid)) = found else {
        return Ok(found.0);
    };
    let axis = Axis::new(req.axis, out.run_start_time);
    let Some((lo, hi)) = extent(c, sid, axis)? else {
        return Ok(out);
    };
    out.x_extent = Some((lo, hi));
    let view = view_of(&req, lo, hi)?;
    let info = info(c, sid)?;
    let reduced = match plan(c, sid, axis, &view, &info, (lo, hi))? {
        Some(Plan { steps, top }) => cover::reduce(c, sid, axis, view, steps, top)?.0,
        None => reduce_range(c, sid, axis, view)?,
    };
    out.total_points = info.points;
    out.points_in_range = reduced.in_range;
    out.points = reduced.points;
    out.non_finite = reduced.non_finite;
    Ok(out)
}

/// One metric of one run against another metric of the same run (`x_key`) as the x axis:
/// the points whose step has a finite `x_key` value (its last one logged at that step),
/// reduced with M4 on the step axis over `[x_min, x_max]` *steps*, each with its x in
/// `x_values`. Non-finite values are left out (they have no place on such a chart).
/// `x_axis` is `step`, `x_extent` the series' step extent.
pub(crate) fn query_x_key(
    c: &Conn,
    req: SeriesRequest,
    x_key: &str,
) -> Result<json::MetricSeries, Error> {
    let req = SeriesRequest {
        axis: json::XAxis::Step,
        ..req
    };
    let found = open(c, &req)?;
    let (mut out, Some(sid)) = found else {
        return Ok(found.0);
    };
    let Some((lo, hi)) = extent(c, sid, Axis::Step)? else {
        return Ok(out);
    };
    out.x_extent = Some((lo, hi));
    let view = view_of(&req, lo, hi)?;
    let x_sid = series_id(c, &req.run_id, x_key)?;
    let reduced = match x_sid {
        Some(x_sid) => reduce_joined(c, sid, x_sid, view)?,
        None => Reduction::default(),
    };
    // Points without an x are not in `in_range`: the stored count has them all.
    out.total_points = info(c, sid)?.points;
    out.points_in_range = reduced.in_range;
    (out.points, out.x_values) = reduced
        .points
        .into_iter()
        .map(|p| (p.point, json::F64(p.x)))
        .unzip();
    Ok(out)
}

/// Which of `run_ids` are runs of experiment `experiment_id` (deleted ones included).
pub(crate) fn runs_of_experiment(
    c: &Conn,
    experiment_id: i64,
    run_ids: &[String],
) -> Result<HashSet<String>, Error> {
    let mut stmt =
        c.prepare_cached("SELECT run_uuid FROM runs WHERE run_uuid = ?1 AND experiment_id = ?2")?;
    let mut found = HashSet::new();
    for id in run_ids {
        if let Some(id) = stmt
            .query_row(crate::db::params![id, experiment_id], |r| r.get(0))
            .optional()?
        {
            found.insert(id);
        }
    }
    Ok(found)
}

/// The answer's frame for `req` (no points yet) with the series' id, `None` when the run
/// never logged the key. The run's start becomes the series' origin when its first point
/// is older.
fn open(c: &Conn, req: &SeriesRequest) -> Result<(json::MetricSeries, Option<i64>), Error> {
    let start: i64 = c
        .prepare_cached("SELECT start_time FROM runs WHERE run_uuid = ?1")?
        .query_row([&req.run_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("run '{}' does not exist", req.run_id)))?;
    let sid = series_id(c, &req.run_id, &req.key)?;
    let first: Option<i64> = match sid {
        Some(sid) => c
            .prepare_cached("SELECT min(timestamp) FROM metric_points WHERE series_id = ?1")?
            .query_row([sid], |r| r.get(0))?,
        None => None,
    };
    let out = json::MetricSeries {
        run_id: req.run_id.clone(),
        key: req.key.clone(),
        x_axis: req.axis,
        run_start_time: first.map_or(start, |t| t.min(start)),
        points_in_range: 0,
        total_points: 0,
        x_extent: None,
        points: Vec::new(),
        non_finite: Vec::new(),
        x_values: Vec::new(),
    };
    Ok((out, sid))
}

fn series_id(c: &Conn, run_id: &str, key: &str) -> Result<Option<i64>, Error> {
    Ok(
        c.prepare_cached("SELECT series_id FROM metric_series WHERE run_uuid = ?1 AND key = ?2")?
            .query_row([run_id, key], |r| r.get(0))
            .optional()?,
    )
}

/// The requested range, its open ends filled from the series' extent `lo..=hi`.
fn view_of(req: &SeriesRequest, lo: f64, hi: f64) -> Result<Viewport, Error> {
    let (x_min, x_max) = match (req.x_min, req.x_max) {
        (Some(a), Some(b)) => (a, b),
        (Some(a), None) => (a, hi.max(a)),
        (None, Some(b)) => (lo.min(b), b),
        (None, None) => (lo, hi),
    };
    Viewport::new(req.width, x_min, x_max)
}

/// What `metric_series` keeps about a series besides its points.
struct Info {
    /// Its point count.
    points: u64,
    /// Whether its timestamps never decrease as steps grow (conservatively: it may be
    /// false for a series that is).
    time_ordered: bool,
}

fn info(c: &Conn, sid: i64) -> Result<Info, Error> {
    Ok(c.prepare_cached(
        "SELECT point_count, time_ordered FROM metric_series WHERE series_id = ?1",
    )?
    .query_row([sid], |r| {
        Ok(Info {
            points: r.get::<_, i64>(0)?.max(0) as u64,
            time_ordered: r.get(1)?,
        })
    })?)
}

/// Up to this many points a pixel column (as estimated), a chart scans its points.
/// Measured at 1,000 px in a release build (`bench/chart_bench.py`, 2026-12-02): on SQLite
/// a scan of 100,000 points (a 10 % zoom into 1,000,000) took 22 ms, the block path over
/// the same shape of chart 13 ms; on PostgreSQL every row read costs more (a scan of
/// 100,000 points took 155 ms there, the block path 16–28 ms). A dense series scans
/// below 64 points a column whatever this says: its columns are then narrower than the
/// lowest level's blocks ([`plan`]).
fn scan_per_column(d: crate::db::Engine) -> f64 {
    match d {
        crate::db::Engine::Sqlite => 64.0,
        crate::db::Engine::Postgres => 40.0,
    }
}

/// Whether the chart reads blocks ([`cover`]) and, if so, over which steps and from which
/// level: when its columns span at least a lowest-level block of steps each and the range
/// holds (judged from the point count and extent) more than [`scan_per_column`] points a
/// column. On a time axis only for a time-ordered series, whose time range is then a step
/// range (its points' steps from the first point at or after the start to the last at or
/// before the end). Otherwise the points are scanned.
fn plan(
    c: &Conn,
    sid: i64,
    axis: Axis,
    view: &Viewport,
    info: &Info,
    (x_lo, x_hi): (f64, f64),
) -> Result<Option<Plan>, Error> {
    // The points in range if they were spread evenly over the extent.
    let covered = view.x_max().min(x_hi) - view.x_min().max(x_lo);
    let share = if x_hi > x_lo {
        (covered / (x_hi - x_lo)).clamp(0.0, 1.0)
    } else {
        1.0
    };
    if info.points as f64 * share <= scan_per_column(c.engine()) * f64::from(view.width()) {
        return Ok(None);
    }
    let lo = (view.x_min().ceil() as i64).saturating_add(axis.offset());
    let hi = (view.x_max().floor() as i64).saturating_add(axis.offset());
    let steps = match axis {
        Axis::Step => (lo, hi),
        Axis::Time { .. } => {
            if !info.time_ordered {
                return Ok(None);
            }
            let first: Option<i64> = c
                .prepare_cached(
                    "SELECT step FROM metric_points WHERE series_id = ?1 AND timestamp >= ?2
                      ORDER BY timestamp, step LIMIT 1",
                )?
                .query_row(crate::db::params![sid, lo], |r| r.get(0))
                .optional()?;
            let last: Option<i64> = c
                .prepare_cached(
                    "SELECT step FROM metric_points WHERE series_id = ?1 AND timestamp <= ?2
                      ORDER BY timestamp DESC, step DESC LIMIT 1",
                )?
                .query_row(crate::db::params![sid, hi], |r| r.get(0))
                .optional()?;
            match first.zip(last) {
                Some(steps) => steps,
                None => return Ok(None),
            }
        }
    };
    if steps.0 > steps.1 {
        return Ok(None);
    }
    let per_column = (steps.1 as f64 - steps.0 as f64 + 1.0) / f64::from(view.width());
    Ok(level_for(per_column).map(|top| Plan { steps, top }))
}

/// How the block path covers a chart.
struct Plan {
    /// The steps to cover (inclusive).
    steps: (i64, i64),
    /// The level to start from.
    top: u32,
}

/// The series' first and last x, from the index ends (no scan).
fn extent(c: &Conn, sid: i64, axis: Axis) -> Result<Option<(f64, f64)>, Error> {
    let shift = |v: i64| v.saturating_sub(axis.offset()) as f64;
    Ok(axis
        .stored_extent(c, sid)?
        .map(|(lo, hi)| (shift(lo), shift(hi))))
}

/// Streams the points inside `view` in x order (primary key for steps, the timestamp index
/// for time axes) into the reducer, a page of points at a time ([`Scan`]); memory stays
/// proportional to the output and a page.
pub(super) fn reduce_range(
    c: &Conn,
    sid: i64,
    axis: Axis,
    view: Viewport,
) -> Result<Reduced, Error> {
    let order = match axis {
        Axis::Step => Order::Step,
        Axis::Time { .. } => Order::Time,
    };
    // Float bounds to the integers inside them (`as` saturates at the i64 range).
    let lo = (view.x_min().ceil() as i64).saturating_add(axis.offset());
    let hi = (view.x_max().floor() as i64).saturating_add(axis.offset());
    let mut m4 = M4::new(view);
    for p in Scan::new(c, sid, order, (lo, hi), false) {
        let (step, timestamp, nan, value) = p?;
        let x = axis.x(step, timestamp);
        let value = json::F64(if nan { f64::NAN } else { value });
        m4.push(
            x,
            json::SeriesPoint {
                step,
                timestamp,
                value,
            },
        );
    }
    Ok(m4.finish())
}

/// A point of the y series with the x series' value at its step.
#[derive(Debug, Clone, Copy)]
struct Paired {
    point: json::SeriesPoint,
    x: f64,
}

impl Sample for Paired {
    fn y(&self) -> f64 {
        self.point.value.0
    }
}

/// The y series' points in `view` (steps) joined on step with the x series (its last
/// finite value per step), both read in step order in one pass (a merge join), into the
/// reducer. Points without an x, and non-finite ones, are left out.
fn reduce_joined(
    c: &Conn,
    sid: i64,
    x_sid: i64,
    view: Viewport,
) -> Result<Reduction<Paired>, Error> {
    let lo = view.x_min().ceil() as i64;
    let hi = view.x_max().floor() as i64;
    let mut y_rows = Scan::new(c, sid, Order::Step, (lo, hi), true);
    let mut x_rows = Scan::new(c, x_sid, Order::Step, (lo, hi), true);
    let mut next_x = || -> Result<Option<(i64, f64)>, Error> {
        Ok(x_rows
            .next()
            .transpose()?
            .map(|(step, _, _, value)| (step, value)))
    };
    let mut peeked = next_x()?;
    // The x of the last step looked up (several y points may share a step).
    let mut at: Option<(i64, Option<f64>)> = None;
    let mut m4 = Reducer::new(view);
    while let Some((step, timestamp, _, value)) = y_rows.next().transpose()? {
        if !value.is_finite() {
            continue;
        }
        let x = match at {
            Some((s, x)) if s == step => x,
            _ => {
                while peeked.is_some_and(|(s, _)| s < step) {
                    peeked = next_x()?;
                }
                let mut x = None;
                while let Some((_, v)) = peeked.filter(|(s, _)| *s == step) {
                    if v.is_finite() {
                        x = Some(v);
                    }
                    peeked = next_x()?;
                }
                at = Some((step, x));
                x
            }
        };
        let Some(x) = x else { continue };
        let point = json::SeriesPoint {
            step,
            timestamp,
            value: json::F64(value),
        };
        m4.push(step as f64, Paired { point, x });
    }
    Ok(m4.finish())
}
