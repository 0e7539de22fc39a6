//! Axis ranges and tick labels. The y axis is drawn in a transformed space (identity, or
//! log10 for a log axis) so one linear chart serves both.

use api_types as json;

use super::data::ChartPoint;
use crate::format;

/// The y range in drawing space and in data space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct YRange {
    /// Lower bound in drawing space.
    pub lo: f64,
    /// Upper bound in drawing space.
    pub hi: f64,
    /// Lower bound in data space.
    pub data_lo: f64,
    /// Upper bound in data space.
    pub data_hi: f64,
}

/// Maps a value into drawing space; `None` when a log axis cannot show it (≤ 0).
pub fn to_draw(y: f64, log: bool) -> Option<f64> {
    match (log, y.is_finite()) {
        (_, false) => None,
        (false, true) => Some(y),
        (true, true) if y > 0.0 => Some(y.log10()),
        _ => None,
    }
}

/// Maps a drawing-space value back to data space.
pub fn from_draw(v: f64, log: bool) -> f64 {
    if log {
        10f64.powf(v)
    } else {
        v
    }
}

/// The y range covering every drawable value, padded by 5% (a flat series gets a band
/// around its value; no data gets `[0, 1]`, or `[1, 10]` on a log axis).
pub fn y_range(points: &[ChartPoint], log: bool) -> YRange {
    let mut bounds: Option<(f64, f64)> = None;
    for v in points.iter().filter_map(|p| to_draw(p.y, log)) {
        bounds = Some(match bounds {
            None => (v, v),
            Some((lo, hi)) => (lo.min(v), hi.max(v)),
        });
    }
    let (lo, hi) = match bounds {
        None => (0.0, 1.0),
        Some((lo, hi)) if hi - lo > 0.0 => {
            let pad = (hi - lo) * 0.05;
            (lo - pad, hi + pad)
        }
        Some((v, _)) => {
            let pad = if log {
                0.5
            } else if v == 0.0 {
                1.0
            } else {
                v.abs() * 0.1
            };
            (v - pad, v + pad)
        }
    };
    YRange {
        lo,
        hi,
        data_lo: from_draw(lo, log),
        data_hi: from_draw(hi, log),
    }
}

/// The x range to draw: `range` widened when empty or degenerate.
pub fn x_range(range: Option<(f64, f64)>, axis: json::XAxis) -> (f64, f64) {
    let unit = if axis == json::XAxis::Step {
        1.0
    } else {
        1000.0
    };
    match range {
        Some((lo, hi)) if hi > lo && lo.is_finite() && hi.is_finite() => (lo, hi),
        Some((v, _)) if v.is_finite() => (v - unit, v + unit),
        _ => (0.0, 10.0 * unit),
    }
}

/// Tick label of an x value; `span` is the visible range's width.
pub fn x_label(v: f64, axis: json::XAxis, span: f64) -> String {
    match axis {
        json::XAxis::Step => format::axis(v),
        json::XAxis::Wall if span < 86_400_000.0 => format::time_of_day(v as i64),
        json::XAxis::Wall => format::datetime(v as i64)
            .get(5..16)
            .unwrap_or_default()
            .to_owned(),
        json::XAxis::Relative => format::duration(v as i64),
    }
}

/// Tick label of a y value in drawing space.
pub fn y_label(v: f64, log: bool) -> String {
    format::axis(from_draw(v, log))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(ys: &[f64]) -> Vec<ChartPoint> {
        ys.iter()
            .map(|&y| ChartPoint {
                x: 0.0,
                y,
                step: 0,
                timestamp: 0,
            })
            .collect()
    }

    #[test]
    fn linear_range_is_padded() {
        let r = y_range(&pts(&[0.0, 10.0]), false);
        assert_eq!((r.lo, r.hi), (-0.5, 10.5));
        let flat = y_range(&pts(&[2.0, 2.0]), false);
        assert!(flat.lo < 2.0 && flat.hi > 2.0);
        assert_eq!(y_range(&[], false).hi, 1.0);
    }

    #[test]
    fn log_range_skips_non_positive_values() {
        let r = y_range(&pts(&[-1.0, 0.0, 0.01, 100.0]), true);
        assert!((r.lo - (-2.2)).abs() < 1e-9 && (r.hi - 2.2).abs() < 1e-9);
        assert!((r.data_hi - 10f64.powf(2.2)).abs() < 1e-9);
        assert_eq!(to_draw(0.0, true), None);
        assert_eq!(to_draw(-3.0, false), Some(-3.0));
    }

    #[test]
    fn degenerate_x_ranges_are_widened() {
        assert_eq!(x_range(Some((5.0, 5.0)), json::XAxis::Step), (4.0, 6.0));
        assert_eq!(x_range(None, json::XAxis::Step), (0.0, 10.0));
        assert_eq!(x_range(Some((1.0, 3.0)), json::XAxis::Wall), (1.0, 3.0));
    }
}
