//! What the chart queries share: how a stored point maps to x ([`Axis`]), a series' extent
//! on it ([`Axis::stored_extent`]) and the scan of a series' points by step
//! ([`POINTS_BY_STEP`]). A leaf of `series`, so the block path
//! (`cover`) and the query (`query`) both build on it without a loop.

use crate::db::Conn;
use crate::Error;
use api_types as json;

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

    /// The smallest and largest stored value of [`Axis::column`] in series `sid`, from the
    /// ends of its index (no scan); `None` when it has no points.
    pub(super) fn stored_extent(self, c: &Conn, sid: i64) -> Result<Option<(i64, i64)>, Error> {
        let col = self.column();
        let sql = format!(
            "SELECT (SELECT min({col}) FROM metric_points WHERE series_id = ?1),
                    (SELECT max({col}) FROM metric_points WHERE series_id = ?1)"
        );
        let (lo, hi): (Option<i64>, Option<i64>) = c
            .prepare_cached(&sql)?
            .query_row([sid], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(lo.zip(hi))
    }
}

/// The points of a series (`?1`) with steps in `?2..=?3`, in reading order (step,
/// timestamp, is_nan, value).
pub(super) const POINTS_BY_STEP: &str = "SELECT step, timestamp, is_nan, value FROM metric_points
  WHERE series_id = ?1 AND step BETWEEN ?2 AND ?3 ORDER BY step, timestamp, is_nan, value";
