//! Paints the compare charts on canvases with plotters, at the positions [`super::layout`]
//! computes (CSS pixels, scaled by the device pixel ratio here).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use super::super::workspace::is_hex_color;
use super::layout::{self, Area, Point, Scale};
use super::model::Value;
use crate::charts::draw::{err, surface};
use crate::charts::{DrawError, Palette};

/// `#rrggbb` as a colour (grey if malformed).
pub fn rgb(hex: &str) -> RGBColor {
    if !is_hex_color(hex) {
        return RGBColor(128, 128, 128);
    }
    let c = |i: usize| {
        hex.get(i..i + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .unwrap_or(128)
    };
    RGBColor(c(1), c(3), c(5))
}

/// Shortens a label to `max` characters with an ellipsis.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

type Root = DrawingArea<CanvasBackend, plotters::coord::Shift>;

/// The charts' one canvas set-up ([`surface`]); returns the drawing area and the CSS size.
fn prepare(
    canvas: &HtmlCanvasElement,
    pal: &Palette,
    dpr: f64,
) -> Result<(Root, f64, f64), DrawError> {
    let s = surface(canvas, pal.background, dpr)?;
    Ok((s.root, s.css_w, f64::from(canvas.client_height().max(1))))
}

/// A painter in CSS pixels over a device-pixel drawing area.
struct Pen<'a> {
    root: &'a Root,
    dpr: f64,
}

impl Pen<'_> {
    fn at(&self, (x, y): (f64, f64)) -> (i32, i32) {
        ((x * self.dpr).round() as i32, (y * self.dpr).round() as i32)
    }

    fn line(&self, pts: &[(f64, f64)], color: RGBColor, width: f64) -> Result<(), DrawError> {
        let style = ShapeStyle {
            color: color.to_rgba(),
            filled: false,
            stroke_width: (width * self.dpr).round().max(1.0) as u32,
        };
        let pts: Vec<(i32, i32)> = pts.iter().map(|p| self.at(*p)).collect();
        self.root.draw(&PathElement::new(pts, style)).map_err(err)
    }

    fn dot(&self, p: (f64, f64), r: f64, fill: RGBColor, ring: RGBColor) -> Result<(), DrawError> {
        let r = (r * self.dpr).round() as i32;
        self.root
            .draw(&Circle::new(self.at(p), r, fill.filled()))
            .map_err(err)?;
        let ring = ShapeStyle {
            color: ring.to_rgba(),
            filled: false,
            stroke_width: self.dpr.round().max(1.0) as u32,
        };
        self.root
            .draw(&Circle::new(self.at(p), r, ring))
            .map_err(err)
    }

    fn backing(&self, a: (f64, f64), b: (f64, f64), color: RGBColor) -> Result<(), DrawError> {
        let style = color.mix(0.8).filled();
        self.root
            .draw(&Rectangle::new([self.at(a), self.at(b)], style))
            .map_err(err)
    }

    fn text(
        &self,
        s: &str,
        p: (f64, f64),
        color: RGBColor,
        anchor: (HPos, VPos),
    ) -> Result<(), DrawError> {
        let font = ("sans-serif", 11.0 * self.dpr)
            .into_font()
            .color(&color)
            .pos(Pos::new(anchor.0, anchor.1));
        self.root
            .draw(&Text::new(s.to_owned(), self.at(p), font))
            .map_err(err)
    }
}

/// What a parallel-coordinates chart shows.
pub struct ParallelChart<'a> {
    /// Axis titles.
    pub titles: Vec<String>,
    /// One scale per axis.
    pub scales: Vec<Scale>,
    /// `columns[axis][run]`.
    pub columns: Vec<Vec<Option<Value>>>,
    /// Each run's colour.
    pub colors: &'a [RGBColor],
    /// Per run: whether it lies outside a brush (drawn faint grey, behind the others).
    pub dimmed: &'a [bool],
    /// Per axis: the brushed range as fractions (low, high), if any.
    pub bands: &'a [Option<(f64, f64)>],
}

