//! Paints every line chart of the app on a canvas with plotters: one metric of one run
//! (the run page), one metric of several runs or groups (the experiment's chart view, a
//! node's GPUs on the System tab) and the GPU panel's small time charts. A single-line
//! chart is a chart with one line. Each line is drawn in its colour, over a faint raw line
//! when smoothed, over a shaded min–max band for a group, with markers for NaN and ±inf at
//! the plot's edges; a [`Layout`] sizes margins, labels, ticks and strokes.

use api_types as json;
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use super::axis::TickedAxis;
use super::data::{Marker, NonFinite};
use super::draw::{err, hex, surface, DrawError, DrawInfo, Palette, Surface};
use super::{scale, smoothing, ChartPoint};

/// A line of the chart: a run, a group's mean, or a GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// What the line is, e.g. `GPU 0`.
    pub label: String,
    /// Its colour.
    pub color: RGBColor,
    /// `(x, y)` in data units, ordered by x (smoothed already, when smoothing is on).
    pub points: Vec<(f64, f64)>,
    /// The raw line drawn faint under `points` (when smoothing is on).
    pub raw: Vec<(f64, f64)>,
    /// A group's band: `(x, min, max)`, ordered by x; empty for a run.
    pub band: Vec<(f64, f64, f64)>,
    /// Non-finite values, drawn as markers at the plot's edges.
    pub markers: Vec<Marker>,
}

impl Line {
    /// A plain line through `points`.
    pub fn new(label: impl Into<String>, color: RGBColor, points: Vec<(f64, f64)>) -> Self {
        Line {
            label: label.into(),
            color,
            points,
            raw: Vec::new(),
            band: Vec::new(),
            markers: Vec::new(),
        }
    }

    /// A run's line through `raw`: smoothed with weight `w` over the faint raw line when
    /// `w > 0`, else the raw line itself.
    pub fn smoothed(
        label: impl Into<String>,
        color: RGBColor,
        raw: Vec<(f64, f64)>,
        w: f64,
    ) -> Self {
        if w > 0.0 {
            Line {
                points: smoothed(&raw, w),
                raw,
                ..Line::new(label, color, Vec::new())
            }
        } else {
            Line::new(label, color, raw)
        }
    }
}

/// `points` with their y smoothed by [`smoothing::ema_debiased`] with weight `w`.
pub fn smoothed(points: &[(f64, f64)], w: f64) -> Vec<(f64, f64)> {
    let ys: Vec<f64> = points.iter().map(|p| p.1).collect();
    points
        .iter()
        .zip(smoothing::ema_debiased(&ys, w))
        .map(|(p, y)| (p.0, y))
        .collect()
}

/// Sizes of a chart's frame and strokes, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// Space above the plot.
    pub margin_top: f64,
    /// Space right of the plot.
    pub margin_right: f64,
    /// Height of the x labels' band.
    pub x_label_area: f64,
    /// Width of the y labels' band.
    pub y_label_area: f64,
    /// Label font size.
    pub font: f64,
    /// Room the x labels take: `(reserved, per label)`, which caps the x ticks (2 to 6)
    /// by the canvas' width; `None`: always 6.
    pub x_label_room: Option<(f64, f64)>,
    /// The most y ticks.
    pub y_ticks: usize,
    /// Line width (at least `min_line_width` device pixels).
    pub line_width: f64,
    /// The thinnest line, device pixels.
    pub min_line_width: u32,
    /// A lone point's dot: its radius beyond the line width, device pixels.
    pub dot_extra: u32,
}

impl Layout {
    /// A run page's chart of one metric.
    pub const SINGLE: Layout = Layout {
        margin_top: 10.0,
        margin_right: 16.0,
        x_label_area: 26.0,
        y_label_area: 60.0,
        font: 11.0,
        x_label_room: None,
        y_ticks: 5,
        line_width: 2.0,
        min_line_width: 2,
        dot_extra: 0,
    };
    /// A panel of several runs (the experiment's chart view, a node's GPUs).
    pub const PANEL: Layout = Layout {
        x_label_room: Some((60.0, 90.0)),
        dot_extra: 1,
        ..Layout::SINGLE
    };
    /// The GPU panel's small time charts.
    pub const SMALL: Layout = Layout {
        margin_top: 6.0,
        margin_right: 10.0,
        x_label_area: 20.0,
        y_label_area: 40.0,
        font: 10.0,
        x_label_room: Some((50.0, 80.0)),
        y_ticks: 3,
        line_width: 1.5,
        min_line_width: 1,
        dot_extra: 0,
    };

