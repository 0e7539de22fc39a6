//! A panel's data (pure): the runs' series of one key from a batch answer, live points
//! appended to them, the lines to draw (runs or groups, smoothed) and the values under
//! the cursor.

use api_types as json;
use plotters::style::RGBColor;

use super::runs::LineSpec;
use crate::charts::bars::Bar;
use crate::charts::data::x_of;
use crate::charts::group::aggregate;
use crate::charts::multi::{smoothed, Line, MultiChart};
use crate::charts::nearest::nearest_by;
use crate::charts::{ChartData, ChartPoint};

/// One run's series of the panel's key.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSeries {
    /// Run id.
    pub run_id: String,
    /// Its points (finite ones drawn; the x range is its extent or the zoom).
    pub data: ChartData,
}

/// The series of `key` in a batch answer, one per run that has points there. With another
/// metric as x (`x_values` filled), each point's x is that metric's value.
pub fn from_batch(
    batch: &json::workspace::SeriesBatch,
    key: &str,
    zoom: Option<(f64, f64)>,
) -> Vec<RunSeries> {
    batch
        .series
        .iter()
        .filter(|s| s.key == key)
        .map(|s| RunSeries {
            run_id: s.run_id.clone(),
            data: ChartData::from_series(s, zoom),
        })
        .filter(|r| !r.data.points.is_empty() || !r.data.markers.is_empty())
        .collect()
}

/// Appends live points to a run's series (finite ones to the line, kept ordered by x) and
/// widens its x range to cover them. Returns how many points were added.
pub fn append(series: &mut RunSeries, points: &[json::SeriesPoint]) -> usize {
    let d = &mut series.data;
    let mut added = 0;
    for p in points {
        let x = x_of(d.x_axis, d.run_start_time, p);
        if !p.value.0.is_finite() {
            continue;
        }
        let cp = ChartPoint {
            x,
            y: p.value.0,
            step: p.step,
            timestamp: p.timestamp,
        };
        match d.points.last() {
            Some(last) if last.x > x => {
                let i = d.points.partition_point(|q| q.x <= x);
                d.points.insert(i, cp);
            }
            _ => d.points.push(cp),
        }
        d.x_range = Some(match d.x_range {
            Some((lo, hi)) => (lo.min(x), hi.max(x)),
            None => (x, x),
        });
        d.points_in_range += 1;
        added += 1;
    }
    added
}

/// `#rrggbb` as a colour (grey when malformed).
pub fn parse_color(hex: &str) -> RGBColor {
    let c = |i: usize| u8::from_str_radix(hex.get(i..i + 2).unwrap_or("80"), 16).unwrap_or(128);
    RGBColor(c(1), c(3), c(5))
}

/// The x range of the panel: the zoom, else the union of the runs' ranges.
pub fn panel_range(series: &[RunSeries], zoom: Option<(f64, f64)>) -> Option<(f64, f64)> {
    zoom.or_else(|| {
        series
            .iter()
            .filter_map(|s| s.data.x_range)
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
    })
}

/// How the lines are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineOptions {
    /// EMA weight (0: raw lines only).
    pub smoothing: f64,
    /// Pixel columns of the plot (groups are aggregated per column).
    pub columns: usize,
    /// The zoom, if any.
    pub zoom: Option<(f64, f64)>,
    /// What x measures (labels).
    pub x_axis: json::XAxis,
    /// Log y axis.
    pub log_y: bool,
    /// A key every drawn run logged once is drawn as bars ([`single_values`]); off where
    /// a series' first sample is not its last (a node's live GPU series).
    pub bars: bool,
}

/// The chart of a panel, and which spec each of its lines (or bars) draws.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelChart {
    /// What is drawn as lines (none when `bars` is drawn instead).
    pub chart: MultiChart,
    /// A bar per spec, when every drawn run logged the key once ([`single_values`]).
    pub bars: Option<Vec<Bar>>,
    /// Per line of `chart` (or bar of `bars`): its index in the specs.
    pub specs: Vec<usize>,
}

impl PanelChart {
    /// Whether the panel is drawn as bars.
    pub fn is_bars(&self) -> bool {
        self.bars.is_some()
    }
}

