//! Colouring and brushing of the parallel-coordinates chart, pure so it is unit-tested:
//! a value's colour on a sequential map (viridis), brushes (a value range per axis, kept
//! in the URL as `brush=<column>:<lo>:<hi>`), pixel↔axis-unit mapping and which runs
//! every brush holds. Axis units are a numeric axis' values, or a categorical axis'
//! category index.

use super::layout::{Area, Scale};
use super::model::{ColumnRef, Value};
use crate::theme::Theme;
use plotters::style::RGBColor;

/// Viridis sampled at nine even stops (perceptually uniform, readable on light and dark).
const VIRIDIS: [(u8, u8, u8); 9] = [
    (0x44, 0x01, 0x54),
    (0x47, 0x2c, 0x7a),
    (0x3b, 0x51, 0x8b),
    (0x2c, 0x71, 0x8e),
    (0x21, 0x90, 0x8d),
    (0x27, 0xad, 0x81),
    (0x5c, 0xc8, 0x63),
    (0xaa, 0xdc, 0x32),
    (0xfd, 0xe7, 0x25),
];

/// The viridis colour at `t` (0 to 1, clamped; NaN reads as 0), linearly interpolated.
pub fn viridis(t: f64) -> (u8, u8, u8) {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let pos = t * (VIRIDIS.len() - 1) as f64;
    let i = (pos.floor() as usize).min(VIRIDIS.len() - 2);
    let f = pos - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * f).round() as u8;
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Where the colour map starts on `theme`: the whole of viridis on the light theme; on the
/// dark one its darkest fifth and more is left out, so the low end keeps a contrast of about
/// 2.5:1 with the dark background (the run colours' floor there) instead of 1.2:1.
pub fn ramp_start(theme: Theme) -> f64 {
    match theme {
        Theme::Light => 0.0,
        Theme::Dark => 0.3,
    }
}

/// The map's colour at `t` (0 low to 1 high) as `theme` shows it.
pub fn ramp(theme: Theme, t: f64) -> (u8, u8, u8) {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let start = ramp_start(theme);
    viridis(start + t * (1.0 - start))
}

/// `#rrggbb` of a colour of the map.
fn hex((r, g, b): (u8, u8, u8)) -> String {
    crate::charts::draw::hex(RGBColor(r, g, b))
}

/// A CSS `linear-gradient` of the map as `theme` shows it, low end (left) to high end.
pub fn gradient_css(theme: Theme) -> String {
    let last = (VIRIDIS.len() - 1) as f64;
    let stops: Vec<String> = (0..VIRIDIS.len())
        .map(|i| hex(ramp(theme, i as f64 / last)))
        .collect();
    format!("linear-gradient(to right, {})", stops.join(", "))
}

/// Each run's colour by its value on `scale`, as `theme` shows the map (`None` where the
/// run lacks a value the scale can place).
pub fn colour_by(
    scale: &Scale,
    values: &[Option<Value>],
    theme: Theme,
) -> Vec<Option<(u8, u8, u8)>> {
    values
        .iter()
        .map(|v| scale.fraction(v.as_ref()?).map(|t| ramp(theme, t)))
        .collect()
}

impl Scale {
    /// The axis-unit position of `v`: its number on a numeric axis, its index on a
    /// categorical one.
    pub fn unit(&self, v: &Value) -> Option<f64> {
        let t = self.fraction(v)?;
        Some(self.unit_at(t))
    }

    /// The axis unit at fraction `t` (0 bottom, 1 top).
    pub fn unit_at(&self, t: f64) -> f64 {
        match self {
            Scale::Numeric { lo, hi } => lo + t * (hi - lo),
            Scale::Categorical(c) => t * c.len().saturating_sub(1) as f64,
        }
    }

    /// The fraction of axis unit `u`.
    pub fn fraction_of_unit(&self, u: f64) -> f64 {
        let (lo, hi) = match self {
            Scale::Numeric { lo, hi } => (*lo, *hi),
            Scale::Categorical(c) => (0.0, c.len().saturating_sub(1) as f64),
        };
        if hi > lo {
            (u - lo) / (hi - lo)
        } else {
            0.5
        }
    }
}

/// The fraction up the plot area at pixel `y`, clamped to 0..1.
pub fn fraction_at_y(area: &Area, y: f64) -> f64 {
    (1.0 - (y - area.top) / area.height).clamp(0.0, 1.0)
}

