//! Scaling and layout of the compare charts, in CSS pixels: axes over a column's values
//! (numeric: linear from min to max; categorical: the distinct values evenly spaced), the
//! parallel-coordinates polylines and the scatter's points. Pure, so it is unit-tested;
//! [`super::draw`] paints what it computes.

use super::model::Value;
use crate::charts::ticks::{TickScale, Ticks};
use crate::format;

/// An axis over one column's values.
#[derive(Debug, Clone, PartialEq)]
pub enum Scale {
    /// Every present value is a finite number: linear from `lo` to `hi`.
    Numeric {
        /// Smallest value.
        lo: f64,
        /// Largest value.
        hi: f64,
    },
    /// Text values (or a mix): the distinct values, sorted, evenly spaced.
    Categorical(Vec<String>),
}

fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => Some(*n),
        Value::Text(s) => s.trim().parse::<f64>().ok(),
    }
    .filter(|n| n.is_finite())
}

fn as_text(v: &Value) -> String {
    match v {
        Value::Number(n) => format::value(*n),
        Value::Text(s) => s.clone(),
    }
}

impl Scale {
    /// The scale of `values`: numeric when every present value is a finite number (a
    /// metric's NaN or ±inf is left out as missing), else categorical.
    pub fn of(values: &[Option<Value>]) -> Scale {
        let present = values.iter().flatten();
        let metric_only = values
            .iter()
            .flatten()
            .all(|v| matches!(v, Value::Number(_)));
        let nums: Option<Vec<f64>> = if metric_only {
            Some(present.filter_map(as_number).collect())
        } else {
            present.map(as_number).collect()
        };
        match nums {
            Some(n) if !n.is_empty() => Scale::Numeric {
                lo: n.iter().copied().fold(f64::INFINITY, f64::min),
                hi: n.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            },
            Some(_) => Scale::Numeric { lo: 0.0, hi: 1.0 },
            None => {
                let mut cats: Vec<String> = values.iter().flatten().map(as_text).collect();
                cats.sort();
                cats.dedup();
                Scale::Categorical(cats)
            }
        }
    }

    /// Where `v` falls on the axis, 0 (bottom/left) to 1 (top/right); `None` for a value
    /// the axis cannot place. A single value (or a flat numeric range) sits in the middle.
    pub fn fraction(&self, v: &Value) -> Option<f64> {
        match self {
            Scale::Numeric { lo, hi } => {
                let n = as_number(v)?;
                Some(if hi > lo { (n - lo) / (hi - lo) } else { 0.5 })
            }
            Scale::Categorical(cats) => {
                let i = cats.iter().position(|c| *c == as_text(v))?;
                Some(if cats.len() > 1 {
                    i as f64 / (cats.len() - 1) as f64
                } else {
                    0.5
                })
            }
        }
    }

    /// Tick labels and their fractions: round values at a 1, 2 or 5 × 10^k step for a
    /// numeric axis (at most `max_ticks`, and 6; one for a flat range); every category (at
    /// most `max_ticks`, evenly thinned).
    pub fn ticks(&self, max_ticks: usize) -> Vec<(f64, String)> {
        match self {
            Scale::Numeric { lo, hi } if hi > lo => {
                let ticks = Ticks::new(TickScale::Number, *lo, *hi, max_ticks.clamp(2, 6));
                let at = |v: &f64| (v - lo) / (hi - lo);
                ticks.values.iter().map(at).zip(ticks.labels).collect()
            }
            Scale::Numeric { lo, .. } => vec![(0.5, format::axis(*lo))],
            Scale::Categorical(cats) => {
                let n = cats.len();
                let every = n.div_ceil(max_ticks.max(1)).max(1);
                cats.iter()
                    .enumerate()
                    .filter(|(i, _)| i % every == 0 || *i == n - 1)
                    .filter_map(|(_, c)| Some((self.fraction(&Value::Text(c.clone()))?, c.clone())))
                    .collect()
            }
        }
    }
}

/// The plot area inside the canvas, CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Area {
    /// Left edge.
    pub left: f64,
    /// Top edge.
    pub top: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl Area {
    /// The area of a `w`×`h` canvas inside margins (left, top, right, bottom).
    pub fn inside(w: f64, h: f64, margins: (f64, f64, f64, f64)) -> Area {
        let (l, t, r, b) = margins;
        Area {
            left: l,
            top: t,
            width: (w - l - r).max(1.0),
            height: (h - t - b).max(1.0),
        }
    }

    /// The pixel x of a fraction along the width.
    pub fn x(&self, t: f64) -> f64 {
        self.left + t * self.width
    }

    /// The pixel y of a fraction up the height (0 at the bottom).
    pub fn y(&self, t: f64) -> f64 {
        self.top + (1.0 - t) * self.height
    }
}

