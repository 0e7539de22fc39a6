//! The line under a chart: series colour, points in range, and markers for NaN/±inf
//! and log-hidden values, so nothing is dropped silently.

use leptos::prelude::*;

use super::series::Loaded;
use crate::charts::{DrawInfo, NonFinite};
use crate::format;

/// Legend of one chart.
#[component]
pub fn Legend(
    /// The chart's data.
    loaded: Memo<Loaded>,
    /// Where it was drawn.
    info: RwSignal<Option<DrawInfo>>,
    /// Whether the chart is zoomed.
    #[prop(into)]
    zoomed: Signal<bool>,
) -> impl IntoView {
    let content = move || {
        let (counts, in_range) = loaded.with(|l| match l {
            Some(Ok(d)) => (
                [NonFinite::Nan, NonFinite::PosInf, NonFinite::NegInf].map(|k| (k, d.count(k))),
                d.points_in_range,
            ),
            _ => (
                [
                    (NonFinite::Nan, 0),
                    (NonFinite::PosInf, 0),
                    (NonFinite::NegInf, 0),
                ],
                0,
            ),
        });
        let i = info.get()?;
        let markers = counts.into_iter().filter(|(_, n)| *n > 0).map(|(k, n)| {
            let class = match k {
                NonFinite::Nan => "mark mark-nan",
                NonFinite::PosInf => "mark mark-pinf",
                NonFinite::NegInf => "mark mark-ninf",
            };
            view! { <span class="legend-item"><span class=class aria-hidden="true"></span>{format!("{} ×{n}", k.label())}</span> }
        }).collect_view();
        let hidden = (i.hidden_non_positive > 0).then(|| view! {
            <span class="legend-item muted">{format!("{} values ≤ 0 not shown on log scale", i.hidden_non_positive)}</span>
        });
        Some(view! {
            <span class="legend-item"><span class="swatch" style=format!("background:{}", i.line_color)></span>
                {format!("{} points{}", format::count(in_range), if zoomed.get() { " in range" } else { "" })}</span>
            {markers}
            {hidden}
        })
    };
    view! { <footer class="chart-legend">{content}</footer> }
}
