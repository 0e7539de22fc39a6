//! The lines of one set of filters: first page, notes, action bar, the list, live follow
//! and "Jump to latest". Rebuilt whenever the filters change.

use api_types as json;
use leptos::prelude::*;

use super::actions::ActionBar;
use super::filters::LogFilters;
use super::follow::{use_follow, UseFollowOptions};
use super::list::{LineList, ListScroll};
use super::paging::{LogState, Phase};
use super::states::{NoLines, Notes};
use super::store::MAX_LOADED;
use crate::api;
use crate::components::states::{ErrorView, Loading};

/// What [`LogBody`] is about.
#[derive(Clone)]
pub struct BodyProps {
    /// The run.
    pub run_id: String,
    /// Its job run.
    pub job_run_id: i64,
    /// The filters.
    pub filters: LogFilters,
    /// The job run's nodes (kept up to date from the pages).
    pub nodes: RwSignal<Vec<String>>,
    /// Clears the filters.
    pub on_clear: Callback<()>,
    /// Reloads from the newest lines (after a jump to a time, or far from the end).
    pub on_latest: Callback<()>,
}

/// Starts following when the job run is active and the newest line is loaded.
fn follow(state: LogState, scroll: ListScroll, run_id: String) -> Signal<bool> {
    // A memo: the stream reopens only when this really changes (not on every line).
    let active = Memo::new(move |_| {
        state.phase.with(|p| *p == Phase::Ready)
            && state.status.get().is_active()
            && state.loaded.with(|l| l.newer().is_none())
    });
    use_follow(UseFollowOptions {
        run_id,
        query: state.query(),
        active: active.into(),
        cursor: state.cursor,
        on_lines: Callback::new(move |lines| {
            let stick = scroll.stick.try_get_untracked() == Some(true);
            let over = state.loaded.try_update(|l| {
                l.push_live(lines);
                if stick {
                    l.trim_front();
                }
                l.len() > MAX_LOADED + MAX_LOADED / 2
            });
            // Following a long output at the bottom: start over from the newest lines.
            if stick && over == Some(true) {
                state.reload_newest();
            }
        }),
        on_status: Callback::new(move |s: json::JobRunStatus| {
            if state.status.try_get_untracked() != Some(s) {
                state.status.try_set(s);
            }
        }),
    })
}

/// The lines of one set of filters.
#[component]
pub fn LogBody(
    /// What to show.
    props: BodyProps,
) -> impl IntoView {
    let BodyProps {
        run_id,
        job_run_id,
        filters,
        nodes,
        on_clear,
        on_latest,
    } = props;
    let state = LogState::new(run_id.clone(), filters.query(), nodes);
    let scroll = ListScroll::new(filters.at.is_none());
    let at = filters.at;
    state.load_first(at, move || {
        // From a jump-to time, the page before it loads too, so the time is at the top.
        if at.is_some() {
            state.load_older(move |h| scroll.shift_later(h));
        }
    });
    let following = follow(state, scroll, run_id.clone());
    let download = api::logs_download_url(&run_id, &state.query());
    let filtered = filters.is_filtered();
    let jump = move |_| {
        if state.loaded.with_untracked(|l| l.newer().is_some()) || at.is_some() {
            on_latest.run(());
        } else {
            scroll.stick.set(true);
            scroll.scroll_to_bottom();
        }
    };
    let empty =
        move || state.phase.with(|p| *p == Phase::Ready) && state.loaded.with(|l| l.len() == 0);
    let phase = move || match state.phase.get() {
        Phase::Loading => Some(view! { <Loading label="Loading logs…" /> }.into_any()),
        Phase::Failed(e) => {
            Some(view! { <ErrorView title="Could not load the logs" error=e /> }.into_any())
        }
        Phase::Ready => empty().then(|| {
            view! { <NoLines job_run_id=job_run_id filtered=filtered on_clear=on_clear /> }
                .into_any()
        }),
    };
    view! {
        <Notes expired=state.expired gaps=state.gaps />
        {move || state.page_error.get().map(|m| view! { <p class="log-note inline-error" role="alert">{m}</p> })}
        <ActionBar state=state scroll=scroll following=following download=download />
        <div class="log-body card" class:hidden-lines=move || state.phase.with(|p| *p != Phase::Ready) || empty()>
            <LineList state=state scroll=scroll />
            <Show when=move || !scroll.stick.get() && state.loaded.with(|l| l.len() > 0)>
                <button class="button button-primary jump-latest" type="button" on:click=jump>"Jump to latest"</button>
            </Show>
        </div>
        {phase}
    }
}