/// The axis nearest to pixel `x` within `radius`, by index.
pub fn axis_at(axis_x: &[f64], x: f64, radius: f64) -> Option<usize> {
    axis_x
        .iter()
        .enumerate()
        .map(|(i, ax)| (i, (ax - x).abs()))
        .filter(|(_, d)| *d <= radius)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// A value range selected on one column's axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Brush {
    /// The brushed column.
    pub column: ColumnRef,
    /// Low end, axis units.
    pub lo: f64,
    /// High end, axis units.
    pub hi: f64,
}

impl Brush {
    /// A brush between two axis units, in either order.
    pub fn new(column: ColumnRef, a: f64, b: f64) -> Brush {
        Brush {
            column,
            lo: a.min(b),
            hi: a.max(b),
        }
    }

    /// Parses `<column>:<lo>:<hi>` (the column as `params.<key>` or `metrics.<key>`).
    pub fn parse(s: &str) -> Option<Brush> {
        let mut parts = s.rsplitn(3, ':');
        let hi: f64 = parts.next()?.parse().ok()?;
        let lo: f64 = parts.next()?.parse().ok()?;
        let column = ColumnRef::parse(parts.next()?)?;
        (lo.is_finite() && hi.is_finite()).then(|| Brush::new(column, lo, hi))
    }

    /// The URL spelling, `<column>:<lo>:<hi>`.
    pub fn query_value(&self) -> String {
        format!("{}:{}:{}", self.column.query_value(), self.lo, self.hi)
    }

    /// Whether axis unit `u` lies in the brush (ends included, with a little slack for
    /// the rounding of the URL's numbers).
    pub fn holds(&self, u: f64) -> bool {
        let slack = (self.hi - self.lo)
            .abs()
            .max(self.lo.abs().max(self.hi.abs()))
            * 1e-9;
        u >= self.lo - slack && u <= self.hi + slack
    }
}