    /// How many x ticks fit a canvas `css_w` wide.
    fn x_ticks(&self, css_w: f64) -> usize {
        match self.x_label_room {
            Some((reserved, each)) => ((css_w - reserved) / each).floor().clamp(2.0, 6.0) as usize,
            None => 6,
        }
    }
}

/// What the chart shows.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiChart {
    /// The lines, drawn in order (later on top).
    pub lines: Vec<Line>,
    /// The x range to show (the zoom, else the data's extent).
    pub x_range: Option<(f64, f64)>,
    /// What x measures (for labels; another metric labels like steps).
    pub x_axis: json::XAxis,
    /// Log y axis.
    pub log_y: bool,
    /// A fixed y range `(lo, hi)` instead of one fitted to what is drawn.
    pub y_fixed: Option<(f64, f64)>,
    /// Break each line where samples are missing ([`split_gaps`] at [`max_gap`]).
    pub break_gaps: bool,
    /// Frame and stroke sizes.
    pub layout: Layout,
}

impl MultiChart {
    /// A chart of `lines` with a fitted y axis, unbroken lines and the panel layout.
    pub fn new(
        lines: Vec<Line>,
        x_range: Option<(f64, f64)>,
        x_axis: json::XAxis,
        log_y: bool,
    ) -> Self {
        MultiChart {
            lines,
            x_range,
            x_axis,
            log_y,
            y_fixed: None,
            break_gaps: false,
            layout: Layout::PANEL,
        }
    }

    /// The y range covering what is drawn inside `x_range` (bands included).
    pub fn y_range(&self, x_range: (f64, f64)) -> scale::YRange {
        if let Some((lo, hi)) = self.y_fixed {
            return scale::YRange {
                lo,
                hi,
                data_lo: scale::from_draw(lo, self.log_y),
                data_hi: scale::from_draw(hi, self.log_y),
            };
        }
        let inside = |x: f64| x >= x_range.0 && x <= x_range.1;
        let mut ys: Vec<ChartPoint> = Vec::new();
        let mut push = |x: f64, y: f64| {
            if inside(x) {
                ys.push(ChartPoint {
                    x,
                    y,
                    step: 0,
                    timestamp: 0,
                });
            }
        };
        for l in &self.lines {
            l.points.iter().chain(&l.raw).for_each(|&(x, y)| push(x, y));
            for &(x, lo, hi) in &l.band {
                push(x, lo);
                push(x, hi);
            }
        }
        scale::y_range(&ys, self.log_y)
    }
}

/// Splits `points` into runs wherever two neighbours are more than `max_gap` apart, so
/// a stretch without samples is not drawn as a straight line across it.
pub fn split_gaps(points: &[(f64, f64)], max_gap: f64) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut prev: Option<f64> = None;
    for &(x, y) in points {
        match (prev, out.last_mut()) {
            (Some(p), Some(run)) if x - p <= max_gap => run.push((x, y)),
            _ => out.push(vec![(x, y)]),
        }
        prev = Some(x);
    }
    out
}

/// The largest step between samples still drawn as one line: three times the median step
/// (at least 5 s).
pub fn max_gap(points: &[(f64, f64)]) -> f64 {
    let mut steps: Vec<f64> = points.windows(2).map(|w| w[1].0 - w[0].0).collect();
    steps.sort_by(f64::total_cmp);
    let median = steps.get(steps.len() / 2).copied().unwrap_or(0.0);
    (median * 3.0).max(5_000.0)
}

