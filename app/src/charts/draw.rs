//! Paints one metric chart on a canvas with plotters: grid and labels, the raw line (faint
//! when smoothed), the smoothed line, and markers for NaN and ±inf at the plot's edges.

use api_types as json;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use super::axis::TickedAxis;
use super::data::{ChartData, NonFinite};
use super::{scale, smoothing};

/// Colours of a chart (follow the theme).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Palette {
    /// Canvas background.
    pub background: RGBColor,
    /// Grid lines.
    pub grid: RGBColor,
    /// Axis lines.
    pub axis: RGBColor,
    /// Tick labels.
    pub text: RGBColor,
    /// The series' line.
    pub line: RGBColor,
    /// NaN markers.
    pub nan: RGBColor,
    /// ±inf markers.
    pub inf: RGBColor,
}

/// `#rrggbb` of a colour.
pub fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// How to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartOptions {
    /// What x measures (for labels).
    pub x_axis: json::XAxis,
    /// Log y axis.
    pub log_y: bool,
    /// EMA weight in `[0, 1)`; 0 draws the raw line only.
    pub smoothing: f64,
    /// Colours.
    pub palette: Palette,
    /// Device pixels per CSS pixel.
    pub pixel_ratio: f64,
}

/// Where things landed, in CSS pixels and data units, for hover and zoom.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawInfo {
    /// Plot area's left edge.
    pub left: f64,
    /// Plot area's top edge.
    pub top: f64,
    /// Plot area's width.
    pub width: f64,
    /// Plot area's height.
    pub height: f64,
    /// Drawn x range.
    pub x_range: (f64, f64),
    /// Drawn y range.
    pub y: scale::YRange,
    /// Finite points drawn.
    pub drawn: usize,
    /// Values a log axis could not show (≤ 0).
    pub hidden_non_positive: usize,
    /// Colour of the main line, `#rrggbb`.
    pub line_color: String,
}

/// Why a chart could not be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DrawError {
    /// The canvas gave no 2D context.
    #[error("chart drawing failed: no 2D canvas context")]
    NoContext,
    /// Plotters failed while drawing.
    #[error("chart drawing failed: {0}")]
    Plotters(String),
}

type DrawResult<T> = Result<T, DrawError>;

/// A plotters error as a [`DrawError`].
pub(crate) fn err<E: std::fmt::Debug>(e: E) -> DrawError {
    DrawError::Plotters(format!("{e:?}"))
}

/// A canvas made ready to paint on.
pub(crate) struct Surface {
    /// The whole canvas, filled with the background.
    pub root: DrawingArea<CanvasBackend, plotters::coord::Shift>,
    /// Device pixels per CSS pixel (1 to 4).
    pub dpr: f64,
    /// The canvas's CSS width.
    pub css_w: f64,
}

/// Sizes `canvas` to its CSS box times `pixel_ratio` (clamped to 1–4) and fills it with
/// `background`: how every chart starts painting.
pub(crate) fn surface(
    canvas: &HtmlCanvasElement,
    background: RGBColor,
    pixel_ratio: f64,
) -> DrawResult<Surface> {
    let dpr = pixel_ratio.clamp(1.0, 4.0);
    let (css_w, css_h) = (
        f64::from(canvas.client_width().max(1)),
        f64::from(canvas.client_height().max(1)),
    );
    canvas.set_width((css_w * dpr).round() as u32);
    canvas.set_height((css_h * dpr).round() as u32);
    let backend = CanvasBackend::with_canvas_object(canvas.clone()).ok_or(DrawError::NoContext)?;
    let root = backend.into_drawing_area();
    root.fill(&background).map_err(err)?;
    Ok(Surface { root, dpr, css_w })
}