/// Per run: whether it lies inside every brush whose axis is shown (`axes[a]` the column of
/// axis `a`, `columns[a][r]` run `r`'s value there). A run without a value on a brushed
/// axis is outside it.
pub fn matching(
    brushes: &[Brush],
    axes: &[ColumnRef],
    scales: &[Scale],
    columns: &[Vec<Option<Value>>],
    runs: usize,
) -> Vec<bool> {
    let active: Vec<(usize, &Brush)> = brushes
        .iter()
        .filter_map(|b| Some((axes.iter().position(|c| *c == b.column)?, b)))
        .collect();
    (0..runs)
        .map(|r| {
            active.iter().all(|(a, b)| {
                columns
                    .get(*a)
                    .and_then(|c| c.get(r))
                    .and_then(Option::as_ref)
                    .and_then(|v| scales.get(*a)?.unit(v))
                    .is_some_and(|u| b.holds(u))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: f64) -> Option<Value> {
        Some(Value::Number(v))
    }
    fn t(s: &str) -> Option<Value> {
        Some(Value::Text(s.into()))
    }

    #[test]
    fn viridis_ends_and_middle() {
        assert_eq!(viridis(0.0), (0x44, 0x01, 0x54));
        assert_eq!(viridis(1.0), (0xfd, 0xe7, 0x25));
        assert_eq!(viridis(0.5), (0x21, 0x90, 0x8d));
        assert_eq!(viridis(-3.0), viridis(0.0));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
        assert_eq!(hex(viridis(1.0)), "#fde725");
        assert!(gradient_css(Theme::Light).starts_with("linear-gradient(to right, #440154"));
        assert!(gradient_css(Theme::Dark).ends_with("#fde725)"));
    }

    /// WCAG contrast ratio of two colours.
    fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
        let lum = |(r, g, b): (u8, u8, u8)| {
            let ch = |c: u8| {
                let c = f64::from(c) / 255.0;
                if c <= 0.03928 {
                    c / 12.92
                } else {
                    ((c + 0.055) / 1.055).powf(2.4)
                }
            };
            0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b)
        };
        let (x, y) = (lum(a), lum(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    }

    #[test]
    fn every_colour_of_the_map_stands_out_from_the_theme_background() {
        for theme in [Theme::Light, Theme::Dark] {
            let bg = theme.palette().background;
            let worst = (0..=100)
                .map(|i| contrast(ramp(theme, f64::from(i) / 100.0), (bg.0, bg.1, bg.2)))
                .fold(f64::INFINITY, f64::min);
            // The light theme's weakest is viridis' yellow end on white (1.26:1).
            assert!(worst >= 1.2, "{theme:?}: lowest contrast {worst:.2}");
            if theme == Theme::Dark {
                assert!(worst >= 2.4, "dark: lowest contrast {worst:.2}");
            }
        }
        assert_eq!(ramp(Theme::Light, 0.0), viridis(0.0));
        assert_eq!(ramp(Theme::Dark, 1.0), viridis(1.0));
    }

    #[test]
    fn colour_by_leaves_missing_values_out() {
        let s = Scale::Numeric { lo: 0.0, hi: 1.0 };
        let c = colour_by(&s, &[n(0.0), None, n(1.0)], Theme::Light);
        assert_eq!(c, [Some(viridis(0.0)), None, Some(viridis(1.0))]);
        let d = colour_by(&s, &[n(0.0)], Theme::Dark);
        assert_eq!(d, [Some(viridis(ramp_start(Theme::Dark)))]);
    }

    #[test]
    fn brushes_round_trip_through_the_url() {
        let b = Brush::parse("metrics.a:b:0.5:0.1").unwrap();
        assert_eq!(b, Brush::new(ColumnRef::Metric("a:b".into()), 0.1, 0.5));
        assert_eq!(b.query_value(), "metrics.a:b:0.1:0.5");
        assert_eq!(Brush::parse(&b.query_value()), Some(b));
        assert_eq!(Brush::parse("metrics.loss:x:1"), None);
        assert_eq!(Brush::parse("tags.t:0:1"), None);
        assert_eq!(Brush::parse("params.lr:NaN:1"), None);
    }

    #[test]
    fn pixels_map_to_axis_units_and_back() {
        let area = Area::inside(200.0, 120.0, (0.0, 10.0, 0.0, 10.0));
        assert_eq!(fraction_at_y(&area, 10.0), 1.0);
        assert_eq!(fraction_at_y(&area, 110.0), 0.0);
        assert_eq!(fraction_at_y(&area, 60.0), 0.5);
        assert_eq!(fraction_at_y(&area, 500.0), 0.0);
        let s = Scale::Numeric { lo: 2.0, hi: 4.0 };
        assert_eq!(s.unit_at(0.5), 3.0);
        assert_eq!(s.fraction_of_unit(3.0), 0.5);
        let c = Scale::Categorical(vec!["a".into(), "b".into(), "c".into()]);
        assert_eq!(c.unit_at(1.0), 2.0);
        assert_eq!(c.unit(&Value::Text("b".into())), Some(1.0));
        assert_eq!(c.fraction_of_unit(1.0), 0.5);
        assert_eq!(axis_at(&[10.0, 100.0], 95.0, 12.0), Some(1));
        assert_eq!(axis_at(&[10.0, 100.0], 50.0, 12.0), None);
    }

    #[test]
    fn runs_match_every_shown_brush() {
        let axes = vec![
            ColumnRef::Param("opt".into()),
            ColumnRef::Metric("loss".into()),
        ];
        let scales = vec![
            Scale::Categorical(vec!["adam".into(), "sgd".into()]),
            Scale::Numeric { lo: 0.0, hi: 1.0 },
        ];
        let columns = vec![
            vec![t("adam"), t("sgd"), t("adam")],
            vec![n(0.2), n(0.3), None],
        ];
        let m = |b: &[Brush]| matching(b, &axes, &scales, &columns, 3);
        assert_eq!(m(&[]), [true, true, true]);
        let loss = Brush::new(ColumnRef::Metric("loss".into()), 0.0, 0.25);
        assert_eq!(m(std::slice::from_ref(&loss)), [true, false, false]);
        let opt = Brush::new(ColumnRef::Param("opt".into()), 0.5, 1.0);
        assert_eq!(m(std::slice::from_ref(&opt)), [false, true, false]);
        assert_eq!(m(&[opt, loss]), [false, false, false]);
        // A brush on an axis not shown is ignored.
        let other = Brush::new(ColumnRef::Metric("acc".into()), 5.0, 6.0);
        assert_eq!(m(&[other]), [true, true, true]);
    }
}
