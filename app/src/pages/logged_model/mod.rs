//! `/logged-models/:id`: one MLflow 3 logged model: status, experiment, source run, params,
//! metrics, tags, registrations, and its artifacts (the run page's browser, over the
//! logged model's routes; the previewed file in `?file=`).

use api_types::models::LoggedModelDetail;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::{self, ArtifactOwner};
use crate::components::states::{ResourceTexts, ResourceView};
use crate::format;
use crate::pages::run::artifacts::{use_selected_file, ArtifactBrowser};
use crate::pages::run::io::{model_status_badge, registration_chips};
use crate::pages::run::overview::{kv_table, metrics_table};
use crate::routes::AppRoute;

/// The page's words for loading, not found, denied and failed.
const TEXTS: ResourceTexts = ResourceTexts {
    loading: "Loading model…",
    not_found: "Logged model not found",
    not_found_hint:
        "No logged model has this id. It may have been deleted, or the link may be wrong.",
    denied: "You don't have access to this model's experiment",
    failed: "Could not load the model",
};

/// How to log a model's files, for one without any.
const HINT: &str = "This model has no files yet: mlflow.<flavor>.log_model(...) uploads them.";

/// The logged model page.
#[component]
pub fn LoggedModelPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let model = LocalResource::new(move || api::get_logged_model(id.get()));
    view! { <ResourceView resource=model texts=TEXTS ready=|d| view! { <LoggedModelView d=d /> } /> }
}

/// The facts card.
fn facts(d: &LoggedModelDetail) -> impl IntoView {
    let m = &d.model;
    let run = match (&m.source_run_id, &d.source_run_name) {
        (Some(id), name) => {
            let label = name.clone().unwrap_or_else(|| id.clone());
            view! { <a href=AppRoute::run(id.clone())>{label}</a> }.into_any()
        }
        (None, _) => view! { <span class="muted">"—"</span> }.into_any(),
    };
    view! {
        <section class="card facts">
            <dl>
                <div><dt>"Status"</dt><dd>{model_status_badge(&m.status)}</dd></div>
                <div><dt>"Created"</dt><dd>{format::datetime(m.creation_time)}</dd></div>
                <div><dt>"Experiment"</dt><dd><a href=AppRoute::experiment(m.experiment_id.clone())>{d.experiment_name.clone()}</a></dd></div>
                <div><dt>"Source run"</dt><dd>{run}</dd></div>
                <div><dt>"Type"</dt><dd>{m.model_type.clone().unwrap_or_else(|| "—".into())}</dd></div>
                <div><dt>"Registered as"</dt><dd class="chips">{registration_chips(m.registrations.clone())}</dd></div>
                <div class="fact-wide"><dt>"Artifacts"</dt><dd class="mono truncate" title=m.artifact_uri.clone()>{m.artifact_uri.clone()}</dd></div>
            </dl>
        </section>
    }
}

/// A loaded logged model.
#[component]
fn LoggedModelView(
    /// The model and its data.
    d: LoggedModelDetail,
) -> impl IntoView {
    let (selected, on_select) = use_selected_file();
    let m = d.model.clone();
    view! {
        <nav class="breadcrumb">
            <a href=AppRoute::Experiments.path()>"Experiments"</a><span>"/"</span>
            <a href=AppRoute::experiment(m.experiment_id.clone())>{d.experiment_name.clone()}</a><span>"/"</span>
            <span>"Logged models"</span><span>"/"</span>
        </nav>
        <div class="page-header">
            <div class="title-block">
                <div class="title-row"><h1>{m.name.clone()}</h1>{model_status_badge(&m.status)}</div>
                <p class="subtitle mono">{m.model_id.clone()}</p>
            </div>
        </div>
        <div class="overview">
            {facts(&d)}
            <div class="overview-grid">
                {kv_table("Parameters", d.params.clone(), "No parameters logged")}
                <section class="card"><h2 class="card-title">"Metrics"</h2>{metrics_table(d.metrics.clone())}</section>
            </div>
            {(!d.tags.is_empty()).then(|| kv_table("Tags", d.tags.clone(), "No tags"))}
            <h2 class="section-title">"Artifacts"</h2>
            <ArtifactBrowser owner=ArtifactOwner::LoggedModel(m.model_id.clone()) selected=selected
                on_select=on_select empty_hint=HINT />
        </div>
    }
}
