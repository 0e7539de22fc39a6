//! `/models/:name`: a registered model, its aliases and tags, and every version newest
//! first with its status, stage and aliases, linking to its source run and logged model.

use api_types::models::{ModelVersionInfo, RegisteredModelDetail};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::edit::aliases::EditableAliases;
use super::edit::tags::EditableTags;
use super::edit::Target;
use crate::api;
use crate::components::states::{ResourceTexts, ResourceView};
use crate::format;
use crate::pages::run::io::model_status_badge;
use crate::pages::run::manage::description::Description;
use crate::routes::AppRoute;

/// The page's words for loading, not found, denied and failed.
const TEXTS: ResourceTexts = ResourceTexts {
    loading: "Loading model…",
    not_found: "Registered model not found",
    not_found_hint: "No registered model has this name. It may have been renamed or deleted.",
    denied: "You don't have access to this model",
    failed: "Could not load the model",
};

/// The registered model page.
#[component]
pub fn RegisteredModelPage() -> impl IntoView {
    let params = use_params_map();
    let name = Memo::new(move |_| params.with(|p| p.get("name").unwrap_or_default()));
    let model = LocalResource::new(move || api::get_registered_model(name.get()));
    view! { <ResourceView resource=model texts=TEXTS ready=|d| view! { <RegisteredModelView d=d /> } /> }
}

/// An id cut to its first 10 characters (the whole one is the link's title).
fn short_id(id: &str) -> String {
    match id.char_indices().nth(10) {
        Some((i, _)) => format!("{}…", &id[..i]),
        None => id.to_owned(),
    }
}

/// A link (href, id) to a run or logged model, or a dash.
fn link(target: Option<(String, String)>) -> AnyView {
    match target {
        Some((href, id)) => {
            view! { <a class="mono small" href=href title=id.clone()>{short_id(&id)}</a> }
                .into_any()
        }
        None => view! { <span class="muted">"—"</span> }.into_any(),
    }
}

/// A version's aliases as `@alias` chips, or a dash.
pub(super) fn alias_chips(aliases: &[String]) -> AnyView {
    if aliases.is_empty() {
        return view! { <span class="muted">"—"</span> }.into_any();
    }
    aliases
        .iter()
        .map(|a| view! { <span class="chip">{format!("@{a}")}</span> })
        .collect_view()
        .into_any()
}

/// A version's source run and logged model as links (or dashes).
pub(super) fn source_links(v: &ModelVersionInfo) -> (AnyView, AnyView) {
    let run = link(v.run_id.clone().map(|id| (AppRoute::run(id.clone()), id)));
    let model = link(
        v.model_id
            .clone()
            .map(|id| (AppRoute::logged_model(id.clone()), id)),
    );
    (run, model)
}

/// One row of the versions table; the version number links to its page.
fn version_row(name: &str, v: ModelVersionInfo) -> impl IntoView {
    let href = AppRoute::model_version(name, v.version.clone());
    let aliases = alias_chips(&v.aliases);
    let (run, model) = source_links(&v);
    view! {
        <tr data-version=v.version.clone()>
            <td class="num"><a href=href><strong>{format!("v{}", v.version)}</strong></a></td>
            <td>{model_status_badge(&v.status)}</td>
            <td>{v.stage.clone()}</td>
            <td class="chips">{aliases}</td>
            <td>{run}</td>
            <td>{model}</td>
            <td class="muted">{v.user_id.clone()}</td>
            <td class="muted">{format::datetime(v.creation_time)}</td>
        </tr>
    }
}

/// A loaded registered model.
#[component]
fn RegisteredModelView(
    /// The model and its versions.
    d: RegisteredModelDetail,
) -> impl IntoView {
    let m = d.model;
    let (can_edit, can_manage) = (d.can_edit, d.can_manage);
    let n = d.versions.len();
    let text = RwSignal::new(m.description.clone());
    let model_name = m.name.clone();
    let save = Action::new_local(move |t: &String| {
        let (name, t) = (model_name.clone(), t.clone());
        async move {
            api::set_model_description(name, t.clone()).await?;
            text.set(t);
            Ok(())
        }
    });
    let rows = d
        .versions
        .into_iter()
        .map(|v| version_row(&m.name, v))
        .collect_view();
    view! {
        <nav class="breadcrumb">
            <a href=AppRoute::Models.path()>"Models"</a><span>"/"</span>
        </nav>
        <div class="page-header">
            <div class="title-block">
                <h1>{m.name.clone()}</h1>
                <Description text=text.into() can_edit=can_edit save=save />
            </div>
        </div>
        <div class="overview">
            <section class="card facts">
                <dl>
                    <div><dt>"Latest version"</dt><dd>{m.latest_version.clone().map(|v| format!("v{v}")).unwrap_or_else(|| "—".into())}</dd></div>
                    <div><dt>"Created"</dt><dd>{format::datetime(m.creation_time)}</dd></div>
                    <div><dt>"Updated"</dt><dd>{format::datetime(m.last_updated_time)}</dd></div>
                    <div class="fact-wide"><dt>"Aliases"</dt><dd class="aliases"><EditableAliases name=m.name.clone() aliases=m.aliases.clone()
                        can_edit=can_edit can_delete=can_manage /></dd></div>
                </dl>
            </section>
            <section class="card" aria-label="Versions">
                <h2 class="card-title">{format!("Versions ({n})")}</h2>
                <div class="table-scroll">
                    <table class="table versions-table">
                        <thead><tr>
                            <th class="num">"Version"</th><th>"Status"</th><th>"Stage"</th><th>"Aliases"</th>
                            <th>"Source run"</th><th>"Logged model"</th><th>"By"</th><th>"Created"</th>
                        </tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            </section>
            <EditableTags target=Target::Model(m.name.clone()) tags=m.tags.clone() can_edit=can_edit can_delete=can_edit />
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::short_id;

    #[test]
    fn ids_are_shortened() {
        assert_eq!(short_id("0123456789abcdef"), "0123456789…");
        assert_eq!(short_id("m-1"), "m-1");
    }
}
