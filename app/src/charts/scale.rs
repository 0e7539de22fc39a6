//! Axis ranges, and which ticks each axis gets. The y axis is drawn in a transformed space
//! (identity, or log10 for a log axis) so one linear chart serves both.

use api_types as json;

use super::data::ChartPoint;
use super::ticks::{TickScale, Ticks};
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

/// The ticks of an x axis over `[lo, hi]`, at most `n`: numbers for steps (and for another
/// metric), durations for relative time, the browser's clock for wall time.
pub fn x_ticks(axis: json::XAxis, lo: f64, hi: f64, n: usize) -> Ticks {
    let scale = match axis {
        json::XAxis::Step => TickScale::Number,
        json::XAxis::Relative => TickScale::Duration,
        json::XAxis::Wall => TickScale::Wall {
            offset_min: format::local_offset_min(((lo + hi) / 2.0) as i64),
        },
    };
    Ticks::new(scale, lo, hi, n)
}

/// The ticks of a y axis over `[lo, hi]` in drawing space, at most `n` (decades and their
/// 1, 2 and 5 on a log axis).
pub fn y_ticks(lo: f64, hi: f64, n: usize, log: bool) -> Ticks {
    let scale = if log {
        TickScale::Log10
    } else {
        TickScale::Number
    };
    Ticks::new(scale, lo, hi, n)
}

/// An x value as a tooltip reads it: the step (or other metric's value), the date and time,
/// or the time since the run's start (`−` before it).
pub fn x_readout(v: f64, axis: json::XAxis) -> String {
    match axis {
        json::XAxis::Step => format::value(v),
        json::XAxis::Wall => format::datetime(v.round() as i64),
        json::XAxis::Relative => {
            let sign = if v < 0.0 { "−" } else { "" };
            format!("{sign}{}", format::duration(v.abs().round() as i64))
        }
    }
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
    fn axes_get_ticks_of_their_kind() {
        // Values around 80,800 spanning 100 read "80.8k" three times before.
        let y = y_ticks(80_750.0, 80_850.0, 5, false);
        assert_eq!(y.labels, ["80.76k", "80.78k", "80.8k", "80.82k", "80.84k"]);
        assert_eq!(y_ticks(-0.05, 1.05, 5, true).labels, ["1", "2", "5", "10"]);
        // Steps 1,000,000 to 1,000,010: "1M" everywhere before.
        let x = x_ticks(json::XAxis::Step, 1_000_000.0, 1_000_010.0, 6);
        assert_eq!(
            x.labels,
            [
                "1M",
                "1.000002M",
                "1.000004M",
                "1.000006M",
                "1.000008M",
                "1.00001M"
            ]
        );
        // Two hours into a run, ticks 10 s apart: "2h 05m" repeated before.
        let x = x_ticks(json::XAxis::Relative, 7_500_000.0, 7_550_000.0, 6);
        assert_eq!(x.labels[..2], ["2h 05m 00s", "2h 05m 10s"]);
        assert_eq!(x.label(7_510_000.0), "2h 05m 10s");
        // Wall time: the clock (UTC natively).
        let x = x_ticks(json::XAxis::Wall, 1.7e12, 1.7e12 + 800.0, 6);
        assert_eq!(x.labels[0], "22:13:20");
    }

    #[test]
    fn tooltips_read_the_exact_x() {
        assert_eq!(x_readout(-5_000.0, json::XAxis::Relative), "−5s");
        assert_eq!(x_readout(185_400.0, json::XAxis::Relative), "3m 05s");
        assert_eq!(x_readout(12_345.0, json::XAxis::Step), "12345");
        assert_eq!(x_readout(0.25, json::XAxis::Step), "0.25");
        assert_eq!(
            x_readout(1_795_000_000_000.0, json::XAxis::Wall),
            "2026-11-18 11:06:40"
        );
    }

    #[test]
    fn degenerate_x_ranges_are_widened() {
        assert_eq!(x_range(Some((5.0, 5.0)), json::XAxis::Step), (4.0, 6.0));
        assert_eq!(x_range(None, json::XAxis::Step), (0.0, 10.0));
        assert_eq!(x_range(Some((1.0, 3.0)), json::XAxis::Wall), (1.0, 3.0));
    }
}
