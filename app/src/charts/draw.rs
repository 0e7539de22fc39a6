//! What every chart painting shares: the theme's colours, a canvas made ready to paint on,
//! what a painting reports ([`DrawInfo`]) and why it failed ([`DrawError`]).

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use super::scale;

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
