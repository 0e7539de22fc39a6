//! `/models`: the registered models the caller may read, searchable by name (`?q=`), with
//! their latest version and aliases; `/models/:name` (`detail`) lists the versions.

mod detail;
mod edit;
mod version;

pub use detail::RegisteredModelPage;
pub use version::ModelVersionPage;

use api_types::models::{RegisteredModelList, RegisteredModelSummary};
use api_types::KeyValue;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::components::search_box::{write_search, SearchBox};
use crate::components::states::{EmptyState, ErrorView, Loading};
use crate::format;
use crate::hooks::use_query_state;
use crate::routes::AppRoute;

/// How to register a model, for an empty registry.
const HOW_TO: &str =
    "Register one with mlflow.register_model(\"runs:/<run_id>/model\", \"my-model\") \
or registered_model_name= in log_model, and it shows here.";

/// Alias chips (`champion → v3`), each linking to the model.
pub fn alias_chips(name: &str, aliases: Vec<KeyValue>) -> AnyView {
    if aliases.is_empty() {
        return view! { <span class="muted">"—"</span> }.into_any();
    }
    aliases
        .into_iter()
        .map(|a| {
            let label = format!("@{} → v{}", a.key, a.value);
            view! { <a class="chip chip-link" href=AppRoute::registered_model(name)>{label}</a> }
        })
        .collect_view()
        .into_any()
}

fn model_row(m: RegisteredModelSummary) -> impl IntoView {
    let href = AppRoute::registered_model(m.name.clone());
    let latest = m
        .latest_version
        .clone()
        .map(|v| format!("v{v}"))
        .unwrap_or_else(|| "—".into());
    view! {
        <tr>
            <td class="name-cell"><a href=href.clone()>{m.name.clone()}</a>
                {(!m.description.is_empty()).then(|| view! { <div class="muted small truncate">{m.description.clone()}</div> })}</td>
            <td><a href=href>{latest}</a></td>
            <td class="chips">{alias_chips(&m.name, m.aliases)}</td>
            <td class="num">{m.version_count}</td>
            <td class="muted">{format::datetime(m.last_updated_time)}</td>
        </tr>
    }
}

/// The models of the first page, with "Load more" for the next pages.
#[component]
fn ModelTable(
    /// The first page.
    first: RegisteredModelList,
    /// The search it answers.
    q: String,
) -> impl IntoView {
    let models = RwSignal::new(first.models);
    let token = RwSignal::new(first.next_page_token);
    let busy = RwSignal::new(false);
    let more = move |_| {
        let Some(t) = token.get_untracked() else {
            return;
        };
        busy.set(true);
        let q = q.clone();
        spawn_local(async move {
            let r = api::list_registered_models(q, Some(t)).await;
            if busy.try_set(false).is_some() {
                if let Ok(page) = r {
                    models.update(|m| m.extend(page.models));
                    token.set(page.next_page_token);
                }
            }
        });
    };
    view! {
        <div class="table-scroll">
            <table class="table models-table">
                <thead><tr><th>"Name"</th><th>"Latest"</th><th>"Aliases"</th><th class="num">"Versions"</th><th>"Updated"</th></tr></thead>
                <tbody>
                    <For each=move || models.get() key=|m| m.name.clone() let:m>{model_row(m)}</For>
                </tbody>
            </table>
        </div>
        <Show when=move || token.with(Option::is_some)>
            <div class="card-footer">
                <button class="button button-small" type="button" disabled=move || busy.get() on:click=more.clone()>"Load more"</button>
            </div>
        </Show>
    }
}

/// The Models page.
#[component]
pub fn Models() -> impl IntoView {
    let qs = use_query_state();
    let q = Memo::new(move |_| qs.get("q").unwrap_or_default());
    let list = LocalResource::new(move || api::list_registered_models(q.get(), None));
    let on_search = Callback::new(move |v: String| write_search(qs, "q", v, |_| {}));
    let body = move || {
        Suspend::new(async move {
            match list.await {
                Ok(l) if l.models.is_empty() && q.get_untracked().is_empty() => {
                    view! { <EmptyState title="No registered models yet" hint=HOW_TO /> }.into_any()
                }
                Ok(l) if l.models.is_empty() => view! {
                    <EmptyState title="No models match your search" hint="Try a shorter or different part of the name." />
                }
                .into_any(),
                Ok(l) => view! { <ModelTable first=l q=q.get_untracked() /> }.into_any(),
                Err(e) => view! {
                    <ErrorView title="Could not load the models" error=e retry=Callback::new(move |_| list.refetch()) />
                }
                .into_any(),
            }
        })
    };
    view! {
        <div class="page-header">
            <div>
                <h1>"Models"</h1>
                <p class="subtitle">"Registered models you can read, with their latest version and aliases."</p>
            </div>
            <SearchBox value=q on_change=on_search label="Search models" placeholder="Search by name" />
        </div>
        <div class="card">
            <Transition fallback=|| view! { <Loading label="Loading models…" /> }>{body}</Transition>
        </div>
    }
}
