//! The hover tooltip of a chart: crosshair, dot on the point, and its exact value, step
//! and times.

use api_types as json;
use leptos::prelude::*;

use super::hover::Hover;
use super::series::Loaded;
use crate::charts::{scale, DrawInfo};
use crate::format;

/// Tooltip for `h`, kept inside the chart's plot area.
pub fn tooltip_view(
    h: Hover,
    loaded: Memo<Loaded>,
    info: RwSignal<Option<DrawInfo>>,
) -> impl IntoView {
    let start = loaded.with_untracked(|l| match l {
        Some(Ok(d)) => d.run_start_time,
        _ => 0,
    });
    let width = info.with_untracked(|i| i.as_ref().map_or(0.0, |i| i.left + i.width));
    // Keep the tooltip inside the chart: flip it to the left of the cursor near the right edge.
    let style = if h.x_px > width - 180.0 {
        format!("right:{}px;top:8px", (width - h.x_px + 12.0).max(0.0))
    } else {
        format!("left:{}px;top:8px", h.x_px + 12.0)
    };
    let dot = h.y_px.map(
        |y| view! { <div class="chart-dot" style=format!("left:{}px;top:{y}px", h.x_px)></div> },
    );
    view! {
        <div class="chart-crosshair" style=format!("left:{}px", h.x_px)></div>
        {dot}
        <div class="chart-tooltip" style=style>
            <div class="tt-value mono">{h.value.clone()}</div>
            {h.smoothed.map(|s| view! { <div class="tt-row"><span>"smoothed"</span><span class="mono">{format::value(s)}</span></div> })}
            <div class="tt-row"><span>"step"</span><span class="mono">{h.step}</span></div>
            <div class="tt-row"><span>"time"</span><span class="mono">{format::datetime(h.timestamp)}</span></div>
            <div class="tt-row"><span>"relative"</span><span class="mono">{scale::x_readout((h.timestamp - start) as f64, json::XAxis::Relative)}</span></div>
        </div>
    }
}
