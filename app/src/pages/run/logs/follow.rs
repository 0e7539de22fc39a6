//! Live follow: while `active`, the SSE stream of the lines stored after `cursor` (the
//! newest page's `follow_from`, then each event's id). The browser reconnects by itself
//! with `Last-Event-ID`; a stream that closes for good is reopened from the last id after
//! [`RETRY_MS`], so nothing is lost or repeated.

use std::time::Duration;

use api_types as json;
use json::logs::{LogLine, LogQuery};
use leptos::prelude::*;

use crate::api::{self, LogStream, StreamEvent};

/// Pause before reopening a closed stream (ms).
const RETRY_MS: u64 = 3_000;

/// What [`use_follow`] needs.
pub struct UseFollowOptions {
    /// The run.
    pub run_id: String,
    /// The filters (the stream sends only matching lines).
    pub query: LogQuery,
    /// Follow while true (job run active and the newest line loaded).
    pub active: Signal<bool>,
    /// Where to resume; updated with each event's id.
    pub cursor: RwSignal<Option<String>>,
    /// New lines.
    pub on_lines: Callback<Vec<LogLine>>,
    /// The job run's new status.
    pub on_status: Callback<json::JobRunStatus>,
}

/// Follows the log; returns whether a stream is open.
pub fn use_follow(opts: UseFollowOptions) -> Signal<bool> {
    let UseFollowOptions {
        run_id,
        query,
        active,
        cursor,
        on_lines,
        on_status,
    } = opts;
    let stream = StoredValue::new_local(None::<LogStream>);
    let open = RwSignal::new(false);
    let retry = RwSignal::new(0u32);
    Effect::new(move |_| {
        retry.track();
        stream.set_value(None);
        open.set(false);
        // Read first, so the effect tracks it even while there is no cursor yet.
        let on = active.get();
        let Some(from) = cursor.get_untracked().filter(|_| on) else {
            return;
        };
        let url = api::logs_stream_url(&run_id, &query, &from);
        let handle = move |ev: StreamEvent| match ev {
            StreamEvent::Lines { id, lines } => {
                if !id.is_empty() {
                    cursor.try_set(Some(id));
                }
                on_lines.run(lines);
            }
            StreamEvent::Status(s) => on_status.run(s),
            StreamEvent::Closed => {
                open.try_set(false);
                set_timeout(
                    move || {
                        retry.try_update(|r| *r += 1);
                    },
                    Duration::from_millis(RETRY_MS),
                );
            }
        };
        if let Ok(s) = LogStream::open(&url, handle) {
            stream.set_value(Some(s));
            open.set(true);
        }
    });
    on_cleanup(move || {
        stream.try_update_value(|s| *s = None);
    });
    open.into()
}
