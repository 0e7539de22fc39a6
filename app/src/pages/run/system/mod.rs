//! The run's System metrics tab (`?tab=system`): the `system/...` metrics that MLflow's
//! monitor (`log_system_metrics=True`) or `runlens-agent run` logged, grouped by [`keys`]
//! into GPU (a node's GPUs overlaid per field, [`gpu_overlay`]), CPU, memory, disk and
//! network charts; `?x=wall|relative`
//! (default relative), `?node=` for one node of a multi-node run; refreshed every 10 s
//! while the run is RUNNING.

mod gpu_overlay;
mod keys;

use api_types as json;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_use_interval_fn::{use_interval_fn, Pausable};

use super::metrics::{parse_zoom, set_zoom};
use crate::api;
use crate::components::chart_panel::ChartPanel;
use crate::components::states::EmptyState;
use crate::hooks::{use_query_state, QueryState};
use gpu_overlay::GpuSectionView;

/// How often a RUNNING run's charts are refreshed (ms).
const REFRESH_MS: u64 = 10_000;

/// The empty state's advice.
const HOW_TO: &str = "Log them from Python with mlflow.start_run(log_system_metrics=True) \
(psutil installed; pynvml for GPUs), or launch the job with \
`runlens-agent run --server URL --experiment NAME -- python train.py`, which also logs \
each GPU's temperature.";

fn parse_axis(s: Option<&str>) -> json::XAxis {
    match s {
        Some("wall") => json::XAxis::Wall,
        _ => json::XAxis::Relative,
    }
}

/// X axis and node filter.
#[component]
fn Controls(
    /// URL state.
    qs: QueryState,
    /// Current x axis.
    #[prop(into)]
    x_axis: Signal<json::XAxis>,
    /// The run's node ids (a filter is shown for two or more).
    #[prop(into)]
    nodes: Signal<Vec<String>>,
) -> impl IntoView {
    let axis_button = move |label: &'static str, a: json::XAxis, value: Option<&'static str>| {
        view! {
            <button class="seg" class:selected=move || x_axis.get() == a aria-pressed=move || (x_axis.get() == a).to_string()
                on:click=move |_| qs.update(|q| { q.set("x", value.map(str::to_owned)); q.set_all("zoom", &[]); })>
                {label}
            </button>
        }
    };
    let filter = move || {
        let nodes = nodes.get();
        (nodes.len() > 1).then(|| {
            let current = qs.get("node").unwrap_or_default();
            let options = nodes.into_iter().map(|n| {
                let selected = n == current;
                view! { <option value=n.clone() selected=selected>{n.clone()}</option> }
            }).collect_view();
            view! {
                <label class="control">
                    <span class="control-label">"Node"</span>
                    <select class="select" aria-label="Node"
                        on:change=move |ev| qs.set("node", Some(event_target_value(&ev)).filter(|v| !v.is_empty()))>
                        <option value="" selected=current.is_empty()>"All nodes"</option>
                        {options}
                    </select>
                </label>
            }
        })
    };
    view! {
        <div class="chart-controls card">
            <div class="control">
                <span class="control-label">"X axis"</span>
                <div class="segmented" role="group" aria-label="X axis">
                    {axis_button("Relative", json::XAxis::Relative, None)}
                    {axis_button("Wall time", json::XAxis::Wall, Some("wall"))}
                </div>
            </div>
            {filter}
        </div>
    }
}

/// Keeps the run's keys and status fresh every [`REFRESH_MS`] while it is RUNNING; the
/// returned counter goes up on each refresh (the charts refetch on it).
fn use_refresh(
    run_id: String,
    keys: RwSignal<Vec<String>>,
    running: RwSignal<bool>,
) -> RwSignal<u64> {
    let tick = RwSignal::new(0u64);
    let Pausable { pause, resume, .. } = use_interval_fn(
        move || {
            let id = run_id.clone();
            spawn_local(async move {
                if let Ok(run) = api::get_run(id).await {
                    keys.try_set(run.metrics.into_iter().map(|m| m.key).collect());
                    running.try_set(run.status == "RUNNING");
                    tick.try_update(|t| *t += 1);
                }
            });
        },
        REFRESH_MS,
    );
    Effect::new(move |_| if running.get() { resume() } else { pause() });
    tick
}

