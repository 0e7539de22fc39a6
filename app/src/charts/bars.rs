//! Paints a metric that each run logged once as a bar chart (as W&B and MLflow do): one bar
//! per run in its colour from zero, run names under the bars (cut to fit their slot), the
//! value axis on the same ticks and axis as the line charts.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use web_sys::HtmlCanvasElement;

use super::axis::TickedAxis;
use super::draw::{err, hex, surface, DrawError, DrawInfo, Palette, Surface};
use super::scale::{self, YRange};
use super::ticks::Ticks;

/// One bar: a run (or a group's mean).
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// The run's name (or the group's label).
    pub label: String,
    /// Its colour.
    pub color: RGBColor,
    /// The value.
    pub value: f64,
}

/// The widest a bar is drawn, in CSS pixels (one run on a wide panel is not a slab).
pub const MAX_BAR_PX: f64 = 64.0;
/// Below this slot width, in CSS pixels, names are left to the tooltip and the legend.
pub const MIN_LABEL_PX: f64 = 24.0;
/// About how wide one character of an 11 px label is, in CSS pixels.
const CHAR_PX: f64 = 6.5;

/// The value range of bars: from zero when every value has the same sign (else spanning
/// zero), padded by 5% away from zero; all zeros get `[0, 1]`.
pub fn value_range(values: &[f64]) -> YRange {
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = if hi - lo > 0.0 {
        let pad = (hi - lo) * 0.05;
        (
            if lo < 0.0 { lo - pad } else { 0.0 },
            if hi > 0.0 { hi + pad } else { 0.0 },
        )
    } else {
        (0.0, 1.0)
    };
    YRange {
        lo,
        hi,
        data_lo: lo,
        data_hi: hi,
    }
}

/// The pixel extent `(left, right)` of bar `i` of `n` in a plot `width` wide from `left`:
/// centred in its slot, 70% of it and at most [`MAX_BAR_PX`].
pub fn bar_px(i: usize, n: usize, left: f64, width: f64) -> (f64, f64) {
    let slot = width / n.max(1) as f64;
    let w = (slot * 0.7).min(MAX_BAR_PX);
    let centre = left + slot * (i as f64 + 0.5);
    (centre - w / 2.0, centre + w / 2.0)
}

/// The bar whose slot holds pixel `px`, if any.
pub fn bar_at(px: f64, n: usize, left: f64, width: f64) -> Option<usize> {
    if n == 0 || width <= 0.0 || px < left || px >= left + width {
        return None;
    }
    Some((((px - left) / width * n as f64) as usize).min(n - 1))
}

/// `name` cut to fit `px` CSS pixels (with `…`), or `None` when the slot is too narrow for
/// any name.
pub fn fit_label(name: &str, px: f64) -> Option<String> {
    if px < MIN_LABEL_PX {
        return None;
    }
    let max = (px / CHAR_PX).floor() as usize;
    let count = name.chars().count();
    if count <= max {
        return Some(name.to_owned());
    }
    let cut: String = name.chars().take(max.saturating_sub(1)).collect();
    Some(format!("{cut}…"))
}

