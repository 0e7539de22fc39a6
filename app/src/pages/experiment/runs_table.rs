//! The virtualised runs table: fixed-height rows, only the visible window rendered and only
//! the pages of rows it reaches loaded ([`super::table::pages`]; the scroll height is the
//! true total, rows not loaded yet show as "Loading…" until their page comes), nested
//! runs grouped under their parents with expand/collapse, sortable headers, a checkbox
//! and colour per selected run, a sticky Run column, labelled column groups (Metrics
//! before Params before Tags), and columns that resize, reorder and pin. Running rows
//! update in place from the page's live feed ([`super::table::live`]).
//!
//! URL keys of the table (besides `filter`, `sort`, `params`, `metrics`, `tags` of
//! [`super::columns`] and the workspace's `sel`, `color`, `deleted`):
//!
//! | key     | meaning                                                                  |
//! |---------|--------------------------------------------------------------------------|
//! | `pin`   | pinned value columns, in pin order: `m.loss,p.lr` (they stick after Run)  |
//! | `order` | columns moved by hand, in display order; the others follow in the default order (metrics, params, tags), so only the moved prefix is written |
//! | `w`     | widths changed by hand: `run:320,m.loss:180` (fixed columns: `run`, `status`, `start`, `dur`, `user`) |
//!
//! A value column's id is `m.<key>`, `p.<key>` or `t.<key>` (metric, param, tag); see
//! [`super::table::layout`].

use std::collections::HashSet;

use api_types as json;
use leptos::prelude::*;

use super::table::header::{
    pinned_style, AllState, ColumnMenu, HeaderRows, LayoutHandle, ATTR_COLUMNS,
};
use super::table::layout::{Display, Kind, Shown, SELECT_WIDTH};
use super::table::live::{LiveRows, Patches};
use super::table::pages::RunPages;
use super::tree::{flatten, parents, TreeRow};
use super::workspace::Workspace;
use crate::components::status_badge::StatusBadge;
use crate::components::virtual_list::{visible_range, VirtualScroll};
use crate::format;
use crate::routes::AppRoute;

/// Row height in CSS pixels (must match `.runs-table tr.run-row` in the CSS).
pub const ROW_HEIGHT: f64 = 36.0;

/// Choices of "Select top N".
const TOP_N: [usize; 3] = [5, 10, 20];

fn cell_text(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "—".to_owned())
}

/// What every row reads besides its own data.
#[derive(Clone, Copy)]
struct RowCtx {
    ws: Workspace,
    patches: RwSignal<Patches>,
    deleted: Signal<HashSet<String>>,
    now: Signal<i64>,
    toggle: Callback<String>,
    layout: LayoutHandle,
}

/// One value cell; metric cells follow the live feed.
fn value_cell(run: &json::RunRow, s: &Shown, ctx: RowCtx) -> AnyView {
    let (class, style) = match s.left {
        Some(_) => ("sticky pinned", pinned_style(ctx.layout, s.id.clone())),
        None => ("", Signal::default()),
    };
    match s.id.kind {
        Kind::Metric => {
            let loaded = run.metrics.get(s.index).copied().flatten().map(|v| v.0);
            let (id, key) = (run.run_id.clone(), s.id.key.clone());
            let value = move || {
                ctx.patches
                    .with(|p| p.get(&id).and_then(|r| r.metrics.get(&key).copied()))
                    .or(loaded)
            };
            let title = value.clone();
            view! {
                <td class=format!("num mono {class}") style=style
                    title=move || title().map(|v| v.to_string()).unwrap_or_default()>
                    {move || value().map_or_else(|| "—".to_owned(), format::value)}
                </td>
            }
            .into_any()
        }
        Kind::Param | Kind::Tag => {
            let list = if s.id.kind == Kind::Param {
                &run.params
            } else {
                &run.tags
            };
            let text = cell_text(list.get(s.index).unwrap_or(&None));
            let title = text.clone();
            view! { <td class=format!("truncate {class}") style=style title=title>{text}</td> }
                .into_any()
        }
    }
}

