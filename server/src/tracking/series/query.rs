//! A chart's data: one metric of one run over an x range, streamed from the index in x
//! order through the M4 reducer.

use api_types as json;
use rusqlite::{Connection, OptionalExtension};

use super::downsample::{Reduced, Viewport, M4};
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
pub fn query(c: &Connection, req: SeriesRequest) -> Result<json::MetricSeries, Error> {
    let start: i64 = c
        .prepare_cached("SELECT start_time FROM runs WHERE run_uuid = ?1")?
        .query_row([&req.run_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("run '{}' does not exist", req.run_id)))?;
    let series_id: Option<i64> = c
        .prepare_cached("SELECT series_id FROM metric_series WHERE run_uuid = ?1 AND key = ?2")?
        .query_row([&req.run_id, &req.key], |r| r.get(0))
        .optional()?;
    let mut out = json::MetricSeries {
        run_id: req.run_id,
        key: req.key,
        x_axis: req.axis,
        run_start_time: start,
        points_in_range: 0,
        total_points: 0,
        x_extent: None,
        points: Vec::new(),
        non_finite: Vec::new(),
        x_values: Vec::new(),
    };
    let Some(sid) = series_id else {
        return Ok(out);
    };
    let axis = Axis::new(req.axis, start);
    let Some((lo, hi)) = extent(c, sid, axis)? else {
        return Ok(out);
    };
    out.x_extent = Some((lo, hi));
    let (x_min, x_max) = match (req.x_min, req.x_max) {
        (Some(a), Some(b)) => (a, b),
        (Some(a), None) => (a, hi.max(a)),
        (None, Some(b)) => (lo.min(b), b),
        (None, None) => (lo, hi),
    };
    let view = Viewport::new(req.width, x_min, x_max)?;
    let reduced = reduce_range(c, sid, axis, view)?;
    out.total_points = if x_min <= lo && x_max >= hi {
        reduced.in_range
    } else {
        c.prepare_cached("SELECT count(*) FROM metric_points WHERE series_id = ?1")?
            .query_row([sid], |r| r.get::<_, i64>(0))?
            .max(0) as u64
    };
    out.points_in_range = reduced.in_range;
    out.points = reduced.points;
    out.non_finite = reduced.non_finite;
    Ok(out)
}

/// How a stored point maps to x: by step, or by timestamp shifted by `offset`.
#[derive(Clone, Copy)]
enum Axis {
    Step,
    Time { offset: i64 },
}

impl Axis {
    fn new(axis: json::XAxis, start: i64) -> Self {
        match axis {
            json::XAxis::Step => Axis::Step,
            json::XAxis::Wall => Axis::Time { offset: 0 },
            json::XAxis::Relative => Axis::Time { offset: start },
        }
    }

    fn offset(self) -> i64 {
        match self {
            Axis::Step => 0,
            Axis::Time { offset } => offset,
        }
    }

    /// The stored column this axis reads and orders by.
    fn column(self) -> &'static str {
        match self {
            Axis::Step => "step",
            Axis::Time { .. } => "timestamp",
        }
    }
}

/// The series' first and last x, from the index ends (no scan).
fn extent(c: &Connection, sid: i64, axis: Axis) -> Result<Option<(f64, f64)>, Error> {
    let col = axis.column();
    let sql = format!(
        "SELECT (SELECT min({col}) FROM metric_points WHERE series_id = ?1),
                (SELECT max({col}) FROM metric_points WHERE series_id = ?1)"
    );
    let (lo, hi): (Option<i64>, Option<i64>) = c
        .prepare_cached(&sql)?
        .query_row([sid], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let shift = |v: i64| v.saturating_sub(axis.offset()) as f64;
    Ok(lo.zip(hi).map(|(lo, hi)| (shift(lo), shift(hi))))
}

/// Streams the points inside `view` in x order (primary key for steps, the timestamp index
/// for time axes) into the reducer; memory stays proportional to the output.
fn reduce_range(c: &Connection, sid: i64, axis: Axis, view: Viewport) -> Result<Reduced, Error> {
    let sql = match axis {
        Axis::Step => {
            "SELECT step, timestamp, is_nan, value FROM metric_points
              WHERE series_id = ?1 AND step BETWEEN ?2 AND ?3
              ORDER BY step, timestamp, is_nan, value"
        }
        Axis::Time { .. } => {
            "SELECT step, timestamp, is_nan, value FROM metric_points
              WHERE series_id = ?1 AND timestamp BETWEEN ?2 AND ?3
              ORDER BY timestamp, step, is_nan, value"
        }
    };
    // Float bounds to the integers inside them (`as` saturates at the i64 range).
    let lo = (view.x_min().ceil() as i64).saturating_add(axis.offset());
    let hi = (view.x_max().floor() as i64).saturating_add(axis.offset());
    let mut stmt = c.prepare_cached(sql)?;
    let mut rows = stmt.query(rusqlite::params![sid, lo, hi])?;
    let mut m4 = M4::new(view);
    while let Some(r) = rows.next()? {
        let step: i64 = r.get(0)?;
        let timestamp: i64 = r.get(1)?;
        let nan: bool = r.get(2)?;
        let value: f64 = r.get(3)?;
        let x = match axis {
            Axis::Step => step as f64,
            Axis::Time { offset } => timestamp.saturating_sub(offset) as f64,
        };
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
