//! A node's GPUs on the System metrics tab: one chart per field (utilisation, memory,
//! temperature, power, …) with a line per GPU in the GPU panel's colours (a GPU's colour is
//! its place among the node's GPUs, as on `/gpus`), fetched in one batched request per
//! chart, and a per-GPU toggle shared by the node's charts. Hidden GPUs are in the URL
//! (`hide_gpu=<node>:<index>`, repeatable; `:<index>` without a node), so a link keeps them.

use api_types as json;
use json::workspace::SeriesBatchQuery;
use leptos::html::Canvas;
use leptos::prelude::*;
use web_sys::MouseEvent;

use super::keys::{GpuChart, GpuSection};
use crate::api;
use crate::charts::draw::hex;
use crate::charts::nearest::{drag_range, pixel_to_x, x_to_pixel};
use crate::charts::{scale, ChartData, DrawInfo};
use crate::components::chart_panel::Selection;
use crate::format;
use crate::hooks::{use_settled_width, QueryState};
use crate::pages::experiment::chart_data::{
    build_chart, paint, rank_values, values_at, y_px, LineOptions, LineSpec, RunSeries,
};
use crate::theme::use_theme;

/// The URL key of hidden GPUs.
const HIDE_KEY: &str = "hide_gpu";

/// Tolerance, in CSS pixels, beyond a line's ends within which it still reports a value.
const SLACK_PX: f64 = 8.0;

/// `hide_gpu`'s value for GPU `index` of `node`.
fn hide_value(node: Option<&str>, index: u32) -> String {
    format!("{}:{index}", node.unwrap_or_default())
}

/// The hidden GPU indexes of `node` among the URL's `hide_gpu` values.
pub fn hidden_of(values: &[String], node: Option<&str>) -> Vec<u32> {
    let node = node.unwrap_or_default();
    values
        .iter()
        .filter_map(|v| v.rsplit_once(':'))
        .filter(|(n, _)| *n == node)
        .filter_map(|(_, i)| i.parse().ok())
        .collect()
}

/// Shows or hides GPU `index` of `node` in every chart of its section.
fn toggle(qs: QueryState, node: Option<&str>, index: u32) {
    let value = hide_value(node, index);
    qs.update(|q| {
        let mut all: Vec<String> = q.get_all(HIDE_KEY).into_iter().map(str::to_owned).collect();
        match all.iter().position(|v| *v == value) {
            Some(at) => {
                all.remove(at);
            }
            None => all.push(value),
        }
        q.set_all(HIDE_KEY, &all);
    });
}

/// The lines of a chart: one per GPU not hidden, coloured by its place in `gpus`.
fn line_specs(chart: &GpuChart, gpus: &[u32], hidden: &[u32], colors: &[String]) -> Vec<LineSpec> {
    chart
        .lines
        .iter()
        .filter(|(i, _)| !hidden.contains(i))
        .map(|(i, key)| LineSpec {
            label: format!("GPU {i}"),
            color: gpu_color(gpus, *i, colors),
            runs: vec![key.clone()],
            group: false,
        })
        .collect()
}

fn gpu_color(gpus: &[u32], index: u32, colors: &[String]) -> String {
    let at = gpus.iter().position(|g| *g == index).unwrap_or(0);
    colors
        .get(at % colors.len().max(1))
        .cloned()
        .unwrap_or_default()
}

/// A node's section: its title, the GPU toggles and a chart per field.
#[component]
pub fn GpuSectionView(
    /// Experiment id (the batched series endpoint is the experiment's).
    experiment_id: String,
    /// Run id.
    run_id: String,
    /// The node's GPUs and charts.
    section: GpuSection,
    /// URL state (hidden GPUs, zoom).
    qs: QueryState,
    /// X axis.
    #[prop(into)]
    x_axis: Signal<json::XAxis>,
    /// Refetches whenever it changes.
    #[prop(into)]
    refresh: Signal<u64>,
    /// The zoom of a chart id.
    zoom_of: Callback<String, Option<(f64, f64)>>,
    /// Sets or resets (`None`) the zoom of a chart id.
    set_zoom: Callback<(String, Option<(f64, f64)>)>,
) -> impl IntoView {
    let theme = use_theme();
    let colors = Memo::new(move |_| theme.get().series_colors().map(hex).to_vec());
    let node = section.node.clone();
    let hidden = Memo::new(move |_| hidden_of(&qs.get_all(HIDE_KEY), node.as_deref()));
    let gpus = section.gpus.clone();
    let node = section.node.clone();
    let toggles = gpus
        .iter()
        .map(|&i| {
            let (gpus, node) = (gpus.clone(), node.clone());
            let style = move || format!("background:{}", colors.with(|c| gpu_color(&gpus, i, c)));
            let n = node.clone();
            view! {
                <label class="gpu-toggle">
                    <input type="checkbox" prop:checked=move || !hidden.with(|h| h.contains(&i))
                        on:change=move |_| toggle(qs, n.as_deref(), i) />
                    <span class="swatch" style=style></span>
                    {format!("GPU {i}")}
                </label>
            }
        })
        .collect_view();
    let test_id = format!("system-section-{}", section.title);
    let charts = section
        .charts
        .into_iter()
        .map(|chart| {
            let id = chart.id.clone();
            let zoom = Signal::derive(move || zoom_of.run(id.clone()));
            let id = chart.id.clone();
            let on_zoom = Callback::new(move |r| set_zoom.run((id.clone(), r)));
            view! {
                <GpuChartPanel experiment_id=experiment_id.clone() run_id=run_id.clone() chart=chart
                    gpus=section.gpus.clone() hidden=hidden colors=colors x_axis=x_axis zoom=zoom
                    on_zoom=on_zoom refresh=refresh />
            }
        })
        .collect_view();
    view! {
        <section class="system-section" data-testid=test_id>
            <h2 class="section-title">{section.title.clone()}</h2>
            <div class="gpu-toggles" role="group" aria-label=format!("{} shown", section.title)>{toggles}</div>
            <div class="chart-grid">{charts}</div>
        </section>
    }
}

