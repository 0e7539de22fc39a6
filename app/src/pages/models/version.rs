//! `/models/:name/versions/:version`: one version of a registered model: its facts,
//! description, tags and aliases, and (for those who may edit) a stage transition with
//! MLflow's `archive_existing_versions`. Deleting a version's tag needs CAN_MANAGE.

use api_types::models::{ModelVersionInfo, RegisteredModelDetail};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::detail::{alias_chips, source_links};
use super::edit::tags::EditableTags;
use super::edit::Target;
use crate::api;
use crate::components::states::{EmptyState, ResourceTexts, ResourceView};
use crate::format;
use crate::pages::run::io::model_status_badge;
use crate::pages::run::manage::description::Description;
use crate::routes::AppRoute;

/// The page's words for loading, not found, denied and failed.
const TEXTS: ResourceTexts = ResourceTexts {
    loading: "Loading model version…",
    not_found: "Registered model not found",
    not_found_hint: "No registered model has this name. It may have been renamed or deleted.",
    denied: "You don't have access to this model",
    failed: "Could not load the model version",
};

/// MLflow's legacy stages.
const STAGES: [&str; 4] = ["None", "Staging", "Production", "Archived"];

/// The model version page.
#[component]
pub fn ModelVersionPage() -> impl IntoView {
    let params = use_params_map();
    let name = Memo::new(move |_| params.with(|p| p.get("name").unwrap_or_default()));
    let version = Memo::new(move |_| params.with(|p| p.get("version").unwrap_or_default()));
    // Also refetched when only the version changes, so the page follows version links.
    let model = LocalResource::new(move || {
        version.track();
        api::get_registered_model(name.get())
    });
    view! {
        <ResourceView resource=model texts=TEXTS ready=move |d| {
            let v = version.get_untracked();
            match d.versions.iter().find(|x| x.version == v).cloned() {
                Some(info) => view! { <VersionView d=d v=info /> }.into_any(),
                None => view! { <MissingVersion name=d.model.name version=v /> }.into_any(),
            }
        } />
    }
}

/// A version number the registered model does not have, with the way back to it.
#[component]
fn MissingVersion(
    /// The registered model's name.
    name: String,
    /// The version asked for.
    version: String,
) -> impl IntoView {
    view! {
        <nav class="breadcrumb">
            <a href=AppRoute::Models.path()>"Models"</a><span>"/"</span>
            <a href=AppRoute::registered_model(name.clone())>{name.clone()}</a><span>"/"</span>
        </nav>
        <EmptyState title=format!("Version {version} not found")
            hint=format!("{name} has no version {version}; it may have been deleted. Its versions are listed on the model's page.") />
    }
}

/// The stage select, the archive checkbox and Transition.
#[component]
fn StageControl(
    /// The registered model's name.
    name: String,
    /// The version moved.
    version: String,
    /// The version's stage, set on success.
    stage: RwSignal<String>,
) -> impl IntoView {
    let pick = RwSignal::new(stage.get_untracked());
    let archive = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let (name, version) = (StoredValue::new(name), StoredValue::new(version));
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let s = pick.get_untracked();
        busy.set(true);
        leptos::task::spawn_local(async move {
            match api::transition_stage(
                name.get_value(),
                version.get_value(),
                s.clone(),
                archive.get_untracked(),
            )
            .await
            {
                Ok(()) => {
                    error.set(None);
                    stage.set(s);
                }
                Err(e) => error.set(Some(e.message)),
            }
            busy.set(false);
        });
    };
    view! {
        <form class="stage-form" on:submit=submit>
            <select class="text-input" aria-label="New stage" on:change=move |ev| pick.set(event_target_value(&ev))>
                {STAGES.iter().map(|s| view! { <option value=*s selected=move || pick.get() == *s>{*s}</option> }).collect_view()}
            </select>
            <label class="small"><input type="checkbox" prop:checked=move || archive.get()
                on:change=move |ev| archive.set(event_target_checked(&ev)) />" Archive existing versions in that stage"</label>
            <button class="button button-small" type="submit" disabled=move || busy.get()>"Transition"</button>
            {move || error.get().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
        </form>
    }
}

/// A loaded version.
#[component]
fn VersionView(
    /// The registered model (for its name and the caller's rights).
    d: RegisteredModelDetail,
    /// The version shown.
    v: ModelVersionInfo,
) -> impl IntoView {
    let name = d.model.name.clone();
    let (can_edit, can_manage) = (d.can_edit, d.can_manage);
    let stage = RwSignal::new(v.stage.clone());
    let text = RwSignal::new(v.description.clone());
    let (n, ver) = (name.clone(), v.version.clone());
    let save = Action::new_local(move |t: &String| {
        let (n, ver, t) = (n.clone(), ver.clone(), t.clone());
        async move {
            api::set_version_description(n, ver, t.clone()).await?;
            text.set(t);
            Ok(())
        }
    });
    let aliases = alias_chips(&v.aliases);
    let (run, model) = source_links(&v);
    view! {
        <nav class="breadcrumb">
            <a href=AppRoute::Models.path()>"Models"</a><span>"/"</span>
            <a href=AppRoute::registered_model(name.clone())>{name.clone()}</a><span>"/"</span>
        </nav>
        <div class="page-header">
            <div class="title-block">
                <h1>{format!("{name} v{}", v.version)}</h1>
                <Description text=text.into() can_edit=can_edit save=save />
            </div>
        </div>
        <div class="overview">
            <section class="card facts">
                <dl>
                    <div><dt>"Status"</dt><dd>{model_status_badge(&v.status)}</dd></div>
                    <div><dt>"Stage"</dt><dd class="version-stage">{move || stage.get()}</dd></div>
                    <div><dt>"Aliases"</dt><dd class="chips">{aliases}</dd></div>
                    <div><dt>"Source"</dt><dd class="mono small" title=v.source.clone()>{v.source.clone()}</dd></div>
                    <div><dt>"Source run"</dt><dd>{run}</dd></div>
                    <div><dt>"Logged model"</dt><dd>{model}</dd></div>
                    <div><dt>"By"</dt><dd>{v.user_id.clone()}</dd></div>
                    <div><dt>"Created"</dt><dd>{format::datetime(v.creation_time)}</dd></div>
                </dl>
                {can_edit.then(|| view! { <StageControl name=name.clone() version=v.version.clone() stage=stage /> })}
            </section>
            <EditableTags target=Target::Version(name.clone(), v.version.clone()) tags=v.tags.clone()
                can_edit=can_edit can_delete=can_manage />
        </div>
    }
}
