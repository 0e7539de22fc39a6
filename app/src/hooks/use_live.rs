//! An experiment's live feed (issue 9): ONE stream per page, shared by the table, the
//! charts and the run page through [`LiveFeed`] (a `Copy` handle, provided as context).
//!
//! The stream is open only while some run the page shows is RUNNING ([`LiveFeed::running`],
//! kept by the page from its rows and updated by the feed itself from status changes), so
//! finished runs cost nothing. A stream that closes for good is reopened after
//! [`RETRY_MS`] and the page is asked to resync (it may have missed writes).

use std::collections::HashSet;
use std::rc::Rc;
use std::time::Duration;

use api_types::workspace::{LiveQuery, LiveUpdate};
use leptos::prelude::*;

use crate::api::{self, LiveEvent, LiveStream};

/// Pause before reopening a closed stream (ms).
const RETRY_MS: u64 = 3_000;

/// Statuses of a run that is still being written.
pub fn is_live_status(status: &str) -> bool {
    matches!(status, "RUNNING" | "SCHEDULED")
}

type Listener = (u64, Rc<dyn Fn(&LiveUpdate)>);

/// Handle of a page's live feed.
#[derive(Clone, Copy)]
pub struct LiveFeed {
    /// Runs of the page that are RUNNING or SCHEDULED; the stream is open while non-empty.
    pub running: RwSignal<HashSet<String>>,
    /// Runs whose every new point the page wants (the chart view's selection, the run page's run).
    pub streamed: RwSignal<Vec<String>>,
    /// Server time (ms) of the last update received, for "live · updated hh:mm:ss".
    pub last_update: RwSignal<Option<i64>>,
    /// Bumped when the page must refetch what it shows (events dropped, stream reopened).
    pub resync: RwSignal<u64>,
    /// Whether a stream is open now.
    pub open: RwSignal<bool>,
    /// The next listener id and the listeners.
    listeners: StoredValue<(u64, Vec<Listener>), LocalStorage>,
}

impl LiveFeed {
    /// Calls `f` with every update, in order, until the calling component is disposed.
    pub fn on_update(&self, f: impl Fn(&LiveUpdate) + 'static) {
        let mut id = 0;
        self.listeners.update_value(|(next, l)| {
            id = *next;
            *next += 1;
            l.push((id, Rc::new(f)));
        });
        let listeners = self.listeners;
        on_cleanup(move || {
            listeners.try_update_value(|(_, l)| l.retain(|(i, _)| *i != id));
        });
    }

    /// Whether the page is live now (a stream is open).
    pub fn is_live(&self) -> bool {
        self.open.get()
    }

    fn dispatch(&self, u: &LiveUpdate) {
        self.running.update(|set| {
            for r in &u.runs {
                if is_live_status(&r.status) && r.lifecycle_stage == "active" {
                    set.insert(r.run_id.clone());
                } else {
                    set.remove(&r.run_id);
                }
            }
        });
        self.last_update.set(Some(u.at));
        // A copy, so a listener may subscribe or unsubscribe while being called.
        let listeners: Vec<_> = self
            .listeners
            .with_value(|(_, l)| l.iter().map(|(_, f)| f.clone()).collect());
        listeners.iter().for_each(|f| f(u));
    }
}

/// Opens the live feed of `experiment_id` for this page and provides it as context
/// (see [`use_live_feed`]).
pub fn provide_live_feed(experiment_id: String) -> LiveFeed {
    let feed = LiveFeed {
        running: RwSignal::new(HashSet::new()),
        streamed: RwSignal::new(Vec::new()),
        last_update: RwSignal::new(None),
        resync: RwSignal::new(0),
        open: RwSignal::new(false),
        listeners: StoredValue::new_local((0, Vec::new())),
    };
    let stream = StoredValue::new_local(None::<LiveStream>);
    let retry = RwSignal::new(0u32);
    let active = Memo::new(move |_| !feed.running.with(HashSet::is_empty));
    let runs = Memo::new(move |_| feed.streamed.get());
    Effect::new(move |prev: Option<bool>| {
        retry.track();
        stream.set_value(None);
        feed.open.set(false);
        if !active.get() {
            return false;
        }
        let url = api::live_url(&experiment_id, &LiveQuery { runs: runs.get() });
        let handle = move |ev: LiveEvent| match ev {
            LiveEvent::Update(u) => feed.dispatch(&u),
            LiveEvent::Resync => {
                feed.resync.try_update(|n| *n += 1);
            }
            LiveEvent::Closed => {
                feed.open.try_set(false);
                set_timeout(
                    move || {
                        retry.try_update(|r| *r += 1);
                    },
                    Duration::from_millis(RETRY_MS),
                );
            }
        };
        if let Ok(s) = LiveStream::open(&url, handle) {
            stream.set_value(Some(s));
            feed.open.set(true);
            // Reopened after a close: writes in between were missed.
            if prev == Some(true) {
                feed.resync.update(|n| *n += 1);
            }
        }
        true
    });
    on_cleanup(move || {
        stream.try_update_value(|s| *s = None);
    });
    provide_context(feed);
    feed
}

/// The page's live feed, if it opened one.
pub fn use_live_feed() -> Option<LiveFeed> {
    use_context::<LiveFeed>()
}
