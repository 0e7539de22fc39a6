//! Downsampled metric series for charts.

use serde::{Deserialize, Serialize};

use crate::F64;

/// What a chart's x axis measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum XAxis {
    /// The logged step.
    #[default]
    Step,
    /// Wall-clock time (timestamp, ms since the epoch).
    Wall,
    /// Milliseconds since the run's start.
    Relative,
}

/// One point of a series as logged (never interpolated).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// Step.
    pub step: i64,
    /// Timestamp, ms since the epoch.
    pub timestamp: i64,
    /// Value; NaN and ±inf kept.
    pub value: F64,
}

/// `GET /api/v1/runs/{id}/series?key=&x=&width=&x_min=&x_max=`: one metric of one run,
/// reduced with M4 (first, last, min and max per pixel column of `width` columns over
/// `[x_min, x_max]`), so the line drawn from `points` equals the line drawn from every point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricSeries {
    /// Run id.
    pub run_id: String,
    /// Metric key.
    pub key: String,
    /// The x axis the columns were computed on.
    pub x_axis: XAxis,
    /// Origin of relative times, ms since the epoch: the run's start, or the series' first
    /// timestamp when points precede the start (relative x = timestamp − this).
    pub run_start_time: i64,
    /// Points logged in the requested x range (before reduction).
    pub points_in_range: u64,
    /// Points logged in total for this key.
    pub total_points: u64,
    /// X extent of the whole series on `x_axis` (`None` when the series is empty).
    pub x_extent: Option<(f64, f64)>,
    /// Finite points after M4 reduction, ordered by x.
    pub points: Vec<SeriesPoint>,
    /// Non-finite points (NaN, ±inf) in range, at most one of each kind per pixel column,
    /// ordered by x, so the chart can mark them.
    pub non_finite: Vec<SeriesPoint>,
    /// With another metric as the x axis (`x_key` of
    /// [`SeriesBatchQuery`](crate::workspace::SeriesBatchQuery)): the x of each of `points`,
    /// aligned with it (and `non_finite` is empty). Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub x_values: Vec<F64>,
}
