//! The experiment's chart view (`?view=charts`): one panel per metric with every
//! shown run overlaid in its colour, or one mean line with a min–max band per group.
//!
//! - [`settings`]: the URL keys (`x`, `x_key`, `zoom`, `q`, `log`, `smooth`, `sys`);
//! - [`runs`]: names, statuses and group values of the selected runs, and the lines drawn;
//! - [`panel`]: one metric, fetched lazily ([`visibility`]) in one batched request;
//! - [`data`]: a panel's series, live appends and what it draws ([`crate::charts::multi`]
//!   paints, [`crate::charts::group`] aggregates groups);
//! - [`controls`], [`legend`], [`tooltip`]; [`live`]: the page's live feed.
//!
//! Crosshair and zoom are shared: hovering a panel draws the same x in every panel, and a
//! drag zooms every panel (`zoom=<min>:<max>`).

mod controls;
mod data;
mod legend;
mod live;
mod panel;
mod runs;
mod settings;
mod tooltip;
mod visibility;

use std::sync::Arc;

use api_types as json;
use api_types::workspace::LiveUpdate;
use leptos::prelude::*;

use super::columns::DEFAULT_SORT;
use super::workspace::Workspace;
use crate::api;
use crate::components::states::{EmptyState, ErrorView};
use crate::hooks::{use_live_feed, QueryState};
use controls::Controls;
pub(crate) use data::{build_chart, rank_values, values_at, y_px, LineOptions, RunSeries};
use legend::Legend;
use live::use_chart_live;
pub(crate) use panel::paint;
use panel::Panel;
pub(crate) use runs::LineSpec;
use runs::{fetch_runs, line_specs, RunInfo};
use settings::{panel_keys, ChartSettings};

/// How many runs "Select top N" selects.
const TOP_N: usize = 5;

/// The view's shared state, handed to every panel (`Copy`).
#[derive(Clone, Copy)]
pub struct ViewCtx {
    /// The experiment.
    experiment_id: StoredValue<String>,
    /// The URL's chart settings.
    settings: Memo<ChartSettings>,
    /// Selected runs (what panels fetch), in order.
    selected: Memo<Vec<String>>,
    /// Shown runs (selected, not hidden), in order.
    shown: Memo<Vec<String>>,
    /// The lines drawn, in legend order.
    specs: Memo<Vec<LineSpec>>,
    /// The selected runs' names and statuses.
    infos: Memo<Vec<RunInfo>>,
    /// The hovered panel's key and the data x under the cursor (the shared crosshair).
    hover: RwSignal<Option<(String, f64)>>,
    /// The latest live update.
    live: RwSignal<Option<Arc<LiveUpdate>>>,
    /// Bumped when every panel must refetch.
    refresh: RwSignal<u64>,
    /// The page's URL state (zoom writes).
    qs: QueryState,
}

impl ViewCtx {
    /// The name of a run, else `fallback`.
    fn name_or(&self, id: &str, fallback: String) -> String {
        self.infos.with(|i| {
            i.iter()
                .find(|r| r.run_id == id)
                .map_or(fallback, |r| r.name.clone())
        })
    }

    /// The name of a run, else its short id.
    fn name_of(&self, id: &str) -> String {
        self.name_or(id, runs::short_id(id))
    }
}

