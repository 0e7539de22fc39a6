//! The virtualised runs table: fixed-height rows, only the visible window rendered, nested
//! runs grouped under their parents with expand/collapse, sortable headers.

use std::collections::HashSet;
use std::sync::Arc;

use api_types as json;
use leptos::prelude::*;

use super::columns::Column;
use super::tree::{flatten, parents, TreeRow};
use crate::components::status_badge::StatusBadge;
use crate::components::table::SortHeader;
use crate::components::virtual_list::{visible_range, VirtualScroll};
use crate::format;
use crate::routes::AppRoute;

/// Row height in CSS pixels (must match `.runs-table tr.run-row` in the CSS).
pub const ROW_HEIGHT: f64 = 36.0;

fn cell_text(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "—".to_owned())
}

fn run_row(run: &json::RunRow, t: TreeRow, now: i64, toggle: Callback<String>) -> impl IntoView {
    let id = run.run_id.clone();
    let duration = format::duration(run.end_time.unwrap_or(now) - run.start_time);
    let expander = (t.children > 0).then(|| {
        let id = id.clone();
        view! {
            <button class="expander" aria-expanded=t.expanded.to_string()
                aria-label=if t.expanded { "Collapse child runs" } else { "Expand child runs" }
                on:click=move |_| toggle.run(id.clone())>
                {if t.expanded { "▾" } else { "▸" }}
            </button>
            <span class="child-count">{t.children}</span>
        }
    });
    let params = run
        .params
        .iter()
        .map(|v| view! { <td class="truncate" title=cell_text(v)>{cell_text(v)}</td> })
        .collect_view();
    let metrics = run
        .metrics
        .iter()
        .map(|v| {
            let text = v.map(|m| format::value(m.0)).unwrap_or_else(|| "—".into());
            let full = v.map(|m| m.0.to_string()).unwrap_or_default();
            view! { <td class="num mono" title=full>{text}</td> }
        })
        .collect_view();
    let tags = run
        .tags
        .iter()
        .map(|v| view! { <td class="truncate" title=cell_text(v)>{cell_text(v)}</td> })
        .collect_view();
    view! {
        <tr class="run-row" class:child={t.depth > 0}>
            <td class="name-cell">
                <div class="tree-cell" style=format!("padding-left: {}px", t.depth * 20)>
                    <span class="expander-slot">{expander}</span>
                    <a href=AppRoute::run(id.clone()) class="run-link truncate" title=run.run_name.clone()>{run.run_name.clone()}</a>
                </div>
            </td>
            <td><StatusBadge status=run.status.clone() /></td>
            <td title=format::datetime(run.start_time)>{format::relative(run.start_time, now)}</td>
            <td class="num">{duration}</td>
            <td class="truncate" title=run.user_id.clone()>{run.user_id.clone()}</td>
            {params}{metrics}{tags}
        </tr>
    }
}

/// The runs of an experiment as a grouped, virtualised table.
#[component]
pub fn RunsTable(
    /// The rows and their columns, from the server.
    table: json::RunTable,
    /// The current order_by clause.
    #[prop(into)]
    sort: Signal<String>,
    /// Called with the new order_by clause when a header is clicked.
    on_sort: Callback<String>,
) -> impl IntoView {
    let table = Arc::new(table);
    let expanded = RwSignal::new(HashSet::<String>::new());
    let all_parents = parents(&table.rows);
    let tree = {
        let table = table.clone();
        Memo::new(move |_| expanded.with(|e| flatten(&table.rows, e)))
    };
    let scroll = VirtualScroll::new(600.0);
    // One memo feeds the body: reading `tree` next to a memo derived from it would let a
    // change of `tree` that leaves the range unchanged go unseen.
    let window = Memo::new(move |_| {
        let (top, viewport) = (scroll.scroll_top.get(), scroll.viewport.get());
        tree.with(|t| {
            let r = visible_range(top, viewport, ROW_HEIGHT, t.len());
            (r.start, t.len() - r.end, t[r].to_vec())
        })
    });
    Effect::new(move |_| {
        if scroll.node.get().is_some() {
            scroll.measure();
        }
    });
    let toggle = Callback::new(move |id: String| {
        expanded.update(|e| {
            if !e.remove(&id) {
                e.insert(id);
            }
        })
    });
    let now = format::now_ms();
    let header = move |label: String, col: Column, class: &'static str| {
        let c = col.clone();
        let state = Signal::derive(move || c.state(&sort.get()));
        let title = label.clone();
        view! { <SortHeader label=label title=title state=state class=class on_sort=Callback::new(move |_| on_sort.run(col.clicked(&sort.get_untracked()))) /> }
    };
    let cols = table.columns.clone();
    let summary = match (table.total, table.truncated) {
        (1, _) => "1 run".to_owned(),
        (n, false) => format!("{n} runs"),
        (n, true) => format!(
            "{n} runs (showing the first {}; narrow the filter)",
            table.rows.len()
        ),
    };
    let n_cols = 5 + cols.params.len() + cols.metrics.len() + cols.tags.len();
    let has_parents = !all_parents.is_empty();
    let parents_all = all_parents.clone();
    let body = {
        let table = table.clone();
        move || {
            let (above, below, rows) = window.get();
            let top = above as f64 * ROW_HEIGHT;
            let bottom = below as f64 * ROW_HEIGHT;
            view! {
                <tr class="spacer" style=format!("height: {top}px") aria-hidden="true"><td colspan=n_cols></td></tr>
                {rows.into_iter().map(|t| run_row(&table.rows[t.index], t, now, toggle)).collect_view()}
                <tr class="spacer" style=format!("height: {bottom}px") aria-hidden="true"><td colspan=n_cols></td></tr>
            }
        }
    };
    view! {
        <div class="table-toolbar">
            <span class="muted">{summary}</span>
            <Show when=move || has_parents>
                {
                    let parents_all = parents_all.clone();
                    view! {
                        <button class="button button-small" on:click=move |_| {
                            let all = parents_all.clone();
                            expanded.update(|e| if e.is_empty() { *e = all } else { e.clear() });
                        }>
                            {move || if expanded.with(HashSet::is_empty) { "Expand all" } else { "Collapse all" }}
                        </button>
                    }
                }
            </Show>
        </div>
        <div class="table-scroll runs-scroll" node_ref=scroll.node on:scroll=move |_| scroll.measure()>
            <table class="table runs-table">
                <thead>
                    <tr>
                        {header("Run".into(), Column::Attr("run_name"), "col-run")}
                        {header("Status".into(), Column::Attr("status"), "col-status")}
                        {header("Started".into(), Column::Attr("start_time"), "col-time")}
                        <th class="num col-duration">"Duration"</th>
                        {header("User".into(), Column::Attr("user_id"), "col-user")}
                        {cols.params.iter().map(|k| header(k.clone(), Column::Param(k.clone()), "col-value kind-param")).collect_view()}
                        {cols.metrics.iter().map(|k| header(k.clone(), Column::Metric(k.clone()), "col-value num kind-metric")).collect_view()}
                        {cols.tags.iter().map(|k| header(k.clone(), Column::Tag(k.clone()), "col-value kind-tag")).collect_view()}
                    </tr>
                </thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}
