//! A page's live state where a user looks for it: "Live · updated hh:mm:ss",
//! "Connecting…", "Reconnecting…" or "Paused", with a pause/resume toggle and a refresh
//! that refetches what the page shows.

use leptos::prelude::*;

use crate::format;
use crate::hooks::{LiveFeed, LiveState};

/// The badge's text for `state`, with the time of the last update while live.
fn badge_text(state: LiveState, last_update: Option<i64>) -> String {
    match (state, last_update) {
        (LiveState::Live, Some(at)) => format!("Live · updated {}", format::time_of_day(at)),
        (s, _) => s.label().to_owned(),
    }
}

/// The live state of `feed` with its controls.
#[component]
pub fn LiveBadge(
    /// The page's live feed.
    feed: LiveFeed,
    /// `data-testid` of the badge.
    #[prop(optional)]
    testid: &'static str,
) -> impl IntoView {
    let state = move || feed.state.get();
    let text = move || badge_text(state(), feed.last_update.get());
    let class = move || match state() {
        LiveState::Live => "live-badge",
        LiveState::Paused => "live-badge paused",
        LiveState::Connecting | LiveState::Reconnecting => "live-badge waiting",
    };
    let paused = move || feed.paused.get();
    view! {
        <span class="live-controls">
            <span class=class role="status" data-testid=testid data-state=move || format!("{:?}", state()).to_lowercase()
                title="New runs, status changes and new points appear without a reload">
                <span class="live-badge-dot" aria-hidden="true"></span>{text}
            </span>
            <button type="button" class="button button-small live-toggle"
                aria-pressed=move || paused().to_string()
                on:click=move |_| feed.paused.update(|p| *p = !*p)>
                {move || if paused() { "Resume" } else { "Pause" }}
            </button>
            <button type="button" class="button button-small live-refresh" title="Fetch everything this page shows again"
                on:click=move |_| feed.refresh()>
                "Refresh"
            </button>
        </span>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_badge_says_where_the_stream_stands() {
        assert_eq!(badge_text(LiveState::Live, None), "Live");
        assert!(badge_text(LiveState::Live, Some(0)).starts_with("Live · updated "));
        assert_eq!(badge_text(LiveState::Paused, Some(0)), "Paused");
        assert_eq!(badge_text(LiveState::Reconnecting, None), "Reconnecting…");
    }
}