/// Where the parallel-coordinates chart put its axes, CSS pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct ParallelDrawn {
    /// Runs with something drawn.
    pub lines: usize,
    /// Pixel x of each axis.
    pub axis_x: Vec<f64>,
    /// The plot area.
    pub area: Area,
}

/// Margins of the parallel-coordinates chart: room for tick labels left of the first axis
/// and for titles above the axes.
const PC_MARGINS: (f64, f64, f64, f64) = (78.0, 30.0, 78.0, 14.0);

/// Draws parallel coordinates; returns what it drew and where.
pub fn draw_parallel(
    canvas: &HtmlCanvasElement,
    chart: &ParallelChart,
    pal: &Palette,
    dpr: f64,
) -> Result<ParallelDrawn, DrawError> {
    let dpr = dpr.clamp(1.0, 4.0);
    let (root, w, h) = prepare(canvas, pal, dpr)?;
    let pen = Pen { root: &root, dpr };
    let area = Area::inside(w, h, PC_MARGINS);
    let p = layout::parallel(&chart.scales, &chart.columns, chart.colors.len(), area);
    let cats = ((area.height / 16.0).floor() as usize).max(2);
    for (x, title) in p.axis_x.iter().zip(&chart.titles) {
        pen.line(
            &[(*x, area.top - 4.0), (*x, area.top + area.height + 4.0)],
            pal.axis,
            1.5,
        )?;
        pen.text(
            &clip(title, 22),
            (*x, 8.0),
            pal.text,
            (HPos::Center, VPos::Top),
        )?;
    }
    let mut drawn = 0;
    // Dimmed runs first (behind), faint; then the others in their colours.
    let faint = pal.axis;
    for dim_pass in [true, false] {
        for (r, (pieces, color)) in p.lines.iter().zip(chart.colors).enumerate() {
            if chart.dimmed.get(r).copied().unwrap_or(false) != dim_pass {
                continue;
            }
            let c = if dim_pass { faint } else { *color };
            for piece in pieces {
                if piece.len() == 1 {
                    pen.dot(piece[0], 3.0, c, c)?;
                } else {
                    pen.line(piece, c, if dim_pass { 1.0 } else { 2.0 })?;
                }
            }
            drawn += usize::from(!pieces.is_empty());
        }
    }
    // Brushed ranges: a translucent band on the axis.
    for (x, band) in p.axis_x.iter().zip(chart.bands) {
        if let Some((lo, hi)) = band {
            let style = pal.line.mix(0.25).filled();
            let (a, b) = (
                pen.at((*x - 7.0, area.y(*hi) - 1.0)),
                pen.at((*x + 7.0, area.y(*lo) + 1.0)),
            );
            root.draw(&Rectangle::new([a, b], style)).map_err(err)?;
            let edge = ShapeStyle {
                color: pal.line.mix(0.8),
                filled: false,
                stroke_width: dpr.round().max(1.0) as u32,
            };
            root.draw(&Rectangle::new([a, b], edge)).map_err(err)?;
        }
    }
    // Tick labels over the lines, on a backing so they stay readable: left of each axis,
    // right of the last one.
    let last = p.axis_x.len().saturating_sub(1);
    for (i, (x, scale)) in p.axis_x.iter().zip(&chart.scales).enumerate() {
        let side = if i == last && i > 0 { 1.0 } else { -1.0 };
        for (t, label) in scale.ticks(cats) {
            let y = area.y(t);
            let label = clip(&label, 11);
            pen.line(&[(*x + 8.0 * side, y), (*x, y)], pal.axis, 1.0)?;
            let w = label.chars().count() as f64 * 6.2 + 4.0;
            // Clear of a brush band (7 px either side of the axis).
            let x0 = *x + 9.0 * side;
            let x1 = x0 + w * side;
            pen.backing((x0.min(x1), y - 7.0), (x0.max(x1), y + 7.0), pal.background)?;
            let anchor = if side < 0.0 { HPos::Right } else { HPos::Left };
            pen.text(
                &label,
                (x0 + 2.0 * side, y),
                pal.text,
                (anchor, VPos::Center),
            )?;
        }
    }
    root.present().map_err(err)?;
    Ok(ParallelDrawn {
        lines: drawn,
        axis_x: p.axis_x,
        area,
    })
}

