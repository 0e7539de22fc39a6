//! Paints a small time chart of several lines (one per GPU) with plotters: wall-clock x
//! axis, a y axis from 0, and a break in a line wherever samples are missing.

use api_types as json;
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use super::axis::TickedAxis;
use super::draw::{err, surface, DrawError, Palette, Surface};
use super::scale;

/// One line: points `(ms since the epoch, value)`, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// What the line is, e.g. `GPU 0`.
    pub label: String,
    /// Its points.
    pub points: Vec<(f64, f64)>,
}

/// A chart of lines over wall-clock time.
#[derive(Debug, Clone, PartialEq)]
pub struct LinesChart {
    /// The lines, each drawn in the next colour of `colors`.
    pub lines: Vec<Line>,
    /// The x range, ms since the epoch.
    pub x_range: (f64, f64),
    /// The top of the y axis (the bottom is 0).
    pub y_max: f64,
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

/// Draws `chart` on `canvas` (sized to its CSS box times `pixel_ratio`), line `i` in
/// `colors[i % len]`. Returns the number of points drawn.
pub fn draw_lines(
    canvas: &HtmlCanvasElement,
    chart: &LinesChart,
    pal: &Palette,
    colors: &[RGBColor],
    pixel_ratio: f64,
) -> Result<usize, DrawError> {
    let Surface { root, dpr, css_w } = surface(canvas, pal.background, pixel_ratio)?;
    let px = |v: f64| (v * dpr).round() as u32;
    let (x0, x1) = chart.x_range;
    let x1 = if x1 > x0 { x1 } else { x0 + 1_000.0 };
    let y_max = chart.y_max.max(1.0);
    // A time label needs about 80 CSS pixels.
    let x_max = ((css_w - 50.0) / 80.0).floor().clamp(2.0, 6.0) as usize;
    let x_ticks = scale::x_ticks(json::XAxis::Wall, x0, x1, x_max);
    let y_ticks = scale::y_ticks(0.0, y_max, 3, false);
    let mut ctx = ChartBuilder::on(&root)
        .margin_top(px(6.0))
        .margin_right(px(10.0))
        .x_label_area_size(px(20.0))
        .y_label_area_size(px(40.0))
        .build_cartesian_2d(
            TickedAxis::new(x0..x1, x_ticks),
            TickedAxis::new(0.0..y_max, y_ticks),
        )
        .map_err(err)?;
    let font = ("sans-serif", 10.0 * dpr).into_font().color(&pal.text);
    ctx.configure_mesh()
        .light_line_style(pal.background)
        .bold_line_style(pal.grid)
        .axis_style(pal.axis)
        .label_style(font)
        .draw()
        .map_err(err)?;
    let mut drawn = 0;
    for (i, line) in chart.lines.iter().enumerate() {
        let color = colors
            .get(i % colors.len().max(1))
            .copied()
            .unwrap_or(pal.line);
        let style = ShapeStyle {
            color: color.to_rgba(),
            filled: false,
            stroke_width: px(1.5).max(1),
        };
        for run in split_gaps(&line.points, max_gap(&line.points)) {
            drawn += run.len();
            if run.len() == 1 {
                ctx.draw_series(std::iter::once(Circle::new(
                    run[0],
                    px(1.5),
                    style.filled(),
                )))
                .map_err(err)?;
            } else {
                ctx.draw_series(LineSeries::new(run, style)).map_err(err)?;
            }
        }
    }
    root.present().map_err(err)?;
    Ok(drawn)
}

#[cfg(test)]
mod tests {
    use super::*;

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
