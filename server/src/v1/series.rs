//! A chart's data (`GET /runs/{id}/series`): one metric of one run over an x range,
//! streamed from the index in x order through the M4 reducer.

use api_types as json;
use axum::extract::State;
use axum::Json;
use rusqlite::{Connection, OptionalExtension};

use super::downsample::{Viewport, M4};
use super::guard::{RunGuard, READ};
use super::query::QueryParams;
use crate::{AppState, Error};

/// Pixel columns when `width` is absent.
const DEFAULT_WIDTH: u32 = 1000;

/// What a series request asks for, validated.
struct SeriesRequest {
    run_id: String,
    key: String,
    axis: json::XAxis,
    width: u32,
    x_min: Option<f64>,
    x_max: Option<f64>,
}

/// `GET /api/v1/runs/{id}/series?key=&x=step|wall|relative&width=&x_min=&x_max=`: the
/// metric `key` (required) of the run reduced with M4 to `width` (1..=10000, default 1000)
/// pixel columns over `[x_min, x_max]` on the chosen axis (default: the series' extent).
/// `wall` is ms since the epoch, `relative` ms since the run's start. A key the run never
/// logged gives an empty series; an unknown run 404; a bad range or width 400.
pub async fn get_metric_series(
    State(state): State<AppState>,
    guard: RunGuard<READ>,
    query: QueryParams,
) -> Result<Json<json::MetricSeries>, Error> {
    let run_id = guard.run_id;
    let key = query
        .get("key")
        .ok_or_else(|| Error::InvalidParameter("key (the metric key) is required".into()))?
        .to_string();
    let axis = match query.get("x") {
        None | Some("step") => json::XAxis::Step,
        Some("wall") => json::XAxis::Wall,
        Some("relative") => json::XAxis::Relative,
        Some(other) => {
            return Err(Error::InvalidParameter(format!(
                "x must be step, wall or relative; got '{other}'"
            )))
        }
    };
    let width = query
        .parse::<u32>("width", "an integer from 1 to 10000")?
        .unwrap_or(DEFAULT_WIDTH);
    let (x_min, x_max) = (query.finite("x_min")?, query.finite("x_max")?);
    // Reject a bad width or an inverted range before touching the store.
    Viewport::new(width, x_min.unwrap_or(f64::MIN), x_max.unwrap_or(f64::MAX))?;
    let req = SeriesRequest {
        run_id,
        key,
        axis,
        width,
        x_min,
        x_max,
    };
    Ok(Json(state.store.call(move |c| series(c, req)).await?))
}

fn series(c: &mut Connection, req: SeriesRequest) -> Result<json::MetricSeries, Error> {
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
fn reduce_range(
    c: &Connection,
    sid: i64,
    axis: Axis,
    view: Viewport,
) -> Result<super::downsample::Reduced, Error> {
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
