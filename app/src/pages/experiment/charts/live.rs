//! The chart view on the page's live feed: the selected runs' new points are streamed
//! (`feed.streamed`; hidden runs too, since panels keep their series so that showing one
//! again needs no request); each update reaches the panels through one signal; a selected
//! run finishing, or a resync, refetches every panel.

use std::sync::Arc;

use api_types::workspace::LiveUpdate;
use leptos::prelude::*;

use crate::hooks::{is_live_status, use_live_feed};

/// What the live feed gives the view.
#[derive(Clone, Copy)]
pub struct ChartLive {
    /// The latest update (panels append its points of their key).
    pub update: RwSignal<Option<Arc<LiveUpdate>>>,
    /// Bumped when every panel must refetch.
    pub refresh: RwSignal<u64>,
    /// Bumped when a selected run changed (name, status): the run list is refetched.
    pub runs_changed: RwSignal<u64>,
}

/// Connects the view to the page's feed (nothing happens on a page without one).
pub fn use_chart_live(selected: Memo<Vec<String>>) -> ChartLive {
    let live = ChartLive {
        update: RwSignal::new(None),
        refresh: RwSignal::new(0),
        runs_changed: RwSignal::new(0),
    };
    let Some(feed) = use_live_feed() else {
        return live;
    };
    Effect::new(move |_| feed.streamed.set(selected.get()));
    on_cleanup(move || {
        feed.streamed.try_set(Vec::new());
    });
    Effect::new(move |prev: Option<u64>| {
        let n = feed.resync.get();
        if prev.is_some_and(|p| p != n) {
            live.refresh.update(|r| *r += 1);
        }
        n
    });
    feed.on_update(move |u| {
        let Some(selected) = selected.try_get_untracked() else {
            return;
        };
        let touched: Vec<_> = u
            .runs
            .iter()
            .filter(|r| selected.contains(&r.run_id))
            .collect();
        if !touched.is_empty() {
            live.runs_changed.try_update(|n| *n += 1);
        }
        if touched.iter().any(|r| !is_live_status(&r.status)) {
            live.refresh.try_update(|n| *n += 1);
        }
        if u.series.iter().any(|s| selected.contains(&s.run_id)) {
            live.update.try_set(Some(Arc::new(u.clone())));
        }
    });
    live
}