/// Draws `bars` on `canvas` (sized to its CSS box times `pixel_ratio`), on a linear value
/// axis whatever the panel's log setting (a bar from zero has no log). The x range of the
/// returned [`DrawInfo`] is `(0, bars)`: bar `i` fills slot `[i, i + 1)`.
pub fn draw_bars(
    canvas: &HtmlCanvasElement,
    bars: &[Bar],
    pal: &Palette,
    pixel_ratio: f64,
) -> Result<DrawInfo, DrawError> {
    let Surface { root, dpr, .. } = surface(canvas, pal.background, pixel_ratio)?;
    let px = |v: f64| (v * dpr).round() as i32;
    let n = bars.len().max(1);
    let values: Vec<f64> = bars.iter().map(|b| b.value).collect();
    let y = value_range(&values);
    let y_ticks = scale::y_ticks(y.lo, y.hi, 5, false);
    let mut ctx = ChartBuilder::on(&root)
        .margin_top(px(10.0))
        .margin_right(px(16.0))
        .x_label_area_size(px(26.0))
        .y_label_area_size(px(60.0))
        .build_cartesian_2d(
            TickedAxis::new(0.0..n as f64, Ticks::default()),
            TickedAxis::new(y.lo..y.hi, y_ticks),
        )
        .map_err(err)?;
    let font = ("sans-serif", 11.0 * dpr).into_font().color(&pal.text);
    ctx.configure_mesh()
        .light_line_style(pal.background)
        .bold_line_style(pal.grid)
        .axis_style(pal.axis)
        .label_style(font.clone())
        .draw()
        .map_err(err)?;
    let (xr, yr) = ctx.plotting_area().get_pixel_range();
    let (left, top) = (f64::from(xr.start) / dpr, f64::from(yr.start) / dpr);
    let (width, height) = (
        f64::from(xr.end - xr.start) / dpr,
        f64::from(yr.end - yr.start) / dpr,
    );
    // Bars in data units: x from pixels, so that the cap on a bar's width holds.
    let to_x = |p: f64| (p - left) / width.max(1.0) * n as f64;
    let mut drawn = 0;
    for (i, b) in bars.iter().enumerate().filter(|(_, b)| b.value.is_finite()) {
        let (l, r) = bar_px(i, n, left, width);
        let (top, bottom) = (b.value.max(0.0), b.value.min(0.0));
        let rect = Rectangle::new([(to_x(l), top), (to_x(r), bottom)], b.color.filled());
        ctx.draw_series(std::iter::once(rect)).map_err(err)?;
        drawn += 1;
    }
    if y.lo < 0.0 {
        let zero = LineSeries::new([(0.0, 0.0), (n as f64, 0.0)], pal.axis);
        ctx.draw_series(zero).map_err(err)?;
    }
    let slot = width / n as f64;
    let label_style = font.pos(Pos::new(HPos::Center, VPos::Top));
    let label_top = px(top + height + 6.0);
    for (i, b) in bars.iter().enumerate() {
        let Some(text) = fit_label(&b.label, slot - 4.0) else {
            break;
        };
        let centre = px(left + slot * (i as f64 + 0.5));
        root.draw_text(&text, &label_style, (centre, label_top))
            .map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(DrawInfo {
        left,
        top,
        width,
        height,
        x_range: (0.0, n as f64),
        y,
        drawn,
        hidden_non_positive: 0,
        line_color: bars.first().map(|b| hex(b.color)).unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_axis_starts_at_zero_or_spans_it() {
        let r = value_range(&[0.5, 0.8, 0.9]);
        assert_eq!(r.lo, 0.0);
        assert!(r.hi > 0.9 && r.hi < 0.95);
        let r = value_range(&[-2.0, -1.0]);
        assert!(r.lo < -2.0 && r.lo > -2.2);
        assert_eq!(r.hi, 0.0);
        let r = value_range(&[-1.0, 3.0]);
        assert!(r.lo < -1.0 && r.hi > 3.0);
        // One value, or all zeros, still gets a range.
        assert_eq!(value_range(&[2.0]).lo, 0.0);
        assert!(value_range(&[2.0]).hi > 2.0);
        assert_eq!((value_range(&[0.0]).lo, value_range(&[0.0]).hi), (0.0, 1.0));
        assert_eq!(value_range(&[]).hi, 1.0);
        // A ticked axis labels the range from zero.
        let ticks = scale::y_ticks(0.0, value_range(&[0.5, 0.9]).hi, 5, false);
        assert_eq!(ticks.labels.first().map(String::as_str), Some("0"));
    }

    #[test]
    fn bars_fill_their_slots_up_to_a_cap_and_the_cursor_finds_them() {
        // Four slots of 50 px from 10: bars 35 px wide, centred.
        assert_eq!(bar_px(0, 4, 10.0, 200.0), (17.5, 52.5));
        assert_eq!(bar_px(3, 4, 10.0, 200.0), (167.5, 202.5));
        // One run on a wide plot: capped.
        let (l, r) = bar_px(0, 1, 0.0, 1000.0);
        assert_eq!((r - l, (l + r) / 2.0), (MAX_BAR_PX, 500.0));
        assert_eq!(bar_at(10.0, 4, 10.0, 200.0), Some(0));
        assert_eq!(bar_at(109.0, 4, 10.0, 200.0), Some(1));
        assert_eq!(bar_at(209.9, 4, 10.0, 200.0), Some(3));
        assert_eq!(bar_at(5.0, 4, 10.0, 200.0), None);
        assert_eq!(bar_at(210.0, 4, 10.0, 200.0), None);
        assert_eq!(bar_at(50.0, 0, 10.0, 200.0), None);
    }

    #[test]
    fn labels_are_cut_to_their_slot() {
        assert_eq!(fit_label("adam", 100.0).as_deref(), Some("adam"));
        assert_eq!(
            fit_label("adam-lr-0.001-warmup", 52.0).as_deref(),
            Some("adam-lr…")
        );
        assert_eq!(fit_label("adam", 20.0), None);
    }
}
