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

/// The line above the table: how many runs, and whether all of them are shown.
fn summary(total: u64, truncated: bool, shown: usize) -> String {
    match (total, truncated) {
        (1, _) => "1 run".to_owned(),
        (n, false) => format!("{n} runs"),
        (n, true) => format!("{n} runs (showing the first {shown}; narrow the filter)"),
    }
}

/// The run count and, when some runs have children, "Expand all" / "Collapse all".
#[component]
fn TableToolbar(
    /// What [`summary`] says.
    summary: String,
    /// Every run that has children.
    parents: HashSet<String>,
    /// The expanded runs.
    expanded: RwSignal<HashSet<String>>,
) -> impl IntoView {
    let has_parents = !parents.is_empty();
    let toggle_all = move |_| {
        let all = parents.clone();
        expanded.update(|e| if e.is_empty() { *e = all } else { e.clear() });
    };
    view! {
        <div class="table-toolbar">
            <span class="muted">{summary}</span>
            {has_parents.then(|| view! {
                <button class="button button-small" on:click=toggle_all>
                    {move || if expanded.with(HashSet::is_empty) { "Expand all" } else { "Collapse all" }}
                </button>
            })}
        </div>
    }
}

/// The sortable header row: fixed columns, then the chosen params, metrics and tags.
#[component]
fn HeaderRow(
    /// The chosen value columns.
    columns: json::RunTableColumns,
    /// The current order_by clause.
    sort: Signal<String>,
    /// Called with the new order_by clause when a header is clicked.
    on_sort: Callback<String>,
) -> impl IntoView {
    let header = move |label: String, col: Column, class: &'static str| {
        let c = col.clone();
        let state = Signal::derive(move || c.state(&sort.get()));
        let title = label.clone();
        let clicked = Callback::new(move |_| on_sort.run(col.clicked(&sort.get_untracked())));
        view! { <SortHeader label=label title=title state=state class=class on_sort=clicked /> }
    };
    let values = |keys: &[String], col: fn(String) -> Column, class: &'static str| {
        keys.iter()
            .map(|k| header(k.clone(), col(k.clone()), class))
            .collect_view()
    };
    view! {
        <tr>
            {header("Run".into(), Column::Attr("run_name"), "col-run")}
            {header("Status".into(), Column::Attr("status"), "col-status")}
            {header("Started".into(), Column::Attr("start_time"), "col-time")}
            <th class="num col-duration">"Duration"</th>
            {header("User".into(), Column::Attr("user_id"), "col-user")}
            {values(&columns.params, Column::Param, "col-value kind-param")}
            {values(&columns.metrics, Column::Metric, "col-value num kind-metric")}
            {values(&columns.tags, Column::Tag, "col-value kind-tag")}
        </tr>
    }
}

/// The rows to render for the scroll position: (rows above, rows below, the rows).
fn use_row_window(
    tree: Memo<Vec<TreeRow>>,
    scroll: VirtualScroll,
) -> Memo<(usize, usize, Vec<TreeRow>)> {
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
    window
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
    let tree = {
        let table = table.clone();
        Memo::new(move |_| expanded.with(|e| flatten(&table.rows, e)))
    };
    let scroll = VirtualScroll::new(600.0);
    let window = use_row_window(tree, scroll);
    let toggle = Callback::new(move |id: String| {
        expanded.update(|e| {
            if !e.remove(&id) {
                e.insert(id);
            }
        })
    });
    let now = format::now_ms();
    let cols = &table.columns;
    let n_cols = 5 + cols.params.len() + cols.metrics.len() + cols.tags.len();
    let summary = summary(table.total, table.truncated, table.rows.len());
    let columns = table.columns.clone();
    let parents = parents(&table.rows);
    let body = move || {
        let (above, below, rows) = window.get();
        let spacer = |n: usize| {
            let height = format!("height: {}px", n as f64 * ROW_HEIGHT);
            view! { <tr class="spacer" style=height aria-hidden="true"><td colspan=n_cols></td></tr> }
        };
        view! {
            {spacer(above)}
            {rows.into_iter().map(|t| run_row(&table.rows[t.index], t, now, toggle)).collect_view()}
            {spacer(below)}
        }
    };
    view! {
        <TableToolbar summary=summary parents=parents expanded=expanded />
        <div class="table-scroll runs-scroll" node_ref=scroll.node on:scroll=move |_| scroll.measure()>
            <table class="table runs-table">
                <thead><HeaderRow columns=columns sort=sort on_sort=on_sort /></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn summary_says_when_runs_are_left_out() {
        assert_eq!(summary(1, false, 1), "1 run");
        assert_eq!(summary(12, false, 12), "12 runs");
        assert_eq!(
            summary(5000, true, 1000),
            "5000 runs (showing the first 1000; narrow the filter)"
        );
    }
}
