//! What is drawn over the canvas: the loading / error / empty message, and the drag
//! selection.

use leptos::prelude::*;

use super::series::Loaded;
use crate::charts::DrawInfo;

/// A spinner while loading, the error, or "No points in this range"; nothing once drawn.
#[component]
pub fn StatusOverlay(
    /// The chart's data.
    loaded: Memo<Loaded>,
) -> impl IntoView {
    move || {
        loaded.with(|l| match l {
            None => Some(
                view! { <div class="chart-overlay"><span class="spinner"></span></div> }.into_any(),
            ),
            Some(Err(e)) => Some(
                view! { <div class="chart-overlay error" role="alert">{e.message.clone()}</div> }
                    .into_any(),
            ),
            Some(Ok(d)) if d.points.is_empty() && d.markers.is_empty() => Some(
                view! { <div class="chart-overlay muted">"No points in this range"</div> }
                    .into_any(),
            ),
            _ => None,
        })
    }
}

/// The band being dragged over, to zoom to.
#[component]
pub fn Selection(
    /// (start, current) pixel x of the drag.
    drag: RwSignal<Option<(f64, f64)>>,
    /// Where the plot was drawn.
    info: RwSignal<Option<DrawInfo>>,
) -> impl IntoView {
    move || {
        drag.get()
            .filter(|(a, b)| (a - b).abs() >= 1.0)
            .map(|(a, b)| {
                let (top, h) = info.with(|i| i.as_ref().map_or((0.0, 0.0), |i| (i.top, i.height)));
                let style = format!(
                    "left:{}px;width:{}px;top:{top}px;height:{h}px",
                    a.min(b),
                    (a - b).abs()
                );
                view! { <div class="chart-selection" style=style></div> }
            })
    }
}
