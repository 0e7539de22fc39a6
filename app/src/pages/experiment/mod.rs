//! `/experiments/:id`: the experiment's header and its workspace: the runs table with
//! filter, sort and column choice, the chart view and the compare view of the selected runs
//! (`?view=`), all kept in the URL (`?filter=&sort=&params=&metrics=&tags=`, and the
//! workspace keys of [`workspace`]). The page opens ONE live stream
//! ([`provide_live_feed`]) shared by its views.

mod charts;
/// The chart view's multi-line model (the run page's GPU overlay draws with it too).
pub(crate) mod chart_data {
    pub(crate) use super::charts::{
        build_chart, paint, rank_values, values_at, y_px, LineOptions, LineSpec, RunSeries,
    };
}
mod colcode;
mod columns;
mod compare;
mod filter_suggest;
mod run_colors;
mod runs_table;
mod table;
mod tree;
pub mod workspace;

use api_types as json;
use std::future::IntoFuture;

use leptos::prelude::*;
use leptos::reactive::computed::ScopedFuture;
use leptos_router::hooks::use_params_map;

use crate::api::{self, ErrorCode};
use crate::components::columns_picker::ColumnsPicker;
use crate::components::share::ShareButton;
use crate::components::states::{EmptyState, ErrorView, Loading, ResourceTexts, ResourceView};
use crate::hooks::{provide_live_feed, use_query_state, QueryState};
use crate::pages::run::manage::experiment::ExperimentTitle;
use crate::routes::AppRoute;
use charts::ChartsView;
use columns::{columns_from, columns_to_query, DEFAULT_SORT};
use compare::CompareView;
use filter_suggest::{suggest, FilterKeys};
use runs_table::RunsTable;
use table::live::use_live_rows;
use table::toolbar::{use_deleted_ids, LiveBadge, TableActions};
use workspace::{View, Workspace};

/// The experiment page's words for loading, not found, denied and failed.
const EXPERIMENT: ResourceTexts = ResourceTexts {
    loading: "Loading experiment…",
    not_found: "Experiment not found",
    not_found_hint:
        "No experiment has this id. It may have been deleted, or the link may be wrong.",
    denied: "You don't have access to this experiment",
    failed: "Could not load the experiment",
};

/// The experiment page.
#[component]
pub fn ExperimentPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let detail = LocalResource::new(move || api::get_experiment(id.get()));
    let first = FirstPage::start(id.get_untracked(), use_query_state());
    view! {
        <ResourceView resource=detail texts=EXPERIMENT
            ready=move |d| view! { <ExperimentView detail=d first=first /> } />
    }
}

/// The runs table's first page, asked for together with the experiment when the URL
/// leaves the columns to the defaults (the server picks them), instead of after it.
#[derive(Clone, Copy)]
struct FirstPage {
    /// The experiment and the query it answers, its columns left out.
    asked: StoredValue<(String, json::RunTableQuery)>,
    page: LocalResource<Result<json::RunTable, api::ApiError>>,
    /// Whether a table took it already: it serves once, when the page opens.
    taken: StoredValue<bool>,
}

impl FirstPage {
    /// Starts the request, unless the URL names columns.
    fn start(experiment_id: String, qs: QueryState) -> Option<Self> {
        let names_columns = untrack(|| {
            qs.with(|q| {
                ["params", "metrics", "tags"]
                    .iter()
                    .any(|k| q.get(k).is_some())
            })
        });
        if names_columns {
            return None;
        }
        let query = untrack(|| table_query(qs, json::RunTableColumns::default()));
        let (id, sent) = (experiment_id.clone(), query.clone());
        let page =
            LocalResource::new(move || api::list_runs_default_columns(id.clone(), sent.clone()));
        Some(FirstPage {
            asked: StoredValue::new((experiment_id, query)),
            page,
            taken: StoredValue::new(false),
        })
    }

    /// The page, when it answers `q`: the same filter, order and view, and the columns the
    /// server chose are `q`'s. `None` when the table must ask itself.
    async fn answer(
        self,
        experiment_id: &str,
        q: &json::RunTableQuery,
    ) -> Option<Result<json::RunTable, api::ApiError>> {
        if self.taken.try_update_value(|t| std::mem::replace(t, true)) != Some(false) {
            return None;
        }
        let same = self.asked.with_value(|(id, f)| {
            id == experiment_id
                && *f
                    == json::RunTableQuery {
                        columns: json::RunTableColumns::default(),
                        ..q.clone()
                    }
        });
        if !same {
            return None;
        }
        // Untracked: the table's query must not re-run when this page arrives.
        let page = ScopedFuture::new_untracked(self.page.into_future());
        match page.await {
            Ok(table) if table.columns != q.columns => None,
            got => Some(got),
        }
    }
}