/// Splits a line into drawable runs (a log axis breaks it at values ≤ 0).
pub fn segments(points: &[(f64, f64)], log: bool) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for &(x, y) in points {
        match scale::to_draw(y, log) {
            Some(v) => out.last_mut().into_iter().for_each(|s| s.push((x, v))),
            None if out.last().is_some_and(|s| !s.is_empty()) => out.push(Vec::new()),
            None => {}
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// A band as polygons in drawing space: the max edge left to right, then the min edge
/// back (broken wherever either edge is not drawable).
pub fn band_polygons(band: &[(f64, f64, f64)], log: bool) -> Vec<Vec<(f64, f64)>> {
    let mut runs: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new()];
    for &(x, lo, hi) in band {
        match (scale::to_draw(lo, log), scale::to_draw(hi, log)) {
            (Some(l), Some(h)) => runs.last_mut().into_iter().for_each(|r| r.push((x, l, h))),
            _ if runs.last().is_some_and(|r| !r.is_empty()) => runs.push(Vec::new()),
            _ => {}
        }
    }
    runs.into_iter()
        .filter(|r| r.len() >= 2)
        .map(|r| {
            let top = r.iter().map(|&(x, _, h)| (x, h));
            let bottom = r.iter().rev().map(|&(x, l, _)| (x, l));
            top.chain(bottom).collect()
        })
        .collect()
}

type Ctx<'a> =
    ChartContext<'a, plotters_canvas::CanvasBackend, Cartesian2d<TickedAxis, TickedAxis>>;

/// Draws `chart` on `canvas` (sized to its CSS box times `pixel_ratio`). `DrawInfo::drawn`
/// counts the points of the lines drawn; `line_color` is the first line's colour.
pub fn draw_multi(
    canvas: &HtmlCanvasElement,
    chart: &MultiChart,
    pal: &Palette,
    pixel_ratio: f64,
) -> Result<DrawInfo, DrawError> {
    let Surface { root, dpr, css_w } = surface(canvas, pal.background, pixel_ratio)?;
    let lay = chart.layout;
    let px = |v: f64| (v * dpr).round() as i32;
    let log = chart.log_y;
    let (x0, x1) = scale::x_range(chart.x_range, chart.x_axis);
    let y = chart.y_range((x0, x1));
    let x_ticks = scale::x_ticks(chart.x_axis, x0, x1, lay.x_ticks(css_w));
    let y_ticks = scale::y_ticks(y.lo, y.hi, lay.y_ticks, log);
    let mut ctx = ChartBuilder::on(&root)
        .margin_top(px(lay.margin_top))
        .margin_right(px(lay.margin_right))
        .x_label_area_size(px(lay.x_label_area))
        .y_label_area_size(px(lay.y_label_area))
        .build_cartesian_2d(
            TickedAxis::new(x0..x1, x_ticks),
            TickedAxis::new(y.lo..y.hi, y_ticks),
        )
        .map_err(err)?;
    let font = ("sans-serif", lay.font * dpr).into_font().color(&pal.text);
    ctx.configure_mesh()
        .light_line_style(pal.background)
        .bold_line_style(pal.grid)
        .axis_style(pal.axis)
        .label_style(font)
        .draw()
        .map_err(err)?;
    let lw = (px(lay.line_width).max(0) as u32).max(lay.min_line_width);
    for line in &chart.lines {
        for poly in band_polygons(&line.band, log) {
            ctx.draw_series(std::iter::once(Polygon::new(poly, line.color.mix(0.18))))
                .map_err(err)?;
        }
    }
    let mut drawn = 0;
    for line in &chart.lines {
        let faint = ShapeStyle {
            color: line.color.mix(0.3),
            filled: false,
            stroke_width: lw,
        };
        for seg in segments(&line.raw, log) {
            ctx.draw_series(LineSeries::new(seg, faint)).map_err(err)?;
        }
        let solid = ShapeStyle {
            color: line.color.to_rgba(),
            filled: false,
            stroke_width: lw,
        };
        let runs = if chart.break_gaps {
            split_gaps(&line.points, max_gap(&line.points))
        } else {
            vec![line.points.clone()]
        };
        for seg in runs.iter().flat_map(|run| segments(run, log)) {
            drawn += seg.len();
            if seg.len() == 1 {
                let dot = Circle::new(seg[0], lw + lay.dot_extra, solid.filled());
                ctx.draw_series(std::iter::once(dot)).map_err(err)?;
            } else {
                ctx.draw_series(LineSeries::new(seg, solid)).map_err(err)?;
            }
        }
    }
    for line in &chart.lines {
        draw_markers(&mut ctx, &line.markers, &y, pal, dpr)?;
    }
    let (xr, yr) = ctx.plotting_area().get_pixel_range();
    root.present().map_err(err)?;
    let total: usize = chart.lines.iter().map(|l| l.points.len()).sum();
    Ok(DrawInfo {
        left: f64::from(xr.start) / dpr,
        top: f64::from(yr.start) / dpr,
        width: f64::from(xr.end - xr.start) / dpr,
        height: f64::from(yr.end - yr.start) / dpr,
        x_range: (x0, x1),
        y,
        drawn,
        hidden_non_positive: total - drawn.min(total),
        line_color: chart
            .lines
            .first()
            .map(|l| hex(l.color))
            .unwrap_or_default(),
    })
}

/// +inf: ▲ at the top edge; −inf: ▼ at the bottom edge; NaN: ◆ at the bottom edge.
fn draw_markers(
    ctx: &mut Ctx<'_>,
    markers: &[Marker],
    y: &scale::YRange,
    pal: &Palette,
    dpr: f64,
) -> Result<(), DrawError> {
    if markers.is_empty() {
        return Ok(());
    }
    let s = (5.0 * dpr).round() as i32;
    let h = (8.0 * dpr).round() as i32;
    for kind in [NonFinite::PosInf, NonFinite::NegInf, NonFinite::Nan] {
        let (edge, shape, color) = match kind {
            NonFinite::PosInf => (y.hi, vec![(0, 1), (-s, 1 + h), (s, 1 + h)], pal.inf),
            NonFinite::NegInf => (y.lo, vec![(0, -1), (-s, -1 - h), (s, -1 - h)], pal.inf),
            NonFinite::Nan => (
                y.lo,
                vec![(0, -2 * s - 2), (-s, -s - 2), (0, -2), (s, -s - 2)],
                pal.nan,
            ),
        };
        let marks = markers.iter().filter(|m| m.kind == kind);
        ctx.draw_series(
            marks.map(|m| {
                EmptyElement::at((m.x, edge)) + Polygon::new(shape.clone(), color.filled())
            }),
        )
        .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_become_closed_polygons_broken_on_log_axes() {
        let band = [(0.0, 1.0, 2.0), (1.0, 1.5, 3.0), (2.0, 2.0, 4.0)];
        let polys = band_polygons(&band, false);
        assert_eq!(
            polys,
            vec![vec![
                (0.0, 2.0),
                (1.0, 3.0),
                (2.0, 4.0),
                (2.0, 2.0),
                (1.0, 1.5),
                (0.0, 1.0)
            ]]
        );
        // A min ≤ 0 on a log axis breaks the band; a lone column draws nothing.
        let band = [
            (0.0, 1.0, 10.0),
            (1.0, 1.0, 10.0),
            (2.0, 0.0, 10.0),
            (3.0, 1.0, 10.0),
        ];
        let polys = band_polygons(&band, true);
        assert_eq!(polys.len(), 1);
        assert_eq!(
            polys[0],
            vec![(0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]
        );
        assert_eq!(
            segments(&[(0.0, 1.0), (1.0, -1.0), (2.0, 10.0)], true).len(),
            2
        );
    }

    #[test]
    fn y_range_covers_lines_and_bands_in_view() {
        let chart = MultiChart::new(
            vec![
                Line::new(
                    "",
                    RGBColor(0, 0, 0),
                    vec![(0.0, 1.0), (5.0, 2.0), (50.0, 100.0)],
                ),
                Line {
                    band: vec![(1.0, 0.0, 4.0)],
                    ..Line::new("", RGBColor(1, 1, 1), vec![(1.0, 1.5)])
                },
            ],
            None,
            json::XAxis::Step,
            false,
        );
        let y = chart.y_range((0.0, 10.0));
        assert!(y.data_lo < 0.0 && y.data_lo > -0.5);
        assert!(y.data_hi > 4.0 && y.data_hi < 4.5);
    }

    #[test]
    fn log_axis_breaks_the_line_at_non_positive_values() {
        let xs = [0.0, 1.0, 2.0, 3.0, 4.0];
        let line = |ys: [f64; 5]| -> Vec<(f64, f64)> { xs.iter().copied().zip(ys).collect() };
        let segs = segments(&line([1.0, 2.0, -1.0, 4.0, 5.0]), true);
        assert_eq!(segs.len(), 2);
        assert_eq!(segs[1], vec![(3.0, 4f64.log10()), (4.0, 5f64.log10())]);
        assert_eq!(segments(&line([1.0, 2.0, -1.0, 4.0, 5.0]), false).len(), 1);
        assert_eq!(hex(RGBColor(37, 99, 235)), "#2563eb");
    }

    #[test]
    fn lines_break_where_samples_are_missing() {
        let pts = [
            (0.0, 1.0),
            (1000.0, 2.0),
            (2000.0, 3.0),
            (60_000.0, 4.0),
            (61_000.0, 5.0),
        ];
        let gap = max_gap(&pts);
        assert_eq!(gap, 5_000.0);
        let runs = split_gaps(&pts, gap);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[1], vec![(60_000.0, 4.0), (61_000.0, 5.0)]);
        assert_eq!(split_gaps(&[], gap), Vec::<Vec<(f64, f64)>>::new());
        // Ten-second samples: a 30 s step is still one line.
        let slow = [
            (0.0, 1.0),
            (10_000.0, 1.0),
            (20_000.0, 1.0),
            (50_000.0, 1.0),
        ];
        assert_eq!(split_gaps(&slow, max_gap(&slow)).len(), 1);
    }
}