/// Parallel coordinates: the x of each axis, and each run's polyline split where a value
/// is missing.
#[derive(Debug, Clone, PartialEq)]
pub struct Parallel {
    /// Pixel x of each axis.
    pub axis_x: Vec<f64>,
    /// Per run: its drawable pieces, each a list of pixel points (a lone point is drawn as
    /// a dot).
    pub lines: Vec<Vec<Vec<(f64, f64)>>>,
}

/// Lays out parallel coordinates: `columns[a][r]` is run `r`'s value on axis `a`.
pub fn parallel(
    scales: &[Scale],
    columns: &[Vec<Option<Value>>],
    runs: usize,
    area: Area,
) -> Parallel {
    let n = scales.len();
    let axis_x: Vec<f64> = (0..n)
        .map(|i| {
            let t = if n > 1 {
                i as f64 / (n - 1) as f64
            } else {
                0.5
            };
            area.x(t)
        })
        .collect();
    let lines = (0..runs)
        .map(|r| {
            let mut pieces: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
            for (a, scale) in scales.iter().enumerate() {
                let at = columns
                    .get(a)
                    .and_then(|c| c.get(r))
                    .and_then(Option::as_ref)
                    .and_then(|v| scale.fraction(v));
                match at {
                    Some(t) => pieces
                        .last_mut()
                        .map(|p| p.push((axis_x[a], area.y(t))))
                        .unwrap_or_default(),
                    None if pieces.last().is_some_and(|p| !p.is_empty()) => pieces.push(Vec::new()),
                    None => {}
                }
            }
            pieces.retain(|p| !p.is_empty());
            pieces
        })
        .collect();
    Parallel { axis_x, lines }
}

/// One scatter point: the run's index and its pixel position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Index of the run.
    pub run: usize,
    /// Pixel x.
    pub x: f64,
    /// Pixel y.
    pub y: f64,
}

/// Places each run that has both values; fractions are inset by `pad` so points at the
/// ends of an axis are not cut by the frame.
pub fn scatter(
    sx: &Scale,
    sy: &Scale,
    xs: &[Option<Value>],
    ys: &[Option<Value>],
    area: Area,
    pad: f64,
) -> Vec<Point> {
    let inset = |t: f64| pad + t * (1.0 - 2.0 * pad);
    xs.iter()
        .zip(ys)
        .enumerate()
        .filter_map(|(run, (x, y))| {
            let tx = sx.fraction(x.as_ref()?)?;
            let ty = sy.fraction(y.as_ref()?)?;
            Some(Point {
                run,
                x: area.x(inset(tx)),
                y: area.y(inset(ty)),
            })
        })
        .collect()
}