/// The one value a run logged, when it logged exactly one (finite, none in NaN or ±inf).
fn single_value(s: &RunSeries) -> Option<f64> {
    let d = &s.data;
    match (d.points.as_slice(), d.markers.is_empty(), d.points_in_range) {
        ([p], true, 1) => Some(p.y),
        _ => None,
    }
}

/// A bar per spec that has data (a run's value, or a group's mean), with the index of its
/// spec, when every run the specs draw logged `key` exactly once and nothing is zoomed (a
/// zoom can leave one point of a longer series). `None` otherwise: the panel draws lines.
pub fn single_values(
    series: &[RunSeries],
    specs: &[LineSpec],
    zoom: Option<(f64, f64)>,
) -> Option<(Vec<Bar>, Vec<usize>)> {
    if zoom.is_some() {
        return None;
    }
    let mut bars = Vec::new();
    let mut drawn = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let mut values = Vec::new();
        for s in series.iter().filter(|s| spec.runs.contains(&s.run_id)) {
            values.push(single_value(s)?);
        }
        if values.is_empty() {
            continue;
        }
        bars.push(Bar {
            label: spec.label.clone(),
            color: parse_color(&spec.color),
            value: values.iter().sum::<f64>() / values.len() as f64,
        });
        drawn.push(i);
    }
    (!bars.is_empty()).then_some((bars, drawn))
}

/// The chart of `specs` over `series`: a run's line (smoothed over a faint raw one when
/// smoothing is on), or a group's mean of its runs (each smoothed first) with a min–max
/// band. Specs with no data draw no line. When every drawn run logged the key once, a
/// bar per spec instead ([`single_values`]).
pub fn build_chart(series: &[RunSeries], specs: &[LineSpec], o: LineOptions) -> PanelChart {
    if let Some((bars, specs)) = o
        .bars
        .then(|| single_values(series, specs, o.zoom))
        .flatten()
    {
        return PanelChart {
            chart: MultiChart::new(Vec::new(), None, o.x_axis, false),
            bars: Some(bars),
            specs,
        };
    }
    // Runs no spec draws (hidden ones) do not widen the range.
    let drawn_series: Vec<RunSeries> = series
        .iter()
        .filter(|s| specs.iter().any(|l| l.runs.contains(&s.run_id)))
        .cloned()
        .collect();
    let x_range = panel_range(&drawn_series, o.zoom);
    let of = |id: &str| series.iter().find(|s| s.run_id == id);
    let mut lines = Vec::new();
    let mut drawn = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let color = parse_color(&spec.color);
        if !spec.group {
            let Some(s) = spec.runs.first().and_then(|id| of(id)) else {
                continue;
            };
            lines.push(Line::smoothed(
                spec.label.clone(),
                color,
                s.data.xy(),
                o.smoothing,
            ));
            drawn.push(i);
            continue;
        }
        let members: Vec<Vec<(f64, f64)>> = spec
            .runs
            .iter()
            .filter_map(|id| of(id))
            .map(|s| smoothed(&s.data.xy(), o.smoothing))
            .collect();
        let Some(range) = x_range else { continue };
        let agg = aggregate(&members, range, o.columns);
        if agg.is_empty() {
            continue;
        }
        lines.push(Line {
            band: agg.iter().map(|g| (g.x, g.min, g.max)).collect(),
            ..Line::new(
                spec.label.clone(),
                color,
                agg.iter().map(|g| (g.x, g.mean)).collect(),
            )
        });
        drawn.push(i);
    }
    PanelChart {
        chart: MultiChart::new(lines, x_range, o.x_axis, o.log_y),
        bars: None,
        specs: drawn,
    }
}

/// What one line says at the cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct LineValue {
    /// Index into the specs (legend order).
    pub spec: usize,
    /// X of the point shown.
    pub x: f64,
    /// The line's value (smoothed, or a group's mean).
    pub y: f64,
    /// The raw value under a smoothed run line.
    pub raw: Option<f64>,
    /// A group's min and max there.
    pub band: Option<(f64, f64)>,
}

