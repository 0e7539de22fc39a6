//! New points of live runs for the charts showing them: one listener on the page's
//! [`LiveFeed`] splits each update by (run, key) and hands each chart its own points.
//!
//! A chart appends them to what it drew (see [`ChartData::append`](crate::charts::ChartData::append))
//! instead of refetching: the points are already in the stream, so an update costs the
//! server nothing more and the browser one redraw. The chart refetches (once, reduced
//! again) only when [`LiveSeries::refetch`] changes (the feed resynced, the run finished)
//! or when it has appended so many points that drawing them raw would cost more than a
//! fetch (see `series.rs`).

use std::rc::Rc;

use api_types as json;
use json::workspace::LiveUpdate;
use leptos::prelude::*;

use crate::hooks::LiveFeed;

/// A subscriber: called with the new points of its series, in the order written.
type Sink = Rc<dyn Fn(&[json::SeriesPoint])>;

/// One subscription: its id, run, key and sink.
struct Subscription {
    id: u64,
    run_id: String,
    key: String,
    sink: Sink,
}

/// `Copy` handle splitting a page's live updates by series (see the module doc).
#[derive(Clone, Copy)]
pub struct LiveSeries {
    subs: StoredValue<Vec<Subscription>, LocalStorage>,
    next_id: StoredValue<u64>,
    /// Changes when every chart must refetch its series.
    pub refetch: Signal<u64>,
}

impl LiveSeries {
    /// Splits the updates of `feed`; charts refetch when `refetch` changes.
    pub fn new(feed: LiveFeed, refetch: Signal<u64>) -> Self {
        let this = LiveSeries {
            subs: StoredValue::new_local(Vec::new()),
            next_id: StoredValue::new(0),
            refetch,
        };
        feed.on_update(move |u| this.publish(u));
        this
    }

    /// Hands each series of `u` to its subscribers.
    fn publish(&self, u: &LiveUpdate) {
        for lp in &u.series {
            let sinks: Vec<Sink> = self
                .subs
                .try_with_value(|subs| {
                    subs.iter()
                        .filter(|s| s.run_id == lp.run_id && s.key == lp.key)
                        .map(|s| s.sink.clone())
                        .collect()
                })
                .unwrap_or_default();
            for sink in sinks {
                sink(&lp.points);
            }
        }
    }

    /// Calls `f` with each batch of new points of `run_id`'s `key` until the calling
    /// component is cleaned up.
    pub fn subscribe(
        &self,
        run_id: String,
        key: String,
        f: impl Fn(&[json::SeriesPoint]) + 'static,
    ) {
        let id = self.next_id.get_value();
        self.next_id.set_value(id + 1);
        self.subs.update_value(|subs| {
            subs.push(Subscription {
                id,
                run_id,
                key,
                sink: Rc::new(f),
            })
        });
        let subs = self.subs;
        on_cleanup(move || {
            subs.try_update_value(|subs| subs.retain(|s| s.id != id));
        });
    }
}