/// The point nearest to `(x, y)` within `radius` pixels (the last drawn, on top, wins a tie).
pub fn nearest(points: &[Point], x: f64, y: f64, radius: f64) -> Option<Point> {
    points
        .iter()
        .rev()
        .map(|p| (p, (p.x - x).hypot(p.y - y)))
        .filter(|(_, d)| *d <= radius)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(p, _)| *p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Option<Value> {
        Some(Value::Text(s.into()))
    }
    fn n(v: f64) -> Option<Value> {
        Some(Value::Number(v))
    }

    #[test]
    fn numeric_params_get_a_linear_scale() {
        let s = Scale::of(&[t("0.1"), t("0.001"), None, t("0.01")]);
        assert_eq!(s, Scale::Numeric { lo: 0.001, hi: 0.1 });
        assert_eq!(s.fraction(&Value::Text("0.1".into())), Some(1.0));
        assert_eq!(s.fraction(&Value::Text("0.001".into())), Some(0.0));
        let mid = s.fraction(&Value::Text("0.0505".into())).unwrap();
        assert!((mid - 0.5).abs() < 1e-12);
    }

    #[test]
    fn text_params_are_categorical_and_evenly_spaced() {
        let s = Scale::of(&[t("sgd"), t("adam"), t("adamw"), t("adam"), t("1")]);
        assert_eq!(
            s,
            Scale::Categorical(vec![
                "1".into(),
                "adam".into(),
                "adamw".into(),
                "sgd".into()
            ])
        );
        assert_eq!(s.fraction(&Value::Text("adam".into())), Some(1.0 / 3.0));
        assert_eq!(s.fraction(&Value::Text("sgd".into())), Some(1.0));
        assert_eq!(s.fraction(&Value::Text("rmsprop".into())), None);
        let one = Scale::of(&[t("x"), t("x")]);
        assert_eq!(one.fraction(&Value::Text("x".into())), Some(0.5));
    }

    #[test]
    fn metrics_skip_non_finite_values_and_flat_ranges_sit_in_the_middle() {
        let s = Scale::of(&[n(2.0), n(f64::NAN), n(2.0)]);
        assert_eq!(s, Scale::Numeric { lo: 2.0, hi: 2.0 });
        assert_eq!(s.fraction(&Value::Number(2.0)), Some(0.5));
        assert_eq!(s.fraction(&Value::Number(f64::NAN)), None);
        assert_eq!(s.ticks(10), vec![(0.5, "2".to_owned())]);
        assert_eq!(
            Scale::of(&[None, None]),
            Scale::Numeric { lo: 0.0, hi: 1.0 }
        );
    }

    #[test]
    fn ticks() {
        let s = Scale::Numeric { lo: 0.0, hi: 100.0 };
        let labels: Vec<String> = s.ticks(6).into_iter().map(|(_, l)| l).collect();
        assert_eq!(labels, ["0", "20", "40", "60", "80", "100"]);
        // Round values inside the range, placed where they fall.
        let s = Scale::Numeric {
            lo: 0.013,
            hi: 0.094,
        };
        let ticks = s.ticks(6);
        let labels: Vec<&str> = ticks.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["0.02", "0.04", "0.06", "0.08"]);
        assert!((ticks[0].0 - 0.007 / 0.081).abs() < 1e-9, "{ticks:?}");
        let cats = Scale::Categorical((0..10).map(|i| format!("c{i}")).collect());
        let ticks = cats.ticks(4);
        assert!(ticks.len() <= 5, "{ticks:?}");
        assert_eq!(ticks.first().unwrap().1, "c0");
        assert_eq!(ticks.last().unwrap(), &(1.0, "c9".to_owned()));
    }

    #[test]
    fn parallel_lines_break_at_missing_values() {
        let area = Area::inside(320.0, 220.0, (10.0, 10.0, 10.0, 10.0));
        let scales = vec![
            Scale::Categorical(vec!["adam".into(), "sgd".into()]),
            Scale::Numeric { lo: 0.0, hi: 1.0 },
            Scale::Numeric { lo: 0.0, hi: 10.0 },
        ];
        let columns = vec![
            vec![t("adam"), t("sgd")],
            vec![n(0.5), None],
            vec![n(10.0), n(0.0)],
        ];
        let p = parallel(&scales, &columns, 2, area);
        assert_eq!(p.axis_x, [10.0, 160.0, 310.0]);
        assert_eq!(
            p.lines[0],
            vec![vec![(10.0, 210.0), (160.0, 110.0), (310.0, 10.0)]]
        );
        assert_eq!(p.lines[1], vec![vec![(10.0, 10.0)], vec![(310.0, 210.0)]]);
    }

    #[test]
    fn scatter_places_points_and_finds_the_nearest() {
        let area = Area::inside(200.0, 200.0, (0.0, 0.0, 0.0, 0.0));
        let sx = Scale::Numeric { lo: 0.0, hi: 1.0 };
        let sy = Scale::Categorical(vec!["a".into(), "b".into()]);
        let xs = vec![n(0.0), n(1.0), None];
        let ys = vec![t("a"), t("b"), t("a")];
        let pts = scatter(&sx, &sy, &xs, &ys, area, 0.0);
        assert_eq!(
            pts,
            [
                Point {
                    run: 0,
                    x: 0.0,
                    y: 200.0
                },
                Point {
                    run: 1,
                    x: 200.0,
                    y: 0.0
                }
            ]
        );
        let padded = scatter(&sx, &sy, &xs, &ys, area, 0.1);
        assert_eq!(
            padded[0],
            Point {
                run: 0,
                x: 20.0,
                y: 180.0
            }
        );
        assert_eq!(nearest(&pts, 195.0, 4.0, 8.0).map(|p| p.run), Some(1));
        assert_eq!(nearest(&pts, 100.0, 100.0, 8.0), None);
    }
}
