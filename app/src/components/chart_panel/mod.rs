//! One metric chart: `series` fetches the M4-reduced series for the canvas' width and
//! the zoomed range (through the experiment's batched series endpoint, with one run),
//! `render` draws it as a one-line [`charts::MultiChart`](crate::charts::MultiChart),
//! `pointer` handles hover (tooltip), drag to zoom and `overlays` show the state;
//! double-click resets the zoom. A live run's new points come through [`LiveSeries`].

mod hover;
mod legend;
mod live;
mod overlays;
mod pointer;
mod render;
mod series;
mod tooltip;

use api_types as json;
use leptos::html::Canvas;
use leptos::prelude::*;

pub use live::LiveSeries;
pub use overlays::Selection;

use crate::hooks::use_settled_width;
use legend::Legend;
use overlays::StatusOverlay;
use pointer::Pointer;
use render::use_chart_drawing;
use series::{use_series, SeriesId};
use tooltip::tooltip_view;

/// A chart of one metric of one run.
#[component]
pub fn ChartPanel(
    /// The run's experiment id.
    experiment_id: String,
    /// Run id.
    run_id: String,
    /// Metric key.
    key: String,
    /// X axis.
    #[prop(into)]
    x_axis: Signal<json::XAxis>,
    /// Log y axis.
    #[prop(into)]
    log_y: Signal<bool>,
    /// EMA smoothing weight in `[0, 1)`.
    #[prop(into)]
    smoothing: Signal<f64>,
    /// Zoomed x range (axis units), if any.
    #[prop(into)]
    zoom: Signal<Option<(f64, f64)>>,
    /// Called with a new zoom range, or `None` to reset.
    on_zoom: Callback<Option<(f64, f64)>>,
    /// The title shown (the key when absent; the key is always the tooltip).
    #[prop(optional, into)]
    title: Option<String>,
    /// Refetches the series whenever it changes (a live run's refresh).
    #[prop(optional, into)]
    refresh: Signal<u64>,
    /// A live run's new points, appended as they arrive.
    #[prop(default = None)]
    live: Option<LiveSeries>,
) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    let width = use_settled_width(canvas_ref);
    let id = SeriesId {
        experiment_id,
        run_id,
        key: key.clone(),
    };
    let loaded = use_series(id, x_axis, width, zoom, refresh, live);
    let info = use_chart_drawing(canvas_ref, loaded, width, log_y, smoothing);
    let pointer = Pointer::new(loaded, info, log_y, smoothing, on_zoom);
    let tooltip = move || {
        pointer
            .hover
            .get()
            .filter(|_| pointer.drag.get().is_none())
            .map(|h| tooltip_view(h, loaded, info))
    };
    view! {
        <section class="chart-card">
            <header class="chart-header">
                <h3 class="chart-title truncate" title=key.clone()>{title.unwrap_or_else(|| key.clone())}</h3>
                <Show when=move || zoom.get().is_some()>
                    <button class="button button-small" on:click=move |_| on_zoom.run(None)>"Reset zoom"</button>
                </Show>
            </header>
            <div class="chart-body">
                <canvas
                    node_ref=canvas_ref
                    class="chart-canvas"
                    data-testid=format!("chart-{key}")
                    data-status="loading"
                    on:mousemove=move |ev| pointer.moved(ev)
                    on:mousedown=move |ev| pointer.pressed(ev)
                    on:mouseup=move |_| pointer.released()
                    on:mouseleave=move |_| pointer.left()
                    on:dblclick=move |_| on_zoom.run(None)
                ></canvas>
                <Selection drag=pointer.drag info=info />
                {tooltip}
                <StatusOverlay loaded=loaded />
            </div>
            <Legend loaded=loaded info=info zoomed=Signal::derive(move || zoom.get().is_some()) />
        </section>
    }
}