fn run_row(run: &json::RunRow, t: TreeRow, d: &Display, ctx: RowCtx) -> impl IntoView {
    let id = run.run_id.clone();
    let RowCtx {
        ws,
        patches,
        deleted,
        now,
        toggle,
        ..
    } = ctx;
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
    let patch = {
        let id = id.clone();
        move |f: &dyn Fn(&super::table::live::RowPatch) -> Option<String>| {
            patches.with(|p| p.get(&id).and_then(f))
        }
    };
    let name = {
        let (patch, orig) = (patch.clone(), run.run_name.clone());
        move || patch(&|r| r.name.clone()).unwrap_or_else(|| orig.clone())
    };
    let status = {
        let (patch, orig) = (patch.clone(), run.status.clone());
        move || patch(&|r| r.status.clone()).unwrap_or_else(|| orig.clone())
    };
    let (start, orig_end) = (run.start_time, run.end_time);
    let duration = {
        let id = id.clone();
        move || {
            let end = patches
                .with(|p| p.get(&id).and_then(|r| r.end_time))
                .unwrap_or(orig_end);
            format::duration(end.unwrap_or_else(|| now.get()) - start)
        }
    };
    let is_deleted = {
        let id = id.clone();
        move || {
            patches
                .with(|p| p.get(&id).and_then(|r| r.deleted))
                .unwrap_or_else(|| deleted.with(|d| d.contains(&id)))
        }
    };
    let selected = {
        let id = id.clone();
        move || ws.is_selected(&id)
    };
    let swatch = {
        let (id, name) = (id.clone(), name.clone());
        move || {
            ws.is_selected(&id).then(|| {
                let (id2, id3) = (id.clone(), id.clone());
                view! {
                    <input type="color" class="run-swatch" aria-label=format!("Colour of {}", name())
                        prop:value=move || ws.color(&id2)
                        on:change=move |ev| ws.set_color(&id3, &event_target_value(&ev)) />
                }
            })
        }
    };
    let check_label = {
        let name = name.clone();
        move || format!("Select {}", name())
    };
    let pinned = d
        .pinned
        .iter()
        .map(|s| value_cell(run, s, ctx))
        .collect_view();
    let rest = d
        .rest
        .iter()
        .map(|s| value_cell(run, s, ctx))
        .collect_view();
    let toggle_id = id.clone();
    let (name2, name3) = (name.clone(), name.clone());
    let (deleted_row, selected_row) = (is_deleted.clone(), selected.clone());
    view! {
        <tr class="run-row" class:child={t.depth > 0} class:deleted=deleted_row
            class:selected=selected_row data-run=id.clone()>
            <td class="sel-cell sticky" style="left: 0">
                <input type="checkbox" class="select-run" aria-label=check_label
                    prop:checked=selected on:change=move |_| ws.toggle(&toggle_id) />
                {swatch}
            </td>
            <td class="name-cell sticky col-run" style="left: var(--sel-w)">
                <div class="tree-cell" style=format!("padding-left: {}px", t.depth * 20)>
                    <span class="expander-slot">{expander}</span>
                    <a href=AppRoute::run(id.clone()) class="run-link truncate" title=name2>{name3}</a>
                    {move || is_deleted().then(|| view! { <span class="deleted-badge">"Deleted"</span> })}
                </div>
            </td>
            {pinned}
            <td>{move || view! { <StatusBadge status=status() /> }}</td>
            <td title=format::datetime(start)>{move || format::relative(start, now.get())}</td>
            <td class="num">{duration}</td>
            <td class="truncate" title=run.user_id.clone()>{run.user_id.clone()}</td>
            {rest}
            <td class="filler"></td>
        </tr>
    }
}

/// A row whose page is still on its way (or failed: scrolling asks again).
fn loading_row(n_cols: usize) -> impl IntoView {
    view! {
        <tr class="loading-row" aria-busy="true">
            <td colspan=n_cols class="muted">"Loading…"</td>
        </tr>
    }
}

/// The line above the table: how many runs match (all of them, loaded or not).
fn summary(total: u64) -> String {
    match total {
        1 => "1 run".to_owned(),
        n => format!("{} runs", format::count(n)),
    }
}

/// The ids of the first `n` rows in the table's order (the current sort).
fn top_ids(rows: &[json::RunRow], n: usize) -> Vec<String> {
    rows.iter().take(n).map(|r| r.run_id.clone()).collect()
}