/// One field of a node's GPUs, a line per GPU shown.
#[component]
fn GpuChartPanel(
    experiment_id: String,
    run_id: String,
    chart: GpuChart,
    gpus: Vec<u32>,
    #[prop(into)] hidden: Signal<Vec<u32>>,
    #[prop(into)] colors: Signal<Vec<String>>,
    x_axis: Signal<json::XAxis>,
    zoom: Signal<Option<(f64, f64)>>,
    on_zoom: Callback<Option<(f64, f64)>>,
    refresh: Signal<u64>,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let width = use_settled_width(canvas);
    let keys: Vec<String> = chart.lines.iter().map(|(_, k)| k.clone()).collect();
    let series = LocalResource::new(move || {
        refresh.track();
        let (zoom, width) = (zoom.get(), width.get());
        let q = SeriesBatchQuery {
            runs: vec![run_id.clone()],
            keys: keys.clone(),
            x: x_axis.get(),
            x_key: None,
            width: Some(width),
            x_min: zoom.map(|z| z.0),
            x_max: zoom.map(|z| z.1),
        };
        let id = experiment_id.clone();
        async move {
            if width == 0 {
                return None;
            }
            Some(api::get_series_batch(id, q).await.map(|b| {
                b.series
                    .iter()
                    .map(|s| RunSeries {
                        run_id: s.key.clone(),
                        data: ChartData::from_series(s, zoom),
                    })
                    .filter(|r| !r.data.points.is_empty())
                    .collect::<Vec<_>>()
            }))
        }
    });
    let loaded = Memo::new(move |_| series.with(|s| s.clone().flatten()));
    let lines = chart.clone();
    let specs =
        Memo::new(move |_| hidden.with(|h| colors.with(|c| line_specs(&lines, &gpus, h, c))));
    let pchart = Memo::new(move |_| {
        let o = LineOptions {
            smoothing: 0.0,
            columns: width.get().max(1) as usize,
            zoom: zoom.get(),
            x_axis: x_axis.get(),
            log_y: false,
            bars: false,
        };
        loaded.with(|l| match l {
            Some(Ok(list)) => Some(specs.with(|s| build_chart(list, s, o))),
            _ => None,
        })
    });
    let theme = use_theme();
    let info = RwSignal::new(None::<DrawInfo>);
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        width.track();
        let pal = theme.get().palette();
        info.set(loaded.with(|l| pchart.with(|pc| paint(&el, l, pc.as_ref(), &pal))));
    });

    let hover = RwSignal::new(None::<f64>);
    let cursor_y = RwSignal::new(None::<f64>);
    let drag = RwSignal::new(None::<(f64, f64)>);
    let to_x = move |px: f64| {
        info.with_untracked(|i| {
            i.as_ref()
                .map(|i| pixel_to_x(px, i.left, i.width, i.x_range))
        })
    };
    let moved = move |ev: MouseEvent| {
        let px = f64::from(ev.offset_x());
        if let Some((start, _)) = drag.get_untracked() {
            drag.set(Some((start, px)));
        }
        hover.set(to_x(px));
        cursor_y.set(Some(f64::from(ev.offset_y())));
    };
    let released = move || {
        let Some((a, b)) = drag.get_untracked() else {
            return;
        };
        drag.set(None);
        if let Some(range) = info.with_untracked(|i| i.as_ref().and_then(|i| drag_range(a, b, i))) {
            on_zoom.run(Some(range));
        }
    };
    // Every shown GPU's value under the cursor, highest first, the line under the cursor
    // picked out.
    let tooltip = move || {
        let x = hover.get().filter(|_| drag.get().is_none())?;
        let i = info.get()?;
        let per_px = (i.x_range.1 - i.x_range.0) / i.width.max(1.0);
        let values = pchart.with(|c| c.as_ref().map(|pc| values_at(pc, x, SLACK_PX * per_px)))?;
        if values.is_empty() {
            return None;
        }
        let (values, picked) = rank_values(values, cursor_y.get(), |v| y_px(&i, v, false));
        let px = x_to_pixel(x, i.left, i.width, i.x_range);
        let right = i.left + i.width;
        let style = if px > right - 180.0 {
            format!("right:{}px;top:8px", (right - px + 14.0).max(0.0))
        } else {
            format!("left:{}px;top:8px", px + 14.0)
        };
        let head = scale::x_readout(values[0].x, x_axis.get_untracked());
        let dot = picked.and_then(|p| {
            let v = &values[p];
            let color = specs.with(|s| s.get(v.spec).map(|s| s.color.clone()))?;
            let (dx, dy) = (x_to_pixel(v.x, i.left, i.width, i.x_range), y_px(&i, v.y, false)?);
            Some(view! {
                <div class="chart-dot" style=format!("left:{dx}px;top:{dy}px;border-color:{color}")></div>
            })
        });
        let rows = specs.with(|specs| {
            values
                .iter()
                .enumerate()
                .filter_map(|(row, v)| {
                    let spec = specs.get(v.spec)?;
                    Some(view! {
                        <div class="tt-run" class:tt-picked=picked == Some(row)>
                            <span class="swatch" style=format!("background:{}", spec.color)></span>
                            <span class="tt-name">{spec.label.clone()}</span>
                            <span class="mono">{format::value(v.y)}</span>
                        </div>
                    })
                })
                .collect_view()
        });
        Some(view! {
            <div class="chart-crosshair" style=format!("left:{px}px")></div>
            {dot}
            <div class="chart-tooltip wchart-tooltip" style=style role="tooltip">
                <div class="tt-head mono">{head}</div>
                {rows}
            </div>
        })
    };
    let overlay = move || match loaded.get() {
        None => Some(
            view! { <div class="chart-overlay"><span class="spinner"></span></div> }.into_any(),
        ),
        Some(Err(e)) => Some(
            view! { <div class="chart-overlay error" role="alert">{e.message}</div> }.into_any(),
        ),
        Some(Ok(_)) if specs.with(Vec::is_empty) => {
            Some(view! { <div class="chart-overlay muted">"Every GPU is hidden"</div> }.into_any())
        }
        _ => None,
    };
    let id = chart.id.clone();
    view! {
        <section class="chart-card">
            <header class="chart-header">
                <h3 class="chart-title truncate" title=id.clone()>{chart.field.clone()}</h3>
                <Show when=move || zoom.get().is_some()>
                    <button class="button button-small" type="button" on:click=move |_| on_zoom.run(None)>"Reset zoom"</button>
                </Show>
            </header>
            <div class="chart-body">
                <canvas
                    node_ref=canvas
                    class="chart-canvas"
                    data-testid=format!("chart-{id}")
                    data-status="loading"
                    on:mousemove=moved
                    on:mousedown=move |ev| if ev.button() == 0 {
                        ev.prevent_default();
                        let px = f64::from(ev.offset_x());
                        drag.set(Some((px, px)));
                    }
                    on:mouseup=move |_| released()
                    on:mouseleave=move |_| { drag.set(None); hover.set(None); cursor_y.set(None); }
                    on:dblclick=move |_| on_zoom.run(None)
                ></canvas>
                <Selection drag=drag info=info />
                {tooltip}
                {overlay}
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_gpus_are_read_per_node() {
        let v = |s: &[&str]| s.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let all = v(&["a:1", "b:0", ":3", "a:x", "junk", "a:12"]);
        assert_eq!(hidden_of(&all, Some("a")), [1, 12]);
        assert_eq!(hidden_of(&all, Some("b")), [0]);
        assert_eq!(hidden_of(&all, None), [3]);
        assert_eq!(hide_value(Some("node-1"), 2), "node-1:2");
        assert_eq!(hide_value(None, 2), ":2");
        // A node id may hold a colon: the index is after the last one.
        assert_eq!(hidden_of(&v(&["h:8000:1"]), Some("h:8000")), [1]);
    }

    #[test]
    fn a_gpu_keeps_its_colour_when_another_is_hidden() {
        let chart = GpuChart {
            field: "utilization_percentage".into(),
            id: "system/gpu_*_utilization_percentage".into(),
            lines: vec![(0, "k0".into()), (1, "k1".into()), (2, "k2".into())],
        };
        let colors: Vec<String> = ["#000001", "#000002", "#000003"].map(String::from).to_vec();
        let all = line_specs(&chart, &[0, 1, 2], &[], &colors);
        let some = line_specs(&chart, &[0, 1, 2], &[1], &colors);
        assert_eq!(all.len(), 3);
        let c: Vec<(&str, &str)> = some
            .iter()
            .map(|s| (s.label.as_str(), s.color.as_str()))
            .collect();
        assert_eq!(c, [("GPU 0", "#000001"), ("GPU 2", "#000003")]);
        assert_eq!(some[1].runs, ["k2"]);
    }
}
