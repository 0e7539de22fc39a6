//! A node's history charts: utilisation, memory, temperature and power, one line per GPU,
//! redrawn on each fetch, on a theme change and when the canvas is resized.

use api_types as json;
use leptos::html::Canvas;
use leptos::prelude::*;
use leptos_use_element_size::{use_element_size, UseElementSizeReturn};

use super::metrics::{gpu_lines, GpuMetric};
use super::state::{PanelData, HISTORY_MS};
use crate::charts::canvas_state::{record, set_status};
use crate::charts::{draw_multi, Layout, MultiChart};
use crate::theme::use_theme;

/// The chart of one quantity of one node.
#[component]
fn HistoryChart(
    /// Everything fetched.
    data: RwSignal<PanelData>,
    /// The node.
    node: String,
    /// The quantity.
    metric: GpuMetric,
) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    let UseElementSizeReturn { width, .. } = use_element_size(canvas_ref);
    let theme = use_theme();
    let name = node.clone();
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        if width.get() < 1.0 {
            return;
        }
        let theme = theme.get();
        let (colors, pal) = (theme.series_colors(), theme.palette());
        let chart = data.with(|d| {
            let h = &d.nodes.iter().find(|n| n.node == name)?.history;
            let newest = h.last()?.at_ms as f64;
            let oldest = h.first()?.at_ms as f64;
            // Up to 2 h, but never a mostly empty chart just after opening.
            let x0 = oldest.max(newest - HISTORY_MS as f64);
            let x1 = if newest > x0 { newest } else { x0 + 1_000.0 };
            let chart = MultiChart {
                y_fixed: Some((0.0, metric.y_max(h).max(1.0))),
                break_gaps: true,
                layout: Layout::SMALL,
                ..MultiChart::new(
                    gpu_lines(h, metric, &colors, pal.line),
                    Some((x0, x1)),
                    json::XAxis::Wall,
                    false,
                )
            };
            Some((chart, newest))
        });
        let Some((chart, newest)) = chart else {
            set_status(&canvas, "empty");
            return;
        };
        let drawn = draw_multi(&canvas, &chart, &pal, window().device_pixel_ratio());
        record(&canvas, drawn, |info| {
            let facts = vec![
                ("data-points", info.drawn.to_string()),
                ("data-last-at", newest.to_string()),
            ];
            (false, facts)
        });
    });
    view! {
        <figure class="gpu-chart">
            <figcaption class="gpu-chart-title">{metric.title()}</figcaption>
            <canvas node_ref=canvas_ref class="gpu-chart-canvas" data-status="loading"
                data-testid=format!("gpu-chart-{node}-{}", metric.id())
                aria-label=format!("{} of the GPUs of {node} over time", metric.title())></canvas>
        </figure>
    }
}

/// The legend: which colour is which GPU.
#[component]
fn ChartLegend(
    /// GPU indexes shown.
    #[prop(into)]
    indexes: Signal<Vec<u32>>,
) -> impl IntoView {
    let theme = use_theme();
    move || {
        let colors = theme.get().series_colors();
        indexes
            .get()
            .into_iter()
            .enumerate()
            .map(|(i, index)| {
                let c = colors[i % colors.len()];
                let style = format!("background:rgb({},{},{})", c.0, c.1, c.2);
                view! { <span class="legend-item"><span class="swatch" style=style></span>{format!("GPU {index}")}</span> }
            })
            .collect_view()
    }
}

/// The four history charts of a node.
#[component]
pub fn NodeHistory(
    /// Everything fetched.
    data: RwSignal<PanelData>,
    /// The node.
    node: String,
) -> impl IntoView {
    let name = node.clone();
    let indexes = Memo::new(move |_| {
        data.with(|d| {
            let mut ix: Vec<u32> = d
                .nodes
                .iter()
                .find(|n| n.node == name)
                .map(|n| {
                    n.history
                        .iter()
                        .flat_map(|s| s.gpus.iter().map(|g| g.index))
                        .collect()
                })
                .unwrap_or_default();
            ix.sort_unstable();
            ix.dedup();
            ix
        })
    });
    let charts = GpuMetric::ALL
        .map(|m| view! { <HistoryChart data=data node=node.clone() metric=m /> })
        .collect_view();
    view! {
        <div class="gpu-history">{charts}</div>
        <div class="chart-legend gpu-legend"><ChartLegend indexes=indexes /></div>
    }
}
