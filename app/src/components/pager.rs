//! Prev/Next paging with a "1–50 of 123" summary.

use leptos::prelude::*;

/// The `first–last of total` summary of a page (1-based, en dash).
pub fn summary(offset: u64, shown: u64, total: u64) -> String {
    if total == 0 || shown == 0 {
        return format!("0 of {total}");
    }
    format!("{}–{} of {total}", offset + 1, offset + shown)
}

/// Paging controls.
#[component]
pub fn Pager(
    /// Offset of the first row shown.
    #[prop(into)]
    offset: Signal<u64>,
    /// Rows on this page.
    #[prop(into)]
    shown: Signal<u64>,
    /// Page size.
    limit: u64,
    /// Rows in total.
    #[prop(into)]
    total: Signal<u64>,
    /// Called with the new offset.
    on_page: Callback<u64>,
) -> impl IntoView {
    let has_prev = move || offset.get() > 0;
    let has_next = move || offset.get() + shown.get() < total.get();
    view! {
        <div class="pager">
            <span class="pager-summary">{move || summary(offset.get(), shown.get(), total.get())}</span>
            <button class="button button-small" disabled=move || !has_prev()
                on:click=move |_| on_page.run(offset.get_untracked().saturating_sub(limit))>
                "Prev"
            </button>
            <button class="button button-small" disabled=move || !has_next()
                on:click=move |_| on_page.run(offset.get_untracked() + limit)>
                "Next"
            </button>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn summaries() {
        assert_eq!(summary(0, 50, 123), "1–50 of 123");
        assert_eq!(summary(100, 23, 123), "101–123 of 123");
        assert_eq!(summary(0, 0, 0), "0 of 0");
    }
}