/// The chart view.
#[component]
pub fn ChartsView(
    /// The experiment and its keys.
    detail: json::ExperimentDetail,
    /// The URL's workspace state.
    ws: Workspace,
) -> impl IntoView {
    let qs = ws.qs;
    let settings = Memo::new(move |_| qs.with(ChartSettings::from_query));
    let selected = Memo::new(move |_| ws.selected());
    let shown = Memo::new(move |_| ws.shown());
    let group = Memo::new(move |_| ws.group());
    let exp_id = detail.experiment.id.clone();
    let runs_changed = RwSignal::new(0u64);
    let fetched = {
        let exp_id = exp_id.clone();
        LocalResource::new(move || {
            runs_changed.track();
            fetch_runs(exp_id.clone(), selected.get(), group.get())
        })
    };
    let infos = Memo::new(move |prev: Option<&Vec<RunInfo>>| match fetched.get() {
        Some(Ok(v)) => v,
        _ => prev.cloned().unwrap_or_default(),
    });
    let live = use_chart_live(selected);
    Effect::new(move |_| {
        let n = live.runs_changed.get();
        if runs_changed.get_untracked() != n {
            runs_changed.set(n);
        }
    });
    let specs = Memo::new(move |_| {
        let grouped = group.with(Option::is_some);
        line_specs(&shown.get(), &infos.get(), grouped, |id| ws.color(id))
    });
    let ctx = ViewCtx {
        experiment_id: StoredValue::new(exp_id.clone()),
        settings,
        selected,
        shown,
        specs,
        infos,
        hover: RwSignal::new(None),
        live: live.update,
        refresh: live.refresh,
        qs,
    };
    let all_keys = detail.metric_keys.clone();
    let keys = Memo::new(move |_| settings.with(|s| panel_keys(&all_keys, &s.search, s.system)));
    let names_error = move || match fetched.get() {
        Some(Err(e)) => Some(view! {
            <ErrorView title="Could not load the runs' names" error=e retry=Callback::new(move |_| fetched.refetch()) />
        }),
        _ => None,
    };
    let no_metrics = detail.metric_keys.is_empty();
    // Memos, so that the panels are rebuilt only when these flip, not on every selection change.
    let none_selected = Memo::new(move |_| selected.with(Vec::is_empty));
    let none_shown = Memo::new(move |_| shown.with(Vec::is_empty));
    let body = move || {
        if none_selected.get() {
            return view! { <NoSelection experiment_id=exp_id.clone() ws=ws /> }.into_any();
        }
        if no_metrics {
            return view! { <EmptyState title="No metrics logged" hint="Metrics logged with mlflow.log_metric() appear here, one chart per metric." /> }.into_any();
        }
        if none_shown.get() {
            return view! { <EmptyState title="Every selected run is hidden" hint="Click a run in the legend above to show it again." /> }.into_any();
        }
        view! { <Panels keys=keys ctx=ctx /> }.into_any()
    };
    let feed = use_live_feed();
    let live_open = move || feed.is_some_and(|f| f.is_live()).to_string();
    view! {
        <div class="wcharts" data-live=live_open>
            <Controls detail=detail.clone() ws=ws settings=settings />
            <Show when=move || !none_selected.get()>
                <Legend ws=ws ctx=ctx />
            </Show>
            {names_error}
            {body}
        </div>
    }
}

/// The panels of the keys that match the search.
#[component]
fn Panels(
    /// Keys to draw.
    keys: Memo<Vec<String>>,
    /// The view's shared state.
    ctx: ViewCtx,
) -> impl IntoView {
    let summary = move || {
        let n = keys.with(Vec::len);
        format!("{n} metric{}", if n == 1 { "" } else { "s" })
    };
    view! {
        <p class="muted small wcharts-summary" aria-live="polite">{summary}</p>
        <Show when=move || !keys.with(Vec::is_empty)
            fallback=|| view! { <EmptyState title="No metric matches the search" hint="Clear or change the search above." /> }>
            <div class="chart-grid wchart-grid">
                <For each=move || keys.get() key=|k| k.clone() let:key>
                    <Panel key=key ctx=ctx />
                </For>
            </div>
        </Show>
    }
}

/// Nothing selected: how to select runs, and a shortcut.
#[component]
fn NoSelection(
    /// The experiment.
    experiment_id: String,
    /// The URL's workspace state.
    ws: Workspace,
) -> impl IntoView {
    let qs = ws.qs;
    let pick = Action::new_local(move |_: &()| {
        let filter = untrack(|| qs.get("filter")).filter(|f| !f.trim().is_empty());
        let sort = untrack(|| qs.get("sort"))
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_SORT.to_owned());
        let q = json::RunTableQuery {
            filter,
            order_by: vec![sort],
            view: json::RunView::Active,
            columns: json::RunTableColumns::default(),
            limit: u32::try_from(TOP_N).ok(),
            page_token: None,
        };
        let id = experiment_id.clone();
        async move {
            let t = api::list_runs(id, q).await?;
            let ids: Vec<String> = t.rows.into_iter().take(TOP_N).map(|r| r.run_id).collect();
            if !ids.is_empty() {
                ws.select(&ids);
            }
            Ok::<(), api::ApiError>(())
        }
    });
    let failed = move || match pick.value().get() {
        Some(Err(e)) => Some(view! { <p class="filter-error" role="alert">{e.message}</p> }),
        _ => None,
    };
    view! {
        <div class="state state-empty wcharts-empty">
            <div class="state-title">"No runs selected"</div>
            <div class="state-hint">
                "Tick runs in the Runs tab to overlay them here, one chart per metric."
            </div>
            <button class="button" type="button" disabled=move || pick.pending().get()
                on:click=move |_| { pick.dispatch(()); }>
                {format!("Select top {TOP_N}")}
            </button>
            <span class="muted small">"by the table's current sort and filter"</span>
            {failed}
        </div>
    }
}
