//! An experiment's live feed: ONE stream per page, shared by the table, the charts and the
//! run page through [`LiveFeed`] (a `Copy` handle, provided as context).
//!
//! The stream is open while the page is shown, whatever its runs' statuses, so runs
//! created, finished, renamed or deleted elsewhere reach the page. It is closed while the
//! user pauses it ([`LiveFeed::paused`]) or the tab is hidden, and the page resyncs when it
//! reopens (it may have missed writes). The browser reconnects a dropped stream by itself
//! ([`LiveState::Reconnecting`]); one that closes for good is reopened after [`RETRY_MS`].

use std::rc::Rc;
use std::time::Duration;

use api_types::workspace::{LiveQuery, LiveUpdate};
use leptos::prelude::*;
use leptos_use_document_visibility::use_document_visibility;
use web_sys::VisibilityState;

use crate::api::{self, LiveEvent, LiveStream};

/// Pause before reopening a closed stream (ms).
const RETRY_MS: u64 = 3_000;

/// Statuses of a run that is still being written.
pub fn is_live_status(status: &str) -> bool {
    matches!(status, "RUNNING" | "SCHEDULED")
}

type Listener = (u64, Rc<dyn Fn(&LiveUpdate)>);

/// Where a page's live stream stands, as its badge shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveState {
    /// Opening the stream.
    Connecting,
    /// Open: writes show as they happen.
    Live,
    /// The connection dropped; reconnecting.
    Reconnecting,
    /// Closed on purpose (the user paused it, or the tab is hidden).
    Paused,
}

impl LiveState {
    /// The badge's text.
    pub fn label(self) -> &'static str {
        match self {
            Self::Connecting => "Connecting…",
            Self::Live => "Live",
            Self::Reconnecting => "Reconnecting…",
            Self::Paused => "Paused",
        }
    }
}

/// Handle of a page's live feed.
#[derive(Clone, Copy)]
pub struct LiveFeed {
    /// Runs whose every new point the page wants (the chart view's selection, the run page's run).
    pub streamed: RwSignal<Vec<String>>,
    /// Server time (ms) of the last update received, for "live · updated hh:mm:ss".
    pub last_update: RwSignal<Option<i64>>,
    /// Bumped when the page must refetch what it shows (events dropped, stream reopened).
    pub resync: RwSignal<u64>,
    /// Where the stream stands.
    pub state: RwSignal<LiveState>,
    /// Paused by the user: no stream until resumed.
    pub paused: RwSignal<bool>,
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
        self.state.get() == LiveState::Live
    }

    /// Asks every view of the page to refetch what it shows.
    pub fn refresh(&self) {
        self.resync.update(|n| *n += 1);
    }

    fn dispatch(&self, u: &LiveUpdate) {
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
        streamed: RwSignal::new(Vec::new()),
        last_update: RwSignal::new(None),
        resync: RwSignal::new(0),
        state: RwSignal::new(LiveState::Connecting),
        paused: RwSignal::new(false),
        listeners: StoredValue::new_local((0, Vec::new())),
    };
    let stream = StoredValue::new_local(None::<LiveStream>);
    let retry = RwSignal::new(0u32);
    let visibility = use_document_visibility();
    let wanted =
        Memo::new(move |_| !feed.paused.get() && visibility.get() != VisibilityState::Hidden);
    let runs = Memo::new(move |_| feed.streamed.get());
    // The connection dropped since the stream last opened: writes in between were missed.
    let dropped = StoredValue::new(false);
    // Whether a stream was open (or asked for) before: reopening it resyncs the page.
    Effect::new(move |had: Option<bool>| {
        retry.track();
        stream.set_value(None);
        if !wanted.get() {
            feed.state.set(LiveState::Paused);
            return had.unwrap_or(false);
        }
        feed.state.set(LiveState::Connecting);
        let url = api::live_url(&experiment_id, &LiveQuery { runs: runs.get() });
        let handle = move |ev: LiveEvent| match ev {
            LiveEvent::Update(u) => feed.dispatch(&u),
            LiveEvent::Resync => {
                feed.resync.try_update(|n| *n += 1);
            }
            LiveEvent::Opened => {
                feed.state.try_set(LiveState::Live);
                if dropped.try_get_value() == Some(true) {
                    dropped.try_set_value(false);
                    feed.resync.try_update(|n| *n += 1);
                }
            }
            LiveEvent::Reconnecting => {
                feed.state.try_set(LiveState::Reconnecting);
                dropped.try_set_value(true);
            }
            LiveEvent::Closed => {
                feed.state.try_set(LiveState::Reconnecting);
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
            // Reopened after a close or a pause: writes in between were missed.
            if had == Some(true) {
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
