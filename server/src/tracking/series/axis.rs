//! What the chart queries share: how a stored point maps to x ([`Axis`]) and the scan of a
//! series' points by step ([`read_points_with`]). A leaf of `series`, so the block path
//! (`cover`) and the query (`query`) both build on it without a loop.

use api_types as json;

use crate::Error;

/// How a stored point maps to x: by step, or by timestamp shifted by `offset`.
#[derive(Clone, Copy)]
pub(super) enum Axis {
    Step,
    Time { offset: i64 },
}

impl Axis {
    /// The x of a point at `step` and `timestamp`.
    pub(super) fn x(self, step: i64, timestamp: i64) -> f64 {
        match self {
            Axis::Step => step as f64,
            Axis::Time { offset } => timestamp.saturating_sub(offset) as f64,
        }
    }

    pub(super) fn new(axis: json::XAxis, start: i64) -> Self {
        match axis {
            json::XAxis::Step => Axis::Step,
            json::XAxis::Wall => Axis::Time { offset: 0 },
            json::XAxis::Relative => Axis::Time { offset: start },
        }
    }

    pub(super) fn offset(self) -> i64 {
        match self {
            Axis::Step => 0,
            Axis::Time { offset } => offset,
        }
    }

    /// The stored column this axis reads and orders by.
    pub(super) fn column(self) -> &'static str {
        match self {
            Axis::Step => "step",
            Axis::Time { .. } => "timestamp",
        }
    }
}

/// The statement [`read_points_with`] runs.
pub(super) const POINTS_BY_STEP: &str = "SELECT step, timestamp, is_nan, value FROM metric_points
  WHERE series_id = ?1 AND step BETWEEN ?2 AND ?3 ORDER BY step, timestamp, is_nan, value";

/// The points of series `sid` with steps in `lo..=hi`, in reading order (step, timestamp,
/// is_nan, value), each to `f`; `stmt` is [`POINTS_BY_STEP`] prepared (a chart runs it
/// many times).
pub(super) fn read_points_with(
    stmt: &mut crate::db::Stmt<'_>,
    sid: i64,
    (lo, hi): (i64, i64),
    mut f: impl FnMut(json::SeriesPoint),
) -> Result<(), Error> {
    let mut rows = stmt.query(crate::db::params![sid, lo, hi])?;
    while let Some(r) = rows.next()? {
        let nan: bool = r.get(2)?;
        let value: f64 = r.get(3)?;
        f(json::SeriesPoint {
            step: r.get(0)?,
            timestamp: r.get(1)?,
            value: json::F64(if nan { f64::NAN } else { value }),
        });
    }
    Ok(())
}
