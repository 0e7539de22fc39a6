//! The diff table: one column per run (name and colour), rows of params, latest metrics
//! and tags; rows whose values differ are marked, and within them the cells that differ
//! from the first run's. "Only differing rows" (`diff=1`) hides the rest.

use leptos::prelude::*;

use super::model::{Compared, DiffRow, Section};
use crate::hooks::QueryState;
use crate::routes::AppRoute;

fn row_view(r: DiffRow) -> impl IntoView {
    let cells = r
        .cells
        .into_iter()
        .zip(r.cell_differs)
        .map(|(v, d)| {
            let missing = v.is_none();
            let title = v.clone().unwrap_or_default();
            view! {
                <td class="mono" class:cell-differs=d class:missing=missing title=title>
                    {v.unwrap_or_else(|| "—".to_owned())}
                </td>
            }
        })
        .collect_view();
    let (title, data_key) = (r.key.clone(), r.key.clone());
    view! {
        <tr class:differs=r.differs data-key=data_key>
            <th scope="row" class="diff-key truncate" title=title>{r.key}</th>
            {cells}
        </tr>
    }
}

/// The diff table of the compared runs.
#[component]
pub fn DiffTable(
    /// The compared runs.
    data: Signal<Compared>,
    /// The URL state (`diff=1`).
    qs: QueryState,
) -> impl IntoView {
    let only_diff = Signal::derive(move || qs.get("diff").is_some_and(|v| v == "1"));
    let rows = Memo::new(move |_| data.with(Compared::diff_rows));
    let visible = Memo::new(move |_| {
        let only = only_diff.get();
        rows.with(|rows| {
            rows.iter()
                .filter(|r| !only || r.differs)
                .cloned()
                .collect::<Vec<_>>()
        })
    });
    let differing = move || rows.with(|r| r.iter().filter(|r| r.differs).count());
    let head = move || {
        data.with(|d| {
            d.runs
                .iter()
                .map(|r| {
                    let style = format!("background:{}", r.color);
                    view! {
                        <th scope="col" class="diff-run" title=r.name.clone()>
                            <span class="swatch" style=style aria-hidden="true"></span>
                            <a href=AppRoute::run(r.id.clone())>{r.name.clone()}</a>
                        </th>
                    }
                })
                .collect_view()
        })
    };
    let body = move || {
        let rows = visible.get();
        let width = data.with(|d| d.runs.len()) + 1;
        [Section::Params, Section::Metrics, Section::Tags]
            .into_iter()
            .filter_map(|s| {
                let mine: Vec<DiffRow> = rows.iter().filter(|r| r.section == s).cloned().collect();
                (!mine.is_empty()).then(|| {
                    view! {
                        <tr class="diff-section"><th colspan=width scope="colgroup">{s.label()}</th></tr>
                        {mine.into_iter().map(row_view).collect_view()}
                    }
                })
            })
            .collect_view()
    };
    view! {
        <section class="card diff-card">
            <div class="table-toolbar">
                <h2 class="card-title-inline">"Differences"</h2>
                <span class="muted small">{move || format!("{} of {} rows differ", differing(), rows.with(Vec::len))}</span>
                <label class="check">
                    <input type="checkbox" prop:checked=move || only_diff.get()
                        on:change=move |ev| qs.set("diff", event_target_checked(&ev).then(|| "1".to_owned())) />
                    "Only differing rows"
                </label>
            </div>
            <div class="table-scroll">
                <table class="table diff-table" data-testid="diff-table" data-rows=move || visible.with(Vec::len)>
                    <thead><tr><th scope="col" class="diff-key">"Key"</th>{head}</tr></thead>
                    <tbody>{body}</tbody>
                </table>
                {move || visible.with(Vec::is_empty).then(|| view! {
                    <p class="muted diff-empty">{if only_diff.get() { "Every compared value is equal." } else { "These runs have no params, metrics or tags." }}</p>
                })}
            </div>
        </section>
    }
}
