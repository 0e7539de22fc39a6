//! `/runs/:id`: breadcrumb, run name and status, and the "Overview" and "Metrics" tabs
//! (`?tab=metrics`; chart options are in the URL too, see [`metrics`]).

mod metrics;
mod overview;

use api_types as json;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api;
use crate::components::states::{ErrorView, Loading, NotFoundView, PermissionDenied};
use crate::components::status_badge::StatusBadge;
use crate::hooks::use_query_state;
use crate::routes::AppRoute;
use metrics::MetricsTab;
use overview::Overview;

/// The run page.
#[component]
pub fn RunPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let run = LocalResource::new(move || api::get_run(id.get()));
    view! {
        <Transition fallback=|| view! { <Loading label="Loading run…" /> }>
            {move || Suspend::new(async move {
                match run.await {
                    Ok(r) => view! { <RunView run=r /> }.into_any(),
                    Err(e) if api::is_not_found(&e) => view! {
                        <NotFoundView title="Run not found"
                            message="No run has this id. It may have been deleted, or the link may be wrong." />
                    }.into_any(),
                    Err(e) if api::is_permission_denied(&e) => view! {
                        <PermissionDenied title="You don't have access to this experiment" error=e />
                    }.into_any(),
                    Err(e) => view! {
                        <ErrorView title="Could not load the run" error=e retry=Callback::new(move |_| run.refetch()) />
                    }.into_any(),
                }
            })}
        </Transition>
    }
}

/// A tab button.
#[component]
fn Tab(
    /// Visible name.
    label: &'static str,
    /// Value of `?tab=` (`None` for the default tab).
    value: Option<&'static str>,
    /// The selected tab's value.
    #[prop(into)]
    current: Signal<Option<String>>,
    /// Called to select this tab.
    on_select: Callback<Option<&'static str>>,
) -> impl IntoView {
    let selected = move || current.get().as_deref() == value;
    view! {
        <button role="tab" class="tab" class:selected=selected aria-selected=move || selected().to_string()
            on:click=move |_| on_select.run(value)>
            {label}
        </button>
    }
}

/// Header and tabs of a loaded run.
#[component]
fn RunView(
    /// The run.
    run: json::RunDetail,
) -> impl IntoView {
    let qs = use_query_state();
    let tab = Signal::derive(move || qs.get("tab").filter(|t| t == "metrics"));
    let on_select =
        Callback::new(move |v: Option<&'static str>| qs.set("tab", v.map(str::to_owned)));
    let metric_keys: Vec<String> = run.metrics.iter().map(|m| m.key.clone()).collect();
    let run_id = run.run_id.clone();
    let overview_run = run.clone();
    view! {
        <nav class="breadcrumb">
            <a href=AppRoute::Experiments.path()>"Experiments"</a><span>"/"</span>
            <a href=AppRoute::experiment(run.experiment_id.clone())>{run.experiment_name.clone()}</a><span>"/"</span>
        </nav>
        <div class="page-header">
            <div class="title-block">
                <div class="title-row">
                    <h1>{run.run_name.clone()}</h1>
                    <StatusBadge status=run.status.clone() />
                </div>
                <p class="subtitle mono">{run.run_id.clone()}</p>
            </div>
        </div>
        <div class="tabs" role="tablist">
            <Tab label="Overview" value=None current=tab on_select=on_select />
            <Tab label="Metrics" value=Some("metrics") current=tab on_select=on_select />
        </div>
        <div role="tabpanel">
            {move || match tab.get() {
                None => view! { <Overview run=overview_run.clone() /> }.into_any(),
                Some(_) => view! { <MetricsTab run_id=run_id.clone() keys=metric_keys.clone() /> }.into_any(),
            }}
        </div>
    }
}