/// Splits the points into drawable runs (a log axis breaks the line at values ≤ 0).
fn segments(xs: &[f64], ys: &[f64], log: bool) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for (x, y) in xs.iter().zip(ys) {
        match scale::to_draw(*y, log) {
            Some(v) => out.last_mut().map(|s| s.push((*x, v))).unwrap_or_default(),
            None if out.last().is_some_and(|s| !s.is_empty()) => out.push(Vec::new()),
            None => {}
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// Draws `data` on `canvas` (sized to its CSS box times the pixel ratio).
pub fn draw_series(
    canvas: &HtmlCanvasElement,
    data: &ChartData,
    opts: &ChartOptions,
) -> DrawResult<DrawInfo> {
    let pal = opts.palette;
    let log = opts.log_y;
    let Surface { root, dpr, .. } = surface(canvas, pal.background, opts.pixel_ratio)?;
    let px = |v: f64| (v * dpr).round() as i32;
    let (x0, x1) = scale::x_range(data.x_range, opts.x_axis);
    let y = scale::y_range(&data.points, log);
    let x_ticks = scale::x_ticks(opts.x_axis, x0, x1, 6);
    let y_ticks = scale::y_ticks(y.lo, y.hi, 5, log);
    let mut chart = ChartBuilder::on(&root)
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
    chart
        .configure_mesh()
        .light_line_style(pal.background)
        .bold_line_style(pal.grid)
        .axis_style(pal.axis)
        .label_style(font)
        .draw()
        .map_err(err)?;

    let xs: Vec<f64> = data.points.iter().map(|p| p.x).collect();
    let raw: Vec<f64> = data.points.iter().map(|p| p.y).collect();
    let lw = px(2.0).max(2) as u32;
    let solid = ShapeStyle {
        color: pal.line.to_rgba(),
        filled: false,
        stroke_width: lw,
    };
    let main = if opts.smoothing > 0.0 {
        let faint = ShapeStyle {
            color: pal.line.mix(0.3),
            filled: false,
            stroke_width: lw,
        };
        for seg in segments(&xs, &raw, log) {
            chart
                .draw_series(LineSeries::new(seg, faint))
                .map_err(err)?;
        }
        smoothing::ema_debiased(&raw, opts.smoothing)
    } else {
        raw.clone()
    };
    let segs = segments(&xs, &main, log);
    for seg in &segs {
        if seg.len() == 1 {
            chart
                .draw_series(std::iter::once(Circle::new(seg[0], lw, solid.filled())))
                .map_err(err)?;
        }
        chart
            .draw_series(LineSeries::new(seg.iter().copied(), solid))
            .map_err(err)?;
    }
    draw_markers(&mut chart, data, &y, &pal, dpr)?;

    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let drawn: usize = segs.iter().map(Vec::len).sum();
    root.present().map_err(err)?;
    Ok(DrawInfo {
        left: f64::from(xr.start) / dpr,
        top: f64::from(yr.start) / dpr,
        width: f64::from(xr.end - xr.start) / dpr,
        height: f64::from(yr.end - yr.start) / dpr,
        x_range: (x0, x1),
        y,
        drawn,
        hidden_non_positive: data.points.len() - drawn,
        line_color: hex(pal.line),
    })
}

type Chart<'a, 'b> = ChartContext<'a, CanvasBackend, Cartesian2d<TickedAxis, TickedAxis>>;

/// +inf: ▲ at the top edge; −inf: ▼ at the bottom edge; NaN: ◆ at the bottom edge.
fn draw_markers(
    chart: &mut Chart<'_, '_>,
    data: &ChartData,
    y: &scale::YRange,
    pal: &Palette,
    dpr: f64,
) -> DrawResult<()> {
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
        let marks = data.markers.iter().filter(|m| m.kind == kind);
        chart
            .draw_series(marks.map(|m| {
                EmptyElement::at((m.x, edge)) + Polygon::new(shape.clone(), color.filled())
            }))
            .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_breaks_the_line_at_non_positive_values() {
        let xs = [0.0, 1.0, 2.0, 3.0, 4.0];
        let segs = segments(&xs, &[1.0, 2.0, -1.0, 4.0, 5.0], true);
        assert_eq!(segs.len(), 2);
        assert_eq!(segs[1], vec![(3.0, 4f64.log10()), (4.0, 5f64.log10())]);
        assert_eq!(segments(&xs, &[1.0, 2.0, -1.0, 4.0, 5.0], false).len(), 1);
        assert_eq!(hex(RGBColor(37, 99, 235)), "#2563eb");
    }
}