/// For each line of `pc`, its point nearest to `x`, when `x` is within `slack` of the
/// line's extent.
pub fn values_at(pc: &PanelChart, x: f64, slack: f64) -> Vec<LineValue> {
    let mut out = Vec::new();
    for (line, &spec) in pc.chart.lines.iter().zip(&pc.specs) {
        let pts = &line.points;
        let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
            continue;
        };
        if x < first.0 - slack || x > last.0 + slack {
            continue;
        }
        let Some(i) = nearest_by(pts.len(), |i| pts[i].0, x) else {
            continue;
        };
        out.push(LineValue {
            spec,
            x: pts[i].0,
            y: pts[i].1,
            raw: line.raw.get(i).map(|r| r.1),
            band: line.band.get(i).map(|b| (b.1, b.2)),
        });
    }
    out
}

/// How close, in CSS pixels, the cursor must be to a line's point to pick that line out.
pub const PICK_PX: f64 = 16.0;

/// The tooltip's rows: `values` highest first (W&B's order), and which of them is the line
/// under the cursor, the one whose point `y_px_of` puts nearest `cursor_y` (within
/// [`PICK_PX`]).
pub fn rank_values(
    mut values: Vec<LineValue>,
    cursor_y: Option<f64>,
    y_px_of: impl Fn(f64) -> Option<f64>,
) -> (Vec<LineValue>, Option<usize>) {
    values.sort_by(|a, b| b.y.total_cmp(&a.y));
    let picked = cursor_y.and_then(|cy| {
        values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| Some((i, (y_px_of(v.y)? - cy).abs())))
            .filter(|(_, d)| *d <= PICK_PX)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    });
    (values, picked)
}

/// The pixel y of value `y` where `info` drew the plot (`None` where a log axis hides it).
pub fn y_px(info: &crate::charts::DrawInfo, y: f64, log: bool) -> Option<f64> {
    let (lo, hi) = (info.y.lo, info.y.hi);
    crate::charts::scale::to_draw(y, log)
        .filter(|_| hi > lo)
        .map(|v| info.top + (hi - v) / (hi - lo) * info.height)
}

#[cfg(test)]
mod tests {
    use super::*;
    use json::{SeriesPoint, F64};

    fn sp(step: i64, v: f64) -> SeriesPoint {
        SeriesPoint {
            step,
            timestamp: 1_000 + step,
            value: F64(v),
        }
    }

    fn series(run: &str, key: &str, pts: Vec<SeriesPoint>) -> json::MetricSeries {
        json::MetricSeries {
            run_id: run.into(),
            key: key.into(),
            x_axis: json::XAxis::Step,
            run_start_time: 1_000,
            points_in_range: pts.len() as u64,
            total_points: pts.len() as u64,
            x_extent: None,
            points: pts,
            non_finite: vec![],
            x_values: vec![],
        }
    }

    fn spec(label: &str, color: &str, runs: &[&str], group: bool) -> LineSpec {
        LineSpec {
            label: label.into(),
            color: color.into(),
            runs: runs.iter().map(|r| r.to_string()).collect(),
            group,
        }
    }

