//! `/`: every experiment, searchable by name, sortable, paged. View state lives in the URL
//! (`?q=&sort=&desc=&page=`; sorting and paging push a history entry, so Back undoes them;
//! refining a search replaces it). "New experiment" creates one through MLflow's own
//! endpoint and opens it.

use api_types as json;
use leptos::prelude::*;
use leptos_router::NavigateOptions;

use crate::api;
use crate::components::pager::Pager;
use crate::components::search_box::{write_search, SearchBox};
use crate::components::states::{EmptyState, ErrorView, Loading};
use crate::components::table::SortHeader;
use crate::format;
use crate::hooks::{use_now, use_query_state, use_safe_navigate};
use crate::routes::AppRoute;

/// Experiments per page.
const PAGE_SIZE: u64 = 50;

fn parse_sort(s: Option<&str>) -> json::ExperimentSort {
    match s {
        Some("name") => json::ExperimentSort::Name,
        Some("created") => json::ExperimentSort::Created,
        Some("runs") => json::ExperimentSort::Runs,
        _ => json::ExperimentSort::LastUpdate,
    }
}

fn sort_key(s: json::ExperimentSort) -> &'static str {
    match s {
        json::ExperimentSort::Name => "name",
        json::ExperimentSort::LastUpdate => "last_update",
        json::ExperimentSort::Created => "created",
        json::ExperimentSort::Runs => "runs",
    }
}

/// Splits `/Users/alice/sft` into (`/Users/alice/`, `sft`) for display.
pub fn split_path(name: &str) -> (&str, &str) {
    match name.rfind('/') {
        Some(i) if i + 1 < name.len() => name.split_at(i + 1),
        _ => ("", name),
    }
}

/// The experiments page.
#[component]
pub fn Experiments() -> impl IntoView {
    let qs = use_query_state();
    let creating = RwSignal::new(false);
    let q = Signal::derive(move || qs.get("q").unwrap_or_default());
    let sort = Memo::new(move |_| parse_sort(qs.get("sort").as_deref()));
    // Names read best A→Z; times and counts biggest first.
    let desc = Memo::new(move |_| match qs.get("desc").as_deref() {
        Some(v) => v == "true",
        None => sort.get() != json::ExperimentSort::Name,
    });
    let page = Memo::new(move |_| {
        qs.get("page")
            .and_then(|p| p.parse::<u64>().ok())
            .unwrap_or(1)
            .max(1)
    });
    let offset = Signal::derive(move || (page.get() - 1) * PAGE_SIZE);
    let list = LocalResource::new(move || {
        let p = json::ExperimentListQuery {
            q: Some(q.get()),
            sort: Some(sort.get()),
            desc: Some(desc.get()),
            offset: Some(offset.get()),
            limit: Some(PAGE_SIZE),
        };
        api::list_experiments(p)
    });

    let on_search =
        Callback::new(move |v: String| write_search(qs, "q", v, |query| query.set("page", None)));
    let on_sort = move |key: json::ExperimentSort| {
        let next_desc = if sort.get_untracked() == key {
            !desc.get_untracked()
        } else {
            key != json::ExperimentSort::Name
        };
        qs.update(|query| {
            query.set("sort", Some(sort_key(key).to_owned()));
            query.set("desc", Some(next_desc.to_string()));
            query.set("page", None);
        })
    };
    let header = move |label: &'static str, key: json::ExperimentSort, class: &'static str| {
        let state = Signal::derive(move || (sort.get() == key).then(|| desc.get()));
        view! { <SortHeader label=label state=state on_sort=Callback::new(move |_| on_sort(key)) class=class /> }
    };

    view! {
        <div class="page-header">
            <div>
                <h1>"Experiments"</h1>
                <p class="subtitle">"Every experiment logged to this server, newest activity first."</p>
            </div>
            <div class="header-actions">
                <SearchBox value=q on_change=on_search label="Search experiments" placeholder="Search by name or path" />
                <Show when=move || !creating.get()>
                    <button class="button button-primary" type="button" on:click=move |_| creating.set(true)>"New experiment"</button>
                </Show>
            </div>
        </div>
        <Show when=move || creating.get()>
            <NewExperiment open=creating />
        </Show>
        <div class="card">
            <Transition fallback=|| view! { <Loading label="Loading experiments…" /> }>
                {move || Suspend::new(async move {
                    match list.await {
                        Ok(data) => experiments_table(data, header, offset, qs).into_any(),
                        Err(e) => view! {
                            <ErrorView title="Could not load experiments" error=e retry=Callback::new(move |_| list.refetch()) />
                        }.into_any(),
                    }
                })}
            </Transition>
        </div>
    }
}

