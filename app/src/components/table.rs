//! Table pieces: a sortable column header.

use leptos::prelude::*;

/// Sort state of one column: `None` unsorted, `Some(true)` descending.
pub type SortState = Option<bool>;

/// A `<th>` that sorts its column when clicked.
#[component]
pub fn SortHeader(
    /// Column title.
    #[prop(into)]
    label: String,
    /// This column's sort state.
    #[prop(into)]
    state: Signal<SortState>,
    /// Clicked.
    on_sort: Callback<()>,
    /// Extra classes (e.g. `num` for right-aligned numbers).
    #[prop(optional, into)]
    class: String,
    /// Tooltip (e.g. the full key of a long column name).
    #[prop(optional, into)]
    title: Option<String>,
) -> impl IntoView {
    let aria = move || match state.get() {
        None => "none",
        Some(true) => "descending",
        Some(false) => "ascending",
    };
    let arrow = move || match state.get() {
        None => "↕",
        Some(true) => "↓",
        Some(false) => "↑",
    };
    view! {
        <th class=format!("sortable {class}") aria-sort=aria title=title>
            <button class="th-button" class:active=move || state.get().is_some() on:click=move |_| on_sort.run(())>
                <span class="th-label">{label}</span>
                <span class="sort-arrow" aria-hidden="true">{arrow}</span>
            </button>
        </th>
    }
}
