//! The bar above the lines: how many are loaded, whether the tab is following, Copy (the
//! loaded lines as text) and Download (every line matching the filters, from the server).

use leptos::prelude::*;

use super::line::copy_text;
use super::list::ListScroll;
use super::paging::LogState;
use crate::components::copy_button::CopyButton;
use crate::format;

/// "1,204 lines", "500 lines loaded" when more can be loaded.
fn count_text(n: usize, more: bool) -> String {
    let s = if n == 1 { "line" } else { "lines" };
    let loaded = if more { " loaded" } else { "" };
    format!("{} {s}{loaded}", format::count(n as u64))
}

/// The action bar.
#[component]
pub fn ActionBar(
    /// The lines.
    state: LogState,
    /// Scroll state (following shows only at the bottom).
    scroll: ListScroll,
    /// A live stream is open.
    #[prop(into)]
    following: Signal<bool>,
    /// The download link.
    download: String,
) -> impl IntoView {
    let count = move || {
        state
            .loaded
            .with(|l| count_text(l.len(), l.older().is_some() || l.newer().is_some()))
    };
    let text = Signal::derive(move || {
        state
            .loaded
            .with(|l| l.lines().map(copy_text).collect::<Vec<_>>().join("\n"))
    });
    let live = move || {
        match (following.get(), scroll.stick.get()) {
        (false, _) => None,
        (true, true) => Some(view! {
            <span class="following" role="status"><span class="live-dot" aria-hidden="true"></span>"Following"</span>
        }.into_any()),
        (true, false) => Some(view! {
            <span class="following paused" role="status">"Paused: scroll to the bottom to follow"</span>
        }.into_any()),
    }
    };
    view! {
        <div class="log-actions">
            <span class="log-count" data-testid="log-count">{count}</span>
            {live}
            <span class="log-actions-spacer"></span>
            <CopyButton text=text label="Copy" done_label="Lines copied" />
            <a class="button" href=download download="" rel="nofollow">"Download"</a>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::count_text;

    #[test]
    fn counts_say_when_more_can_load() {
        assert_eq!(count_text(1, false), "1 line");
        assert_eq!(count_text(12_500, true), "12,500 lines loaded");
    }
}