/// The System metrics tab.
#[component]
pub fn SystemTab(
    /// The run's experiment id.
    experiment_id: String,
    /// Run id.
    run_id: String,
    /// The run's status when the page loaded.
    status: String,
    /// The run's metric keys.
    keys: Vec<String>,
) -> impl IntoView {
    let qs = use_query_state();
    let keys = RwSignal::new(keys);
    let running = RwSignal::new(status == "RUNNING");
    let tick = use_refresh(run_id.clone(), keys, running);
    let x_axis = Signal::derive(move || parse_axis(qs.get("x").as_deref()));
    let node = Memo::new(move |_| qs.get("node").filter(|n| !n.is_empty()));
    let nodes = Memo::new(move |_| keys.with(|k| keys::nodes(k)));
    let sections = Memo::new(move |_| keys.with(|k| keys::sections(k, node.get().as_deref())));
    let gpu_sections =
        Memo::new(move |_| keys.with(|k| keys::gpu_sections(k, node.get().as_deref())));
    let zoom_of = Callback::new(move |id: String| {
        qs.get_all("zoom")
            .iter()
            .filter_map(|z| parse_zoom(z))
            .find(|(zk, ..)| *zk == id)
            .map(|(_, lo, hi)| (lo, hi))
    });
    let set_chart_zoom =
        Callback::new(move |(id, r): (String, Option<(f64, f64)>)| set_zoom(qs, &id, r));
    let (exp, run) = (experiment_id.clone(), run_id.clone());
    let chart = move |key: String| {
        let k = key.clone();
        let zoom = Signal::derive(move || zoom_of.run(k.clone()));
        let k = key.clone();
        let on_zoom = Callback::new(move |r| set_zoom(qs, &k, r));
        let title = keys::chart_title(&key, nodes.with_untracked(Vec::len) > 1);
        view! { <ChartPanel experiment_id=exp.clone() run_id=run.clone() key=key title=title x_axis=x_axis log_y=false smoothing=0.0 zoom=zoom on_zoom=on_zoom refresh=tick /> }
    };
    let gpus = move || {
        gpu_sections
            .get()
            .into_iter()
            .map(|section| {
                view! {
                    <GpuSectionView experiment_id=experiment_id.clone() run_id=run_id.clone() section=section
                        qs=qs x_axis=x_axis refresh=tick zoom_of=zoom_of set_zoom=set_chart_zoom />
                }
            })
            .collect_view()
    };
    let body = move || {
        let sections = sections.get();
        if sections.is_empty() && gpu_sections.with(Vec::is_empty) {
            let title = match node.get() {
                Some(n) => format!("No system metrics from node {n}"),
                None => "No system metrics logged".to_owned(),
            };
            return view! { <EmptyState title=title hint=HOW_TO /> }.into_any();
        }
        let chart = chart.clone();
        sections
            .into_iter()
            .map(|s| {
                let charts = s.keys.into_iter().map(chart.clone()).collect_view();
                let test_id = format!("system-section-{}", s.title);
                view! {
                    <section class="system-section" data-testid=test_id>
                        <h2 class="section-title">{s.title}</h2>
                        <div class="chart-grid">{charts}</div>
                    </section>
                }
            })
            .collect_view()
            .into_any()
    };
    view! {
        <Controls qs=qs x_axis=x_axis nodes=nodes />
        {move || running.get().then(|| view! { <p class="muted small">"The run is running: these charts refresh every 10 s."</p> })}
        {gpus}
        {body}
    }
}
