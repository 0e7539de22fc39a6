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

/// Tick label of an x value; `span` is the visible range's width. (Least precision: see
/// [`TickLabels`] for labels that stay distinct on narrow ranges.)
pub fn x_label(v: f64, axis: json::XAxis, span: f64) -> String {
    x_label_at(v, axis, span, 0)
}

/// Tick label of a y value in drawing space (least precision, see [`TickLabels`]).
pub fn y_label(v: f64, log: bool) -> String {
    number_at(from_draw(v, log), 0)
}

/// Most precision levels tried before giving up on distinct labels.
const MAX_LEVEL: u8 = 8;

/// `v` as [`format::axis`] writes it (3 significant digits, `k`/`M`/`G`), with `level`
/// more decimals.
pub fn number_at(v: f64, level: u8) -> String {
    if level == 0 {
        return format::axis(v);
    }
    let a = v.abs();
    let extra = usize::from(level);
    if a != 0.0 && a < 1e-3 {
        let s = format!("{v:.prec$e}", prec = 2 + extra);
        return match s.split_once('e') {
            Some((m, e)) => format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.')),
            None => s,
        };
    }
    let (scaled, suffix) = match a {
        _ if a >= 1e9 => (v / 1e9, "G"),
        _ if a >= 1e6 => (v / 1e6, "M"),
        _ if a >= 1e4 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let digits = if scaled == 0.0 {
        0
    } else {
        scaled.abs().log10().floor() as i32
    };
    let decimals = (2 - digits + i32::from(level)).clamp(0, 15) as usize;
    let s = format!("{scaled:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    };
    let s = if s == "-0" { "0".to_owned() } else { s };
    format!("{s}{suffix}")
}

/// A relative time (ms since the series' origin): `5s`, `1m 40s`, `2h 05m`, with a sign
/// when negative; from `level` 1 every unit down to seconds, seconds with `level - 1`
/// decimals (`2h 05m 10s`, `1m 40.5s`).
pub fn duration_at(ms: f64, level: u8) -> String {
    let sign = if ms < 0.0 { "−" } else { "" };
    let ms = ms.abs();
    if level == 0 {
        return format!("{sign}{}", format::duration(ms.round() as i64));
    }
    let decimals = usize::from(level - 1);
    if ms < 1000.0 {
        let v = format!("{ms:.decimals$}");
        return format!("{sign}{v}ms");
    }
    let whole = (ms / 1000.0).floor() as i64;
    let secs = ms / 1000.0 - (whole - whole % 60) as f64;
    let width = if decimals == 0 { 2 } else { decimals + 3 };
    let (d, h, m) = (whole / 86_400, whole % 86_400 / 3600, whole % 3600 / 60);
    let s = |w: usize| format!("{secs:0w$.decimals$}s");
    let body = match whole {
        0..=59 => s(0),
        60..=3599 => format!("{m}m {}", s(width)),
        3600..=86_399 => format!("{h}h {m:02}m {}", s(width)),
        _ => format!("{d}d {h}h {m:02}m {}", s(width)),
    };
    format!("{sign}{body}")
}

/// Tick label of an x value at precision `level` (0: the least).
fn x_label_at(v: f64, axis: json::XAxis, span: f64, level: u8) -> String {
    let ms = v.round() as i64;
    match (axis, level) {
        (json::XAxis::Step, _) => number_at(v, level),
        (json::XAxis::Wall, 0) if span < 86_400_000.0 => format::time_of_day(ms),
        (json::XAxis::Wall, 0) => format::datetime(ms)
            .get(5..16)
            .unwrap_or_default()
            .to_owned(),
        (json::XAxis::Wall, 1) if span >= 86_400_000.0 => {
            format::datetime(ms).get(5..).unwrap_or_default().to_owned()
        }
        (json::XAxis::Wall, _) => {
            let time = if span < 86_400_000.0 {
                format::time_of_day(ms)
            } else {
                format::datetime(ms).get(5..).unwrap_or_default().to_owned()
            };
            format!("{time}.{:03}", ms.rem_euclid(1000))
        }
        (json::XAxis::Relative, _) => duration_at(v, level),
    }
}

/// What an axis measures, for [`TickLabels`].
#[derive(Debug, Clone, Copy, PartialEq)]
enum AxisKind {
    /// An x axis with the visible range's width.
    X(json::XAxis, f64),
    /// A y axis (values in drawing space; log10 of the value on a log axis).
    Y { log: bool },
}

/// The labels of one axis' ticks, at the least precision under which every two adjacent
/// ticks read differently: a narrow range around 80,800 gets `80.76k 80.78k 80.8k`, not
/// `80.8k` three times.
///
/// The ticks are the ones plotters draws for the range and label count (its own
/// `key_points`), so the check covers exactly the labels on screen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TickLabels {
    kind: AxisKind,
    level: u8,
}

impl TickLabels {
    /// Labels for an x axis over `[lo, hi]` with at most `n` ticks.
    pub fn x(axis: json::XAxis, lo: f64, hi: f64, n: usize) -> Self {
        Self::fitted(AxisKind::X(axis, hi - lo), lo, hi, n)
    }

    /// Labels for a y axis over `[lo, hi]` (drawing space) with at most `n` ticks.
    pub fn y(lo: f64, hi: f64, n: usize, log: bool) -> Self {
        Self::fitted(AxisKind::Y { log }, lo, hi, n)
    }

    fn fitted(kind: AxisKind, lo: f64, hi: f64, n: usize) -> Self {
        let ticks = tick_values(lo, hi, n);
        let level = (0..=MAX_LEVEL)
            .find(|&level| {
                let l = TickLabels { kind, level };
                let labels: Vec<String> = ticks.iter().map(|&v| l.label(v)).collect();
                labels.windows(2).all(|w| w[0] != w[1])
            })
            .unwrap_or(MAX_LEVEL);
        TickLabels { kind, level }
    }

    /// The label of tick `v`.
    pub fn label(&self, v: f64) -> String {
        match self.kind {
            AxisKind::X(axis, span) => x_label_at(v, axis, span, self.level),
            AxisKind::Y { log } => number_at(from_draw(v, log), self.level),
        }
    }
}

/// The tick values plotters draws on `[lo, hi]` with at most `n` labels.
pub fn tick_values(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    use plotters::coord::ranged1d::Ranged;
    use plotters::coord::types::RangedCoordf64;
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        return Vec::new();
    }
    RangedCoordf64::from(lo..hi).key_points(n)
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

    fn labels(l: TickLabels, lo: f64, hi: f64, n: usize) -> Vec<String> {
        tick_values(lo, hi, n).iter().map(|&v| l.label(v)).collect()
    }

    fn distinct(labels: &[String]) -> bool {
        labels.windows(2).all(|w| w[0] != w[1])
    }

    #[test]
    fn narrow_y_ranges_get_distinct_tick_labels() {
        // The case seen: values around 80,800 spanning 100 showed "80.8k" three times.
        let (lo, hi) = (80_750.0, 80_850.0);
        let plain: Vec<String> = tick_values(lo, hi, 5)
            .iter()
            .map(|&v| y_label(v, false))
            .collect();
        assert!(!distinct(&plain), "the old labels repeat: {plain:?}");
        let fitted = labels(TickLabels::y(lo, hi, 5, false), lo, hi, 5);
        assert!(distinct(&fitted), "{fitted:?}");
        assert_eq!(fitted, ["80.76k", "80.78k", "80.8k", "80.82k", "80.84k"]);
        // Wide ranges keep the short labels.
        let wide = labels(TickLabels::y(0.0, 1.0, 5, false), 0.0, 1.0, 5);
        assert_eq!(wide, ["0", "0.5", "1"]);
        // Tiny values, a narrow log range, and a loss that barely moves.
        for (lo, hi, log) in [
            (1.0001e-4, 1.0009e-4, false),
            (2.0, 2.001, true),
            (0.812_10, 0.812_16, false),
            (-1.0e6 - 3.0, -1.0e6 + 3.0, false),
        ] {
            let got = labels(TickLabels::y(lo, hi, 5, log), lo, hi, 5);
            assert!(got.len() > 1 && distinct(&got), "{lo}..{hi}: {got:?}");
        }
    }

    #[test]
    fn narrow_x_ranges_get_distinct_tick_labels() {
        // Steps 1,000,000 to 1,000,010: "1M" everywhere before.
        let (lo, hi) = (1_000_000.0, 1_000_010.0);
        let got = labels(TickLabels::x(json::XAxis::Step, lo, hi, 6), lo, hi, 6);
        assert!(distinct(&got), "{got:?}");
        // Two hours into a run, ticks 10 s apart: "2h 05m" repeated before.
        let (lo, hi) = (7_500_000.0, 7_550_000.0);
        let got = labels(TickLabels::x(json::XAxis::Relative, lo, hi, 6), lo, hi, 6);
        assert!(distinct(&got), "{got:?}");
        assert_eq!(got[0], "2h 05m 00s");
        // Sub-second ticks on the relative axis.
        let got = labels(
            TickLabels::x(json::XAxis::Relative, 3_000.0, 3_002.0, 6),
            3_000.0,
            3_002.0,
            6,
        );
        assert!(distinct(&got), "{got:?}");
        // Wall time within one second.
        let (lo, hi) = (1.7e12, 1.7e12 + 800.0);
        let got = labels(TickLabels::x(json::XAxis::Wall, lo, hi, 6), lo, hi, 6);
        assert!(distinct(&got), "{got:?}");
        // A plain range keeps the short form.
        let got = labels(
            TickLabels::x(json::XAxis::Relative, 0.0, 600_000.0, 6),
            0.0,
            600_000.0,
            6,
        );
        assert_eq!(got[1], "3m 20s");
    }

    #[test]
    fn relative_times_before_the_origin_keep_their_sign() {
        assert_eq!(duration_at(-5_000.0, 0), "−5s");
        assert_eq!(duration_at(5_000.0, 0), "5s");
        assert_eq!(duration_at(100_500.0, 2), "1m 40.5s");
        assert_eq!(duration_at(250.0, 1), "250ms");
        assert_eq!(duration_at(90_061_000.0, 1), "1d 1h 01m 01s");
        assert_eq!(number_at(-0.0001, 0), "-1e-4");
        assert_eq!(number_at(80_760.0, 1), "80.76k");
    }

    #[test]
    fn degenerate_x_ranges_are_widened() {
        assert_eq!(x_range(Some((5.0, 5.0)), json::XAxis::Step), (4.0, 6.0));
        assert_eq!(x_range(None, json::XAxis::Step), (0.0, 10.0));
        assert_eq!(x_range(Some((1.0, 3.0)), json::XAxis::Wall), (1.0, 3.0));
    }
}
