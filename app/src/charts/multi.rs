//! Paints one metric of several runs on a canvas with plotters (the experiment's chart
//! view): a line per run or per group in its colour (faint raw line under the
//! smoothed one when smoothing is on), and for groups a shaded min–max band.

use api_types as json;
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use super::axis::TickedAxis;
use super::draw::{err, surface, DrawError, DrawInfo, Palette, Surface};
use super::scale;
use super::ChartPoint;

/// A line of the chart: a run, or a group's mean.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Its colour.
    pub color: RGBColor,
    /// `(x, y)` in data units, ordered by x (smoothed already, when smoothing is on).
    pub points: Vec<(f64, f64)>,
    /// The raw line drawn faint under `points` (when smoothing is on).
    pub raw: Vec<(f64, f64)>,
    /// A group's band: `(x, min, max)`, ordered by x; empty for a run.
    pub band: Vec<(f64, f64, f64)>,
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
}

impl MultiChart {
    /// The y range covering what is drawn inside `x_range` (bands included).
    pub fn y_range(&self, x_range: (f64, f64)) -> scale::YRange {
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

/// Draws `chart` on `canvas` (sized to its CSS box times `pixel_ratio`). `DrawInfo::drawn`
/// counts the points of the lines drawn; `line_color` is the first line's colour.
pub fn draw_multi(
    canvas: &HtmlCanvasElement,
    chart: &MultiChart,
    pal: &Palette,
    pixel_ratio: f64,
) -> Result<DrawInfo, DrawError> {
    let Surface { root, dpr, css_w } = surface(canvas, pal.background, pixel_ratio)?;
    let px = |v: f64| (v * dpr).round() as i32;
    let log = chart.log_y;
    let (x0, x1) = scale::x_range(chart.x_range, chart.x_axis);
    let y = chart.y_range((x0, x1));
    // A label needs about 90 CSS pixels.
    let x_max = ((css_w - 60.0) / 90.0).floor().clamp(2.0, 6.0) as usize;
    let x_ticks = scale::x_ticks(chart.x_axis, x0, x1, x_max);
    let y_ticks = scale::y_ticks(y.lo, y.hi, 5, log);
    let mut ctx = ChartBuilder::on(&root)
        .margin_top(px(10.0))
        .margin_right(px(16.0))
        .x_label_area_size(px(26.0))
        .y_label_area_size(px(60.0))
        .build_cartesian_2d(
            TickedAxis::new(x0..x1, x_ticks),
            TickedAxis::new(y.lo..y.hi, y_ticks),
        )
        .map_err(err)?;
    let font = ("sans-serif", 11.0 * dpr).into_font().color(&pal.text);
    ctx.configure_mesh()
        .light_line_style(pal.background)
        .bold_line_style(pal.grid)
        .axis_style(pal.axis)
        .label_style(font)
        .draw()
        .map_err(err)?;
    let lw = px(2.0).max(2) as u32;
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
        for seg in segments(&line.points, log) {
            drawn += seg.len();
            if seg.len() == 1 {
                ctx.draw_series(std::iter::once(Circle::new(seg[0], lw + 1, solid.filled())))
                    .map_err(err)?;
            } else {
                ctx.draw_series(LineSeries::new(seg, solid)).map_err(err)?;
            }
        }
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
            .map(|l| super::draw::hex(l.color))
            .unwrap_or_default(),
    })
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
        let chart = MultiChart {
            lines: vec![
                Line {
                    color: RGBColor(0, 0, 0),
                    points: vec![(0.0, 1.0), (5.0, 2.0), (50.0, 100.0)],
                    raw: vec![],
                    band: vec![],
                },
                Line {
                    color: RGBColor(1, 1, 1),
                    points: vec![(1.0, 1.5)],
                    raw: vec![],
                    band: vec![(1.0, 0.0, 4.0)],
                },
            ],
            x_range: None,
            x_axis: json::XAxis::Step,
            log_y: false,
        };
        let y = chart.y_range((0.0, 10.0));
        assert!(y.data_lo < 0.0 && y.data_lo > -0.5);
        assert!(y.data_hi > 4.0 && y.data_hi < 4.5);
    }
}
