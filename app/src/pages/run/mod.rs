//! `/runs/:id`: breadcrumb, run name and status, and the tabs of [`RunTab`] (`?tab=metrics`;
//! an unknown tab shows a not-found; chart options are in the URL too, see `metrics`).
//! A run tagged `runlens.nodes` has a "GPUs" button opening the GPU panel of those nodes
//! beside the tabs (`?gpus=1` keeps it open in a shared link; `?poll=&idle=` as on `/gpus`).
//! A run produced by a job shows the job above the tabs (`job_header`) and its output
//! in the Logs tab (`logs`). Its files are in the Artifacts tab ([`artifacts`]).

pub mod artifacts;
mod gpus;
pub mod io;
mod job_header;
mod live;
mod logs;
pub mod manage;
mod metrics;
pub mod overview;
mod system;

use api_types as json;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api;
use crate::components::states::{NotFoundView, ResourceTexts, ResourceView};
use crate::hooks::{scroll_into_view, use_query_state};
use crate::routes::{AppRoute, RunTab, UnknownTab};
use artifacts::ArtifactsTab;
use gpus::{run_nodes, GpuSidePanel};
use job_header::JobHeader;
use live::{provide_run_live, RunLiveStatus};
use logs::LogsTab;
use manage::lifecycle::{DeleteRunButton, DeletedBanner};
use manage::title::EditableTitle;
use manage::RunEdit;
use metrics::MetricsTab;
use overview::Overview;
use system::SystemTab;

/// The run page's words for loading, not found, denied and failed.
const RUN: ResourceTexts = ResourceTexts {
    loading: "Loading run…",
    not_found: "Run not found",
    not_found_hint: "No run has this id. It may have been deleted, or the link may be wrong.",
    denied: "You don't have access to this experiment",
    failed: "Could not load the run",
};

/// The run page.
#[component]
pub fn RunPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let run = LocalResource::new(move || api::get_run(id.get()));
    view! { <ResourceView resource=run texts=RUN ready=|r| view! { <RunView run=r /> } /> }
}

/// A tab button.
#[component]
fn Tab(
    /// The tab this button selects.
    tab: RunTab,
    /// The selected tab (an error for an unknown `?tab=`, which selects no button).
    #[prop(into)]
    current: Signal<Result<RunTab, UnknownTab>>,
    /// Called to select this tab.
    on_select: Callback<RunTab>,
) -> impl IntoView {
    let selected = move || current.with(|c| c.as_ref() == Ok(&tab));
    let node = NodeRef::<leptos::html::Button>::new();
    // On a phone the tab bar scrolls sideways: keep the selected tab in view.
    Effect::new(move |_| {
        if let (true, Some(el)) = (selected(), node.get()) {
            scroll_into_view(el.into(), web_sys::ScrollLogicalPosition::Nearest);
        }
    });
    view! {
        <button node_ref=node role="tab" class="tab" class:selected=selected aria-selected=move || selected().to_string()
            on:click=move |_| on_select.run(tab)>
            {tab.label()}
        </button>
    }
}

/// What `?tab=` names no tab: a not-found in the tab panel (never another tab's content).
fn unknown_tab(e: &UnknownTab) -> impl IntoView {
    view! {
        <NotFoundView title="Tab not found"
            message=format!("This run has no “{}” tab. Pick one of the tabs above.", e.0) />
    }
}

/// Header and tabs of a loaded run.
#[component]
fn RunView(
    /// The run.
    run: json::RunDetail,
) -> impl IntoView {
    let qs = use_query_state();
    let tab = Signal::derive(move || RunTab::from_query(qs.get("tab").as_deref()));
    let on_select =
        Callback::new(move |t: RunTab| qs.set("tab", t.query_value().map(str::to_owned)));
    let metric_keys: Vec<String> = run.metrics.iter().map(|m| m.key.clone()).collect();
    let run_id = run.run_id.clone();
    let experiment_id = run.experiment_id.clone();
    let status = run.status.clone();
    let overview_run = run.clone();
    let edit = RunEdit::new(&run);
    let live = provide_run_live(&run);
    edit.follow(live.feed);
    let nodes = run_nodes(&run.tags);
    let has_nodes = !nodes.is_empty();
    let gpus_open = Signal::derive(move || has_nodes && qs.get("gpus").is_some_and(|v| v == "1"));
    let toggle_gpus = move |_| qs.set("gpus", (!gpus_open.get_untracked()).then(|| "1".to_owned()));
    let job = {
        let id = run.run_id.clone();
        LocalResource::new(move || api::get_run_job(id.clone()))
    };
    let header = move || {
        job.get()
            .and_then(|r| r.ok())
            .and_then(|j| j.job)
            .map(|info| view! { <JobHeader info=info /> })
    };
    let tabs = RunTab::ALL
        .map(|t| view! { <Tab tab=t current=tab on_select=on_select /> })
        .collect_view();
    view! {
        <nav class="breadcrumb">
            <a href=AppRoute::Experiments.path()>"Experiments"</a><span>"/"</span>
            <a href=AppRoute::experiment(run.experiment_id.clone())>{run.experiment_name.clone()}</a><span>"/"</span>
        </nav>
        <div class="page-header">
            <div class="title-block">
                <div class="title-row">
                    <EditableTitle name=edit.name can_edit=edit.can_edit noun="run" save=edit.rename_action() />
                    <RunLiveStatus live=live start_time=run.start_time />
                </div>
                <p class="subtitle mono">{run.run_id.clone()}</p>
            </div>
            <div class="header-actions">
                <DeleteRunButton edit=edit />
                {has_nodes.then(|| view! {
                    <button class="button" type="button" aria-pressed=move || gpus_open.get().to_string()
                        class:selected=move || gpus_open.get() on:click=toggle_gpus>"GPUs"</button>
                })}
            </div>
        </div>
        <DeletedBanner edit=edit />
        {header}
        <div class="run-layout" class:with-side=move || gpus_open.get()>
            <div class="run-main">
                <div class="tabs" role="tablist">{tabs}</div>
                <div role="tabpanel">
                    {move || match tab.get() {
                        Ok(RunTab::Overview) => view! { <Overview run=overview_run.clone() edit=edit /> }.into_any(),
                        Ok(RunTab::Metrics) => view! { <MetricsTab experiment_id=experiment_id.clone() run_id=run_id.clone() keys=metric_keys.clone() /> }.into_any(),
                        Ok(RunTab::System) => view! { <SystemTab experiment_id=experiment_id.clone() run_id=run_id.clone() status=status.clone() keys=metric_keys.clone() /> }.into_any(),
                        Ok(RunTab::Logs) => view! { <LogsTab run_id=run_id.clone() job=job /> }.into_any(),
                        Ok(RunTab::Artifacts) => view! { <ArtifactsTab run_id=run_id.clone() /> }.into_any(),
                        Err(e) => unknown_tab(&e).into_any(),
                    }}
                </div>
            </div>
            <Show when=move || gpus_open.get()>
                <GpuSidePanel nodes=nodes.clone() on_close=Callback::new(move |_| qs.set("gpus", None)) />
            </Show>
        </div>
    }
}