/// What to tell the user when creating an experiment failed.
fn create_failure(e: &api::ApiError) -> String {
    match e.code {
        api::ErrorCode::AlreadyExists => {
            "An experiment with this name already exists. Pick another name.".to_owned()
        }
        _ => format!("Could not create the experiment: {}", e.message),
    }
}

/// The "New experiment" form (opened by the page header's button): on success the new
/// experiment opens, on failure the reason shows under the field.
#[component]
fn NewExperiment(
    /// Whether the form is open; Cancel closes it.
    open: RwSignal<bool>,
) -> impl IntoView {
    let name = RwSignal::new(String::new());
    // The form appears on a click: put the cursor in its field.
    let input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(el) = input.get() {
            // Focusing a mounted input cannot fail.
            let _ = el.focus();
        }
    });
    let create = Action::new_local(|name: &String| api::create_experiment(name.clone()));
    let navigate = use_safe_navigate();
    Effect::new(move |_| {
        if let Some(Ok(id)) = create.value().get() {
            navigate(&AppRoute::experiment(id), NavigateOptions::default());
        }
    });
    let error = move || match create.value().get() {
        Some(Err(e)) => Some(create_failure(&e)),
        _ => None,
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let n = name.get_untracked().trim().to_owned();
        if !n.is_empty() {
            create.dispatch(n);
        }
    };
    view! {
        <form class="card new-experiment" on:submit=on_submit aria-label="New experiment">
            <div class="row">
                <input class="text-input" type="text" name="experiment-name" aria-label="Experiment name"
                    placeholder="/Users/you/my-experiment" autocomplete="off" required node_ref=input
                    prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev)) />
                <button class="button button-primary" type="submit"
                    disabled=move || create.pending().get() || name.with(|n| n.trim().is_empty())>
                    {move || if create.pending().get() { "Creating…" } else { "Create" }}
                </button>
                <button class="button" type="button" on:click=move |_| open.set(false)>"Cancel"</button>
            </div>
            {move || error().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
        </form>
    }
}

fn experiments_table<H, V>(
    data: json::ExperimentList,
    header: H,
    offset: Signal<u64>,
    qs: crate::hooks::QueryState,
) -> impl IntoView
where
    H: Fn(&'static str, json::ExperimentSort, &'static str) -> V,
    V: IntoView,
{
    if data.items.is_empty() {
        let searching = qs.get("q").is_some_and(|q| !q.is_empty());
        return if searching {
            view! { <EmptyState title="No experiments match your search" hint="Try a shorter or different part of the name." /> }.into_any()
        } else {
            view! { <EmptyState title="No experiments yet" hint="Log a run with the mlflow client (MLFLOW_TRACKING_URI pointing here) and it appears here." /> }.into_any()
        };
    }
    let now = use_now(15_000);
    let shown = data.items.len() as u64;
    let total = data.total;
    let rows = data.items.into_iter().map(|e| {
        let (dir, leaf) = split_path(&e.name);
        let (dir, leaf) = (dir.to_owned(), leaf.to_owned());
        view! {
            <tr>
                <td class="name-cell">
                    <a class="exp-link" href=AppRoute::experiment(e.id.clone()) title=e.name.clone()>
                        <span class="path-dir">{dir}</span>
                        <span class="path-leaf">{leaf}</span>
                    </a>
                    {e.description.map(|d| view! { <div class="muted small truncate">{d}</div> })}
                </td>
                <td class="num">{e.run_count}</td>
                <td title=format::datetime(e.last_update_time)>{move || format::relative(e.last_update_time, now.get())}</td>
                <td class="col-created" title=format::datetime(e.creation_time)>{format::date(e.creation_time)}</td>
            </tr>
        }
    }).collect_view();
    view! {
        <table class="table experiments-table">
            <thead>
                <tr>
                    {header("Name", json::ExperimentSort::Name, "col-name")}
                    {header("Runs", json::ExperimentSort::Runs, "num col-narrow")}
                    {header("Last update", json::ExperimentSort::LastUpdate, "col-time")}
                    {header("Created", json::ExperimentSort::Created, "col-time col-created")}
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <div class="card-footer">
            <Pager offset=offset shown=shown limit=PAGE_SIZE total=total
                on_page=Callback::new(move |o: u64| qs.set("page", Some((o / PAGE_SIZE + 1).to_string()))) />
        </div>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::split_path;

    #[test]
    fn splits_workspace_paths() {
        assert_eq!(split_path("/Users/a@b.com/sft"), ("/Users/a@b.com/", "sft"));
        assert_eq!(split_path("Default"), ("", "Default"));
        assert_eq!(split_path("/x/"), ("", "/x/"));
    }
}
