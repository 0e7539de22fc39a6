//! The hovered panel's tooltip: the x under the cursor and every line's value there (a
//! run's value, or a group's mean with its min–max), highest first, the line under the
//! cursor picked out (its row marked, a dot on its point); over a bar chart, the hovered
//! bar's run and its exact value.

use leptos::prelude::*;

use super::data::{rank_values, values_at, y_px, PanelChart};
use super::ViewCtx;
use crate::charts::bars::bar_px;
use crate::charts::nearest::x_to_pixel;
use crate::charts::{scale, DrawInfo};
use crate::format;

/// Tolerance, in CSS pixels, beyond a line's ends within which it still reports a value.
const SLACK_PX: f64 = 8.0;

/// Tooltip of the panel under the cursor (nothing for the other panels).
#[component]
pub fn Tooltip(
    /// Data x under the cursor, when this panel is hovered.
    #[prop(into)]
    x: Signal<Option<f64>>,
    /// The cursor's pixel y in the canvas, when this panel is hovered.
    #[prop(into)]
    cursor_y: Signal<Option<f64>>,
    /// What the panel drew.
    chart: Memo<Option<PanelChart>>,
    /// Where it drew it.
    info: RwSignal<Option<DrawInfo>>,
    /// The view's shared state.
    ctx: ViewCtx,
) -> impl IntoView {
    move || {
        let x = x.get()?;
        let i = info.get()?;
        let specs = ctx.specs.get();
        let (axis, log) = ctx.settings.with(|s| (s.x.axis(), s.log_y));
        let per_px = (i.x_range.1 - i.x_range.0) / i.width.max(1.0);
        let values = chart.with(|c| c.as_ref().map(|pc| values_at(pc, x, SLACK_PX * per_px)))?;
        if values.is_empty() {
            return None;
        }
        let (values, picked) = rank_values(values, cursor_y.get(), |v| y_px(&i, v, log));
        let px = x_to_pixel(x, i.left, i.width, i.x_range);
        let right = i.left + i.width;
        let style = if px > right - 220.0 {
            format!("right:{}px;top:8px", (right - px + 14.0).max(0.0))
        } else {
            format!("left:{}px;top:8px", px + 14.0)
        };
        let head = scale::x_readout(values[0].x, axis);
        let dot = picked.and_then(|p| {
            let v = &values[p];
            let color = specs.get(v.spec)?.color.clone();
            let (dx, dy) = (x_to_pixel(v.x, i.left, i.width, i.x_range), y_px(&i, v.y, log)?);
            Some(view! {
                <div class="chart-dot" style=format!("left:{dx}px;top:{dy}px;border-color:{color}")></div>
            })
        });
        let rows = values
            .into_iter()
            .enumerate()
            .filter_map(|(row, v)| {
                let spec = specs.get(v.spec)?.clone();
                let label = if spec.group {
                    format!("{} ({})", spec.label, spec.runs.len())
                } else {
                    spec.label.clone()
                };
                let extra = v
                    .band
                    .filter(|(lo, hi)| spec.group && lo != hi)
                    .map(|(lo, hi)| format!("{} – {}", format::value(lo), format::value(hi)))
                    .or_else(|| v.raw.map(|r| format!("raw {}", format::value(r))));
                Some(view! {
                    <div class="tt-run" class:tt-picked=picked == Some(row)>
                        <span class="swatch" style=format!("background:{}", spec.color)></span>
                        <span class="tt-name truncate">{label}</span>
                        <span class="mono">{format::value(v.y)}</span>
                        {extra.map(|e| view! { <span class="mono muted tt-extra">{e}</span> })}
                    </div>
                })
            })
            .collect_view();
        Some(view! {
            {dot}
            <div class="chart-tooltip wchart-tooltip" style=style role="tooltip">
                <div class="tt-head mono">{head}</div>
                {rows}
            </div>
        })
    }
}

/// About how wide a tooltip is, in CSS pixels.
const TOOLTIP_PX: f64 = 220.0;

/// Where the tooltip of the bar spanning `l..r` goes, in a plot from `left` to `right`:
/// beside the bar where it fits (right, else left), else over the plot's left edge.
fn bar_tooltip_style(l: f64, r: f64, left: f64, right: f64) -> String {
    if r + 8.0 + TOOLTIP_PX <= right {
        format!("left:{}px;top:8px", r + 8.0)
    } else if l - 8.0 - TOOLTIP_PX >= left {
        format!("right:{}px;top:8px", right - l + 8.0)
    } else {
        format!("left:{left}px;top:8px")
    }
}

/// Tooltip of the hovered bar of a bar panel: the run (or group) and its exact value.
#[component]
pub fn BarTooltip(
    /// The bar under the cursor.
    #[prop(into)]
    bar: Signal<Option<usize>>,
    /// What the panel drew.
    chart: Memo<Option<PanelChart>>,
    /// Where it drew it.
    info: RwSignal<Option<DrawInfo>>,
    /// The view's shared state.
    ctx: ViewCtx,
) -> impl IntoView {
    move || {
        let b = bar.get()?;
        let i = info.get()?;
        let (value, spec, n) = chart.with(|c| {
            let pc = c.as_ref()?;
            let bars = pc.bars.as_ref()?;
            Some((bars.get(b)?.value, *pc.specs.get(b)?, bars.len()))
        })?;
        let spec = ctx.specs.with(|s| s.get(spec).cloned())?;
        let (l, r) = bar_px(b, n, i.left, i.width);
        let style = bar_tooltip_style(l, r, i.left, i.left + i.width);
        let label = if spec.group {
            format!("{} ({})", spec.label, spec.runs.len())
        } else {
            spec.label.clone()
        };
        Some(view! {
            <div class="chart-tooltip wchart-tooltip" style=style role="tooltip">
                <div class="tt-run tt-picked">
                    <span class="swatch" style=format!("background:{}", spec.color)></span>
                    <span class="tt-name truncate" title=label.clone()>{label.clone()}</span>
                    <span class="mono">{value.to_string()}</span>
                </div>
            </div>
        })
    }
}