/// `selected` plus (`on`) or minus the `shown` ids, keeping the selection's order.
fn with_shown(selected: &[String], shown: &[String], on: bool) -> Vec<String> {
    let mut out: Vec<String> = selected
        .iter()
        .filter(|s| on || !shown.contains(s))
        .cloned()
        .collect();
    if on {
        out.extend(shown.iter().filter(|s| !selected.contains(s)).cloned());
    }
    out
}

/// The run count, the selection's tools, and "Expand all" / "Collapse all".
#[component]
fn TableToolbar(
    /// What [`summary`] says.
    #[prop(into)]
    summary: Signal<String>,
    /// Every run that has children (among the loaded rows).
    #[prop(into)]
    parents: Signal<HashSet<String>>,
    /// The expanded runs.
    expanded: RwSignal<HashSet<String>>,
    /// The URL's workspace state.
    ws: Workspace,
    /// Selects the first N runs of the table's order.
    on_top: Callback<usize>,
) -> impl IntoView {
    let has_parents = move || parents.with(|p| !p.is_empty());
    let toggle_all = move |_| {
        let all = parents.get_untracked();
        expanded.update(|e| if e.is_empty() { *e = all } else { e.clear() });
    };
    let count = move || ws.selected().len();
    view! {
        <div class="table-toolbar runs-toolbar">
            <span class="muted">{summary}</span>
            <div class="selection-tools">
                <span class="selection-count" aria-live="polite">{move || format!("{} selected", count())}</span>
                <select class="select-top" aria-label="Select top runs by the current sort"
                    on:change=move |ev| {
                        if let Ok(n) = event_target_value(&ev).parse::<usize>() {
                            on_top.run(n);
                        }
                        // Back to the prompt, so the same choice can be made again.
                        event_target::<web_sys::HtmlSelectElement>(&ev).set_value("");
                    }>
                    <option value="" selected>"Select top…"</option>
                    {TOP_N.map(|n| view! { <option value=n.to_string()>{format!("Top {n}")}</option> }).into_iter().collect::<Vec<_>>()}
                </select>
                <button class="button button-small" type="button" disabled=move || count() == 0
                    on:click=move |_| ws.select(&[])>"Clear"</button>
                {move || has_parents().then(|| view! {
                    <button class="button button-small" on:click=toggle_all>
                        {move || if expanded.with(HashSet::is_empty) { "Expand all" } else { "Collapse all" }}
                    </button>
                })}
            </div>
        </div>
    }
}

/// What the body renders for the scroll position.
#[derive(Debug, Clone, PartialEq)]
struct RowWindow {
    /// Rows above the window.
    above: usize,
    /// Rows below the window.
    below: usize,
    /// The loaded rows in the window.
    rows: Vec<TreeRow>,
    /// Rows in the window whose page has not come yet.
    loading: usize,
}

/// The window over the loaded rows (`tree`) followed by the `unloaded` ones.
fn row_window(tree: &[TreeRow], unloaded: usize, top: f64, viewport: f64) -> RowWindow {
    let count = tree.len() + unloaded;
    let r = visible_range(top, viewport, ROW_HEIGHT, count);
    let loaded_end = r.end.min(tree.len());
    let loaded_start = r.start.min(loaded_end);
    RowWindow {
        above: r.start,
        below: count - r.end,
        rows: tree[loaded_start..loaded_end].to_vec(),
        loading: r.end - r.start - (loaded_end - loaded_start),
    }
}

/// The rows to render for the scroll position; asks `pages` for the rows it reaches.
fn use_row_window(
    tree: Memo<Vec<TreeRow>>,
    pages: RunPages,
    scroll: VirtualScroll,
) -> Memo<RowWindow> {
    // One memo feeds the body: reading `tree` next to a memo derived from it would let a
    // change of `tree` that leaves the range unchanged go unseen.
    let window = Memo::new(move |_| {
        let (top, viewport) = (scroll.scroll_top.get(), scroll.viewport.get());
        let unloaded = pages.unloaded();
        tree.with(|t| row_window(t, unloaded, top, viewport))
    });
    Effect::new(move |_| {
        let w = window.get();
        // Rows the window reaches, counted in loaded rows (collapsed children included).
        let end = w.above + w.rows.len() + w.loading;
        let shown = tree.with(Vec::len);
        let have = pages.rows.with(Vec::len);
        pages.want((have + end).saturating_sub(shown));
    });
    scroll.follow_size();
    window
}