/// What a scatter chart shows.
pub struct ScatterChart<'a> {
    /// x title and scale.
    pub x: (String, Scale),
    /// y title and scale.
    pub y: (String, Scale),
    /// x value per run.
    pub xs: Vec<Option<Value>>,
    /// y value per run.
    pub ys: Vec<Option<Value>>,
    /// Each run's colour, `#rrggbb`.
    pub colors: &'a [String],
}

/// Margins of the scatter chart (y tick labels left, x tick labels and title below).
const SCATTER_MARGINS: (f64, f64, f64, f64) = (70.0, 24.0, 20.0, 44.0);

/// Fraction of each axis left empty at both ends, so points are not cut by the frame.
const SCATTER_PAD: f64 = 0.06;

/// Draws the scatter; returns the points drawn, in CSS pixels (for hover).
pub fn draw_scatter(
    canvas: &HtmlCanvasElement,
    chart: &ScatterChart,
    pal: &Palette,
    dpr: f64,
) -> Result<Vec<Point>, DrawError> {
    let dpr = dpr.clamp(1.0, 4.0);
    let (root, w, h) = prepare(canvas, pal, dpr)?;
    let pen = Pen { root: &root, dpr };
    let area = Area::inside(w, h, SCATTER_MARGINS);
    let inset = |t: f64| SCATTER_PAD + t * (1.0 - 2.0 * SCATTER_PAD);
    let (bottom, right) = (area.top + area.height, area.left + area.width);
    let x_cats = ((area.width / 70.0).floor() as usize).max(2);
    for (t, label) in chart.x.1.ticks(x_cats) {
        let x = area.x(inset(t));
        pen.line(&[(x, area.top), (x, bottom)], pal.grid, 1.0)?;
        pen.text(
            &clip(&label, 10),
            (x, bottom + 6.0),
            pal.text,
            (HPos::Center, VPos::Top),
        )?;
    }
    let y_cats = ((area.height / 18.0).floor() as usize).max(2);
    for (t, label) in chart.y.1.ticks(y_cats) {
        let y = area.y(inset(t));
        pen.line(&[(area.left, y), (right, y)], pal.grid, 1.0)?;
        pen.text(
            &clip(&label, 10),
            (area.left - 6.0, y),
            pal.text,
            (HPos::Right, VPos::Center),
        )?;
    }
    pen.line(
        &[(area.left, area.top), (area.left, bottom), (right, bottom)],
        pal.axis,
        1.0,
    )?;
    let x_title = clip(&chart.x.0, 60);
    pen.text(
        &x_title,
        (area.x(0.5), h - 6.0),
        pal.text,
        (HPos::Center, VPos::Bottom),
    )?;
    pen.text(
        &clip(&chart.y.0, 40),
        (area.left, 6.0),
        pal.text,
        (HPos::Left, VPos::Top),
    )?;
    let points = layout::scatter(
        &chart.x.1,
        &chart.y.1,
        &chart.xs,
        &chart.ys,
        area,
        SCATTER_PAD,
    );
    for p in &points {
        let c = chart.colors.get(p.run).map(|c| rgb(c)).unwrap_or(pal.line);
        pen.dot((p.x, p.y), 5.0, c, pal.background)?;
    }
    root.present().map_err(err)?;
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_labels() {
        assert_eq!(rgb("#4e79a7"), RGBColor(0x4e, 0x79, 0xa7));
        assert_eq!(rgb("bad"), RGBColor(128, 128, 128));
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
    }
}