/// The runs table's query for the URL state and these columns.
fn table_query(qs: QueryState, columns: json::RunTableColumns) -> json::RunTableQuery {
    let text = qs.get("filter").unwrap_or_default().trim().to_owned();
    let sort = qs
        .get("sort")
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_SORT.to_owned());
    json::RunTableQuery {
        filter: (!text.is_empty()).then_some(text),
        order_by: vec![sort],
        view: if Workspace::new(qs).show_deleted() {
            json::RunView::All
        } else {
            json::RunView::Active
        },
        columns,
        // The first page at the server's default size; the table asks for the rest.
        limit: None,
        page_token: None,
    }
}

/// The filter input: applies on Enter, offers completions as the user types
/// ([`filter_suggest`]: ArrowDown/ArrowUp to pick, Tab or Enter to take one, Escape to
/// close), and shows the server's message when the filter is bad.
#[component]
fn FilterBox(
    /// The URL state holding `filter`.
    qs: QueryState,
    /// The server's complaint about the current filter, if any.
    #[prop(into)]
    error: Signal<Option<String>>,
    /// The experiment's keys, for completion.
    keys: FilterKeys,
) -> impl IntoView {
    let applied = Signal::derive(move || qs.get("filter").unwrap_or_default());
    let draft = RwSignal::new(applied.get_untracked());
    Effect::new(move |_| draft.set(applied.get()));
    // Completions are offered only while the user is typing in the box.
    let open = RwSignal::new(false);
    let active = RwSignal::new(None::<usize>);
    let keys = StoredValue::new(keys);
    let suggestions = Memo::new(move |_| {
        if !open.get() {
            return Vec::new();
        }
        draft.with(|d| keys.with_value(|k| suggest(d, k)))
    });
    let apply = move || {
        open.set(false);
        let v = draft.get_untracked().trim().to_owned();
        qs.set("filter", (!v.is_empty()).then_some(v));
    };
    let input = NodeRef::<leptos::html::Input>::new();
    let take = move |i: usize| {
        let Some(s) = suggestions.with_untracked(|list| list.get(i).cloned()) else {
            return;
        };
        draft.update(|d| *d = s.apply(d));
        active.set(None);
        if let Some(el) = input.get_untracked() {
            let _ = el.focus();
        }
    };
    let keydown = move |ev: leptos::ev::KeyboardEvent| {
        let n = suggestions.with_untracked(Vec::len);
        match ev.key().as_str() {
            "ArrowDown" if n > 0 => {
                ev.prevent_default();
                active.update(|a| *a = Some(a.map_or(0, |i| (i + 1) % n)));
            }
            "ArrowUp" if n > 0 => {
                ev.prevent_default();
                active.update(|a| *a = Some(a.map_or(n - 1, |i| (i + n - 1) % n)));
            }
            "Tab" if n > 0 => {
                ev.prevent_default();
                take(active.get_untracked().unwrap_or(0));
            }
            "Enter" => match active.get_untracked().filter(|i| *i < n) {
                Some(i) => take(i),
                None => apply(),
            },
            "Escape" => {
                open.set(false);
                active.set(None);
            }
            _ => {}
        }
    };
    let list = move || {
        let items = suggestions.get();
        (!items.is_empty()).then(|| {
            let options = items
                .into_iter()
                .enumerate()
                .map(|(i, s)| {
                    view! {
                        <li role="option" id=format!("filter-option-{i}") class="filter-option mono"
                            class:active=move || active.get() == Some(i)
                            aria-selected=move || (active.get() == Some(i)).to_string()
                            on:mousedown=move |ev| { ev.prevent_default(); take(i); }>
                            {s.label}
                        </li>
                    }
                })
                .collect_view();
            view! { <ul class="filter-options" id="filter-options" role="listbox" aria-label="Completions">{options}</ul> }
        })
    };
    view! {
        <div class="filter">
            <input class="filter-input mono" type="text" aria-label="Filter runs" node_ref=input
                role="combobox" aria-autocomplete="list" aria-controls="filter-options"
                aria-expanded=move || (!suggestions.with(Vec::is_empty)).to_string()
                aria-activedescendant=move || active.get().map(|i| format!("filter-option-{i}"))
                autocomplete="off" spellcheck="false"
                placeholder="metrics.loss < 0.5 AND params.lr = '0.001'    (Enter to apply)"
                prop:value=move || draft.get()
                on:input=move |ev| { draft.set(event_target_value(&ev)); open.set(true); active.set(None); }
                on:blur=move |_| open.set(false)
                on:keydown=keydown />
            {list}
            {move || error.get().map(|m| view! {
                <div class="filter-error" role="alert"><strong>"Invalid filter: "</strong>{m}</div>
            })}
        </div>
    }
}