    #[test]
    fn batch_keeps_runs_with_points_and_other_metric_x() {
        let mut by_epoch = series("b", "loss", vec![sp(0, 3.0), sp(1, 2.0)]);
        by_epoch.x_values = vec![F64(0.5), F64(0.25)];
        let batch = json::workspace::SeriesBatch {
            series: vec![
                series("a", "loss", vec![sp(0, 1.0), sp(5, 0.5)]),
                by_epoch,
                series("c", "loss", vec![]),
            ],
            missing: vec![],
        };
        let got = from_batch(&batch, "loss", None);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].data.x_range, Some((0.0, 5.0)));
        // Ordered by the other metric's value.
        let b: Vec<(f64, f64)> = got[1].data.points.iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(b, vec![(0.25, 2.0), (0.5, 3.0)]);
        assert_eq!(panel_range(&got, None), Some((0.0, 5.0)));
        assert_eq!(panel_range(&got, Some((1.0, 2.0))), Some((1.0, 2.0)));
    }

    #[test]
    fn live_points_extend_the_series() {
        let batch = json::workspace::SeriesBatch {
            series: vec![series("a", "loss", vec![sp(0, 1.0), sp(5, 0.5)])],
            missing: vec![],
        };
        let mut s = from_batch(&batch, "loss", None).remove(0);
        assert_eq!(
            append(&mut s, &[sp(6, 0.4), sp(7, f64::NAN), sp(3, 0.7)]),
            2
        );
        let xs: Vec<f64> = s.data.points.iter().map(|p| p.x).collect();
        assert_eq!(xs, vec![0.0, 3.0, 5.0, 6.0]);
        assert_eq!(s.data.x_range, Some((0.0, 6.0)));
        // On a relative axis, x counts from the run's start.
        let mut rel = RunSeries {
            run_id: "n".into(),
            data: ChartData {
                x_axis: json::XAxis::Relative,
                run_start_time: 1_000,
                ..Default::default()
            },
        };
        append(&mut rel, &[sp(10, 1.0)]);
        assert_eq!(rel.data.points[0].x, 10.0);
        assert_eq!(rel.data.x_range, Some((10.0, 10.0)));
    }

    #[test]
    fn runs_and_groups_become_lines_and_tooltip_values() {
        let batch = json::workspace::SeriesBatch {
            series: vec![
                series("a", "loss", vec![sp(0, 1.0), sp(10, 3.0)]),
                series("b", "loss", vec![sp(0, 3.0), sp(10, 5.0)]),
            ],
            missing: vec![],
        };
        let s = from_batch(&batch, "loss", None);
        let o = LineOptions {
            smoothing: 0.0,
            columns: 100,
            zoom: None,
            x_axis: json::XAxis::Step,
            log_y: false,
            bars: true,
        };
        let specs = vec![
            spec("none", "#000001", &["missing"], false),
            spec("a", "#ff0000", &["a"], false),
            spec("b", "#00ff00", &["b"], false),
        ];
        // A hidden run (fetched, in no spec) neither draws nor widens the range.
        let mut with_hidden = s.clone();
        with_hidden.extend(from_batch(
            &json::workspace::SeriesBatch {
                series: vec![series("h", "loss", vec![sp(0, 1.0), sp(50, 9.0)])],
                missing: vec![],
            },
            "loss",
            None,
        ));
        let pc = build_chart(&with_hidden, &specs, o);
        assert_eq!(
            (pc.chart.lines.len(), pc.chart.x_range),
            (2, Some((0.0, 10.0)))
        );
        let pc = build_chart(&s, &specs, o);
        assert_eq!((pc.chart.lines.len(), pc.specs.clone()), (2, vec![1, 2]));
        assert_eq!(pc.chart.lines[1].color, RGBColor(0, 255, 0));
        let v = values_at(&pc, 9.0, 0.0);
        assert_eq!(
            v.iter().map(|v| (v.spec, v.y)).collect::<Vec<_>>(),
            vec![(1, 3.0), (2, 5.0)]
        );
        assert!(values_at(&pc, 20.0, 1.0).is_empty());

        let groups = vec![spec("adam", "#4e79a7", &["a", "b"], true)];
        let pc = build_chart(&s, &groups, o);
        assert_eq!(pc.chart.lines[0].points, vec![(0.0, 2.0), (10.0, 4.0)]);
        assert_eq!(
            pc.chart.lines[0].band,
            vec![(0.0, 1.0, 3.0), (10.0, 3.0, 5.0)]
        );
        let v = values_at(&pc, 1.0, 0.0);
        assert_eq!((v[0].y, v[0].band), (2.0, Some((1.0, 3.0))));

        let smooth = build_chart(
            &s,
            &specs,
            LineOptions {
                smoothing: 0.5,
                ..o
            },
        );
        assert_eq!(smooth.chart.lines[0].raw, vec![(0.0, 1.0), (10.0, 3.0)]);
        assert!(smooth.chart.lines[0].points[1].1 < 3.0);
    }

    #[test]
    fn a_key_every_run_logged_once_becomes_bars() {
        let batch = |series| json::workspace::SeriesBatch {
            series,
            missing: vec![],
        };
        let once = batch(vec![
            series("a", "acc", vec![sp(9, 0.9)]),
            series("b", "acc", vec![sp(9, 0.8)]),
            series("c", "acc", vec![sp(3, 0.4)]),
        ]);
        let s = from_batch(&once, "acc", None);
        let o = LineOptions {
            smoothing: 0.5,
            columns: 100,
            zoom: None,
            x_axis: json::XAxis::Step,
            log_y: true,
            bars: true,
        };
        let specs = vec![
            spec("none", "#000001", &["missing"], false),
            spec("run a", "#ff0000", &["a"], false),
            spec("run b", "#00ff00", &["b"], false),
        ];
        // One bar per drawn spec, in its colour and name; the hidden run c is not drawn.
        // Where bars are off (a node's live GPU series), one sample is a line's start.
        let lines = build_chart(&s, &specs, LineOptions { bars: false, ..o });
        assert!(!lines.is_bars() && lines.chart.lines.len() == 2);
        let pc = build_chart(&s, &specs, o);
        assert!(pc.is_bars() && pc.chart.lines.is_empty());
        assert_eq!(pc.specs, vec![1, 2]);
        let bars = pc.bars.unwrap_or_default();
        let got: Vec<(&str, RGBColor, f64)> = bars
            .iter()
            .map(|b| (b.label.as_str(), b.color, b.value))
            .collect();
        assert_eq!(
            got,
            vec![
                ("run a", RGBColor(255, 0, 0), 0.9),
                ("run b", RGBColor(0, 255, 0), 0.8)
            ]
        );
        // A group's bar is its runs' mean.
        let groups = vec![spec("adam", "#4e79a7", &["a", "c"], true)];
        let (bars, _) = single_values(&s, &groups, None).unwrap_or_default();
        assert!((bars[0].value - 0.65).abs() < 1e-12);
        // Zoomed: lines.
        assert!(single_values(&s, &specs, Some((0.0, 10.0))).is_none());

        // One run with many points (even if thinned to one), or a NaN: lines.
        let mut many = series("b", "acc", vec![sp(9, 0.8)]);
        many.points_in_range = 40;
        let mixed = from_batch(
            &batch(vec![series("a", "acc", vec![sp(9, 0.9)]), many]),
            "acc",
            None,
        );
        let pc = build_chart(&mixed, &specs, o);
        assert!(!pc.is_bars());
        assert_eq!(pc.chart.lines.len(), 2);
        let mut nan = series("b", "acc", vec![sp(9, 0.8)]);
        nan.non_finite = vec![sp(10, f64::NAN)];
        let with_nan = from_batch(
            &batch(vec![series("a", "acc", vec![sp(9, 0.9)]), nan]),
            "acc",
            None,
        );
        assert!(single_values(&with_nan, &specs, None).is_none());
        // A live point turns bars into lines.
        let mut live = s.clone();
        append(&mut live[0], &[sp(10, 0.95)]);
        assert!(!build_chart(&live, &specs, o).is_bars());
    }

    #[test]
    fn tooltip_rows_go_highest_first_and_pick_the_line_under_the_cursor() {
        let v = |spec: usize, y: f64| LineValue {
            spec,
            x: 0.0,
            y,
            raw: None,
            band: None,
        };
        // y maps to pixels as 100 - y (higher values nearer the top).
        let px = |y: f64| Some(100.0 - y);
        let (rows, picked) = rank_values(vec![v(0, 10.0), v(1, 50.0), v(2, 30.0)], Some(68.0), px);
        let order: Vec<usize> = rows.iter().map(|r| r.spec).collect();
        assert_eq!(order, [1, 2, 0]);
        // The cursor at pixel 68 is 2 px from spec 2's point (y = 30 at pixel 70).
        assert_eq!(picked, Some(1));
        // Far from every point, or no cursor: nothing is picked.
        assert_eq!(rank_values(vec![v(0, 10.0)], Some(10.0), px).1, None);
        assert_eq!(rank_values(vec![v(0, 10.0)], None, px).1, None);
    }
}