/// The runs of an experiment as a grouped, virtualised table.
#[component]
pub fn RunsTable(
    /// The first page of rows and their columns, from the server.
    table: json::RunTable,
    /// The experiment, to load further pages of.
    experiment_id: String,
    /// The query `table` answers (further pages follow it).
    query: json::RunTableQuery,
    /// The current order_by clause.
    #[prop(into)]
    sort: Signal<String>,
    /// Called with the new order_by clause when a header is clicked.
    on_sort: Callback<String>,
    /// Called with a new column choice (a column hidden from its menu).
    on_columns: Callback<json::RunTableColumns>,
    /// The URL's workspace state (selection, colours).
    ws: Workspace,
    /// Live changes of the rows; rows of later pages join it.
    live: LiveRows,
    /// Ids of deleted runs among the rows.
    #[prop(into)]
    deleted: Signal<HashSet<String>>,
) -> impl IntoView {
    let columns = table.columns.clone();
    let pages = RunPages::new(experiment_id, query, table);
    let rows = pages.rows;
    let expanded = RwSignal::new(HashSet::<String>::new());
    let tree = Memo::new(move |_| expanded.with(|e| rows.with(|r| flatten(r, e))));
    let scroll = VirtualScroll::new(600.0);
    let window = use_row_window(tree, pages, scroll);
    // Rows of each further page join the live feed (the first page already has).
    Effect::new(move |seen: Option<usize>| {
        rows.with(|r| {
            let seen = seen.unwrap_or(r.len()).min(r.len());
            live.add(&r[seen..]);
            r.len()
        })
    });
    let toggle = Callback::new(move |id: String| {
        expanded.update(|e| {
            if !e.remove(&id) {
                e.insert(id);
            }
        })
    });
    let h = LayoutHandle::new(ws.qs, columns, on_columns);
    let ctx = RowCtx {
        ws,
        patches: live.patches,
        deleted,
        now: live.now,
        toggle,
        layout: h,
    };
    let summary = Signal::derive(move || summary(pages.total.get()));
    let parents = Memo::new(move |_| rows.with(|r| parents(r)));
    let shown_ids = Memo::new(move |_| {
        rows.with(|rows| {
            tree.with(|t| {
                t.iter()
                    .map(|r| rows[r.index].run_id.clone())
                    .collect::<Vec<_>>()
            })
        })
    });
    let all = Signal::derive(move || {
        let sel = ws.selected();
        shown_ids.with(|ids| {
            let n = ids.iter().filter(|id| sel.contains(id)).count();
            match n {
                0 => AllState::None,
                n if n == ids.len() => AllState::All,
                _ => AllState::Some,
            }
        })
    });
    let on_select_all = Callback::new(move |on: bool| {
        let next = shown_ids.with_untracked(|ids| with_shown(&untrack(|| ws.selected()), ids, on));
        ws.select(&next);
    });
    // The first page holds more rows than "Select top" offers.
    let on_top = Callback::new(move |n: usize| {
        let (ids, parents) = rows.with_untracked(|rows| {
            let ids = top_ids(rows, n);
            // Children among them: open their parents so every selected run is in view.
            let parents: Vec<String> = rows
                .iter()
                .filter(|r| ids.contains(&r.run_id))
                .filter_map(|r| r.parent_run_id.clone())
                .collect();
            (ids, parents)
        });
        expanded.update(|e| e.extend(parents));
        ws.select(&ids);
    });
    let n_cols = move || 2 + ATTR_COLUMNS + h.shape.with(|d| d.pinned.len() + d.rest.len()) + 1;
    // The window's rows are keyed by what they show, so a scroll builds only the rows it
    // brings in and drops the ones it leaves. A key's row never changes under it (pages
    // only append rows; a new query makes a new table); a change of columns builds every
    // row again.
    let body = move || {
        let d = h.shape.get();
        let spacer = move |rows_of: fn(&RowWindow) -> usize| {
            let height = move || format!("height: {}px", window.with(rows_of) as f64 * ROW_HEIGHT);
            view! { <tr class="spacer" style=height aria-hidden="true"><td colspan=n_cols></td></tr> }
        };
        let loading = move || {
            (0..window.with(|w| w.loading))
                .map(|_| loading_row(n_cols()))
                .collect_view()
        };
        let row = move |t: TreeRow| rows.with_untracked(|rows| run_row(&rows[t.index], t, &d, ctx));
        view! {
            {spacer(|w| w.above)}
            <For each=move || window.with(|w| w.rows.clone()) key=|t| *t children=row />
            {loading}
            {spacer(|w| w.below)}
        }
    };
    let table_style = move || {
        let (run_w, rest) = h.layout.with(|l| {
            let fixed: u32 = ["status", "start", "dur", "user"]
                .iter()
                .map(|id| l.width(id))
                .sum();
            (l.width("run"), fixed)
        });
        let values = h.display.with(Display::width);
        format!(
            "--sel-w: {SELECT_WIDTH}px; --run-w-full: {run_w}px; min-width: calc(var(--run-w) + {}px)",
            SELECT_WIDTH + rest + values
        )
    };
    let colgroup = move || {
        let l = h.layout.get();
        let d = h.display.get();
        let col = |w: u32| view! { <col style=format!("width: {w}px") /> };
        view! {
            <colgroup>
                <col style="width: var(--sel-w)" />
                <col style="width: var(--run-w)" />
                {d.pinned.iter().map(|s| col(s.width)).collect_view()}
                {["status", "start", "dur", "user"].map(|id| col(l.width(id))).to_vec()}
                {d.rest.iter().map(|s| col(s.width)).collect_view()}
                <col />
            </colgroup>
        }
    };
    view! {
        <TableToolbar summary=summary parents=parents expanded=expanded ws=ws on_top=on_top />
        <div class="table-scroll runs-scroll" node_ref=scroll.node on:scroll=move |_| scroll.measure()>
            <table class="table runs-table" style=table_style>
                {colgroup}
                <thead><HeaderRows h=h sort=sort on_sort=on_sort all=all on_select_all=on_select_all /></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
        <ColumnMenu h=h />
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_every_matching_run() {
        assert_eq!(summary(1), "1 run");
        assert_eq!(summary(12), "12 runs");
        assert_eq!(summary(12_345), "12,345 runs");
    }

    #[test]
    fn the_window_runs_on_into_rows_not_loaded_yet() {
        let tree: Vec<TreeRow> = (0..50)
            .map(|index| TreeRow {
                index,
                depth: 0,
                children: 0,
                expanded: false,
            })
            .collect();
        let top = |row: f64| row * ROW_HEIGHT;
        let w = row_window(&tree, 1000, top(0.0), 10.0 * ROW_HEIGHT);
        assert_eq!((w.above, w.rows.len(), w.loading), (0, 18, 0));
        assert_eq!(w.below, 1050 - 18);
        let w = row_window(&tree, 1000, top(45.0), 10.0 * ROW_HEIGHT);
        assert_eq!((w.above, w.rows.len(), w.loading), (37, 13, 13));
        let w = row_window(&tree, 1000, top(500.0), 10.0 * ROW_HEIGHT);
        assert_eq!((w.rows.len(), w.loading, w.below), (0, 26, 1050 - 518));
    }

    #[test]
    fn top_n_follows_the_table_order() {
        let row = |id: &str| json::RunRow {
            run_id: id.into(),
            run_name: id.into(),
            status: "FINISHED".into(),
            start_time: 0,
            end_time: None,
            user_id: "u".into(),
            parent_run_id: None,
            params: vec![],
            metrics: vec![],
            tags: vec![],
        };
        let rows = vec![row("c"), row("a"), row("b")];
        assert_eq!(top_ids(&rows, 2), vec!["c", "a"]);
        assert_eq!(top_ids(&rows, 20).len(), 3);
    }

    #[test]
    fn select_all_adds_and_removes_the_shown_rows_only() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            with_shown(&s(&["x", "b"]), &s(&["a", "b", "c"]), true),
            s(&["x", "b", "a", "c"])
        );
        assert_eq!(
            with_shown(&s(&["x", "b"]), &s(&["a", "b", "c"]), false),
            s(&["x"])
        );
    }
}