/// Header, toolbar and runs of one experiment.
#[component]
fn ExperimentView(
    /// The experiment and its run keys.
    detail: json::ExperimentDetail,
    /// The first page, if it was asked for with the experiment.
    first: Option<FirstPage>,
) -> impl IntoView {
    let qs = use_query_state();
    let ws = Workspace::new(qs);
    let exp = detail.experiment.clone();
    let can_edit = detail.can_edit;
    let filter_keys = FilterKeys {
        metrics: detail.metric_keys.clone(),
        params: detail.param_keys.clone(),
        tags: detail.tag_keys.clone(),
    };
    provide_live_feed(exp.id.clone());
    let cols = {
        let d = detail.clone();
        Memo::new(move |_| columns_from(&d, qs.get("params"), qs.get("metrics"), qs.get("tags")))
    };
    let query = Memo::new(move |_| table_query(qs, cols.get()));
    let sort = Memo::new(move |_| query.with(|q| q.order_by[0].clone()));
    let filter = Memo::new(move |_| qs.get("filter").unwrap_or_default());
    let exp_id = exp.id.clone();
    // The first page (the one asked for with the experiment, the first time, if it fits);
    // the table loads the others as it scrolls.
    let runs = LocalResource::new(move || {
        let q = query.get();
        let exp_id = exp_id.clone();
        async move {
            if let Some(got) = match first {
                Some(first) => first.answer(&exp_id, &q).await,
                None => None,
            } {
                return got;
            }
            api::list_runs(exp_id, q).await
        }
    });
    let table_exp_id = exp.id.clone();
    let live = use_live_rows(runs);
    let deleted_ids = use_deleted_ids(exp.id.clone(), query);
    let deleted = Signal::derive(move || deleted_ids.get().unwrap_or_default());
    let filter_error = Signal::derive(move || match runs.get() {
        Some(Err(e)) if matches!(e.code, ErrorCode::InvalidParameter | ErrorCode::BadRequest) => {
            Some(e.message)
        }
        _ => None,
    });
    let on_columns = {
        let d = detail.clone();
        Callback::new(move |c: json::RunTableColumns| qs.update(|q| columns_to_query(q, &d, &c)))
    };
    let on_sort = Callback::new(move |clause: String| qs.set("sort", Some(clause)));
    view! {
        <nav class="breadcrumb"><a href=AppRoute::Experiments.path()>"Experiments"</a><span>"/"</span></nav>
        <div class="page-header">
            <ExperimentTitle experiment=exp.clone() can_edit=can_edit />
            <ShareButton experiment_id=exp.id.clone() experiment_name=exp.name.clone() />
        </div>
        <div class="view-bar"><ViewTabs ws=ws /><LiveBadge /></div>
        {
            // A memo, so other URL changes (zoom, search, hide) do not rebuild the view.
            let d = detail.clone();
            let current = Memo::new(move |_| ws.view());
            move || match current.get() {
                View::Runs => ().into_any(),
                View::Charts => view! { <ChartsView detail=d.clone() ws=ws /> }.into_any(),
                View::Compare => view! { <CompareView detail=d.clone() ws=ws /> }.into_any(),
            }
        }
        <div class="toolbar" class:hidden=move || ws.view() != View::Runs>
            <FilterBox qs=qs error=filter_error keys=filter_keys.clone() />
            <ColumnsPicker detail=detail selected=cols on_change=on_columns />
            <TableActions ws=ws experiment_id=exp.id.clone() query=query />
        </div>
        <div class="card" class:hidden=move || ws.view() != View::Runs>
            <Transition fallback=|| view! { <Loading label="Loading runs…" /> }>
                {move || { let exp_id = table_exp_id.clone(); Suspend::new(async move {
                    match runs.await {
                        Ok(t) if t.rows.is_empty() => empty_runs(filter.get_untracked()).into_any(),
                        Ok(t) => view! {
                            <RunsTable table=t experiment_id=exp_id query=query.get_untracked()
                                sort=sort on_sort=on_sort on_columns=on_columns
                                ws=ws live=live deleted=deleted />
                        }.into_any(),
                        Err(e) if filter_error.get_untracked().is_some() => view! {
                            <EmptyState title="No runs shown" hint=format!("Fix the filter above to see runs ({}).", e.code) />
                        }.into_any(),
                        Err(e) => view! {
                            <ErrorView title="Could not load runs" error=e retry=Callback::new(move |_| runs.refetch()) />
                        }.into_any(),
                    }
                })}}
            </Transition>
        </div>
    }
}

/// The workspace's tabs: Runs, Charts (with the selection's size), Compare.
#[component]
fn ViewTabs(
    /// The URL's workspace state.
    ws: Workspace,
) -> impl IntoView {
    let tab = move |v: View| {
        let count = move || match v {
            View::Runs => String::new(),
            _ => format!(" ({})", ws.shown().len()),
        };
        view! {
            <button class="tab" role="tab" type="button"
                class:selected=move || ws.view() == v
                aria-selected=move || (ws.view() == v).to_string()
                on:click=move |_| ws.set_view(v)>
                {v.label()}{count}
            </button>
        }
    };
    view! {
        <div class="tabs" role="tablist" aria-label="Experiment views">
            {View::ALL.map(tab).into_iter().collect::<Vec<_>>()}
        </div>
    }
}

fn empty_runs(filter: String) -> impl IntoView {
    if filter.is_empty() {
        view! { <EmptyState title="No runs yet" hint="Runs logged to this experiment with mlflow.start_run() appear here." /> }
    } else {
        view! { <EmptyState title="No runs match this filter" hint="Loosen the filter, or clear it to see every run." /> }
    }
}
