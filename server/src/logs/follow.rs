//! Live follow: one follower of one run's lines by arrival. It holds an arrival cursor
//! (the last chunk id considered, [`query::follow`]), sleeps on the store's notifier
//! ([`LogStore::subscribe`]), which wakes it after each commit, and polls every [`POLL`]
//! for writers in other processes. Memory per follower is bounded: each read takes at
//! most [`LINES_PER_EVENT`] lines (plus the rest of the last chunk), and the caller reads
//! again only once it has handed the previous batch on. The HTTP side (SSE framing, the
//! caller's re-check, the job run's status) is `app_api::logs_stream`.

use std::time::Duration;

use api_types::logs as json;
use memchr::memmem::Finder;
use tokio::time::Instant;

use super::query::{self, Filter};
use super::{chunk, store, wire, LogStore, Wakeups};
use crate::Error;

/// Most lines read per wake-up (one event; the last chunk read is sent whole).
pub(crate) const LINES_PER_EVENT: usize = 1000;

/// How often a follower looks for new lines without a wake-up.
pub(crate) const POLL: Duration = Duration::from_secs(1);

/// Shortest time between two reads of one follower (a busy job commits often; the
/// commits in between are read together).
const MIN_GAP: Duration = Duration::from_millis(100);

/// One follower of a run's lines: where it is and what it wants.
pub(crate) struct Follower {
    logs: LogStore,
    live: Wakeups,
    /// The log store's key (the attempt id).
    key: i64,
    filter: Filter,
    /// The search text, lowercased, for the lines' match ranges.
    needle: Option<Finder<'static>>,
    /// The arrival cursor: every line stored up to it was considered.
    cursor: i64,
    last_read: Option<Instant>,
    /// Whether lines may be waiting beyond the cursor (read before sleeping).
    behind: bool,
}

impl Follower {
    /// A follower of the lines stored under `key` matching `filter`, from the arrival
    /// cursor `from` (a resumed follow) or else from now.
    pub(crate) async fn start(
        logs: LogStore,
        key: i64,
        filter: Filter,
        from: Option<i64>,
    ) -> Result<Self, Error> {
        // Subscribe before reading "now", so that no commit falls between the two.
        let live = logs.subscribe();
        let cursor = match from {
            Some(c) => c,
            None => logs.call_read(|c| store::max_chunk_id(c)).await?,
        };
        let needle = filter
            .search
            .as_deref()
            .map(|q| Finder::new(&q.to_ascii_lowercase()).into_owned());
        Ok(Follower {
            logs,
            live,
            key,
            filter,
            needle,
            cursor,
            last_read: None,
            behind: true,
        })
    }

    /// The arrival cursor: every line stored up to it was considered.
    pub(crate) fn cursor(&self) -> i64 {
        self.cursor
    }

    /// Whether the store is shutting down (the follow ends).
    pub(crate) fn closing(&self) -> bool {
        self.live.closing()
    }

    /// Waits until lines may have arrived: at once when the last read left some behind,
    /// else until a commit, the poll period or shutdown; and never sooner than
    /// [`MIN_GAP`] after the last read. `false` when the store is shutting down.
    pub(crate) async fn wait(&mut self) -> bool {
        if !self.behind {
            tokio::select! {
                changed = self.live.changed() => {
                    if changed.is_err() {
                        // The store is gone; poll.
                        tokio::time::sleep(POLL).await;
                    }
                }
                () = tokio::time::sleep(POLL) => {}
            }
            self.behind = true;
        }
        if self.closing() {
            return false;
        }
        if let Some(t) = self.last_read {
            tokio::time::sleep_until(t + MIN_GAP).await;
        }
        true
    }

    /// Reads what arrived after the cursor (at most [`LINES_PER_EVENT`] lines and the rest
    /// of their chunk) and moves the cursor past it; `None` when no matching line arrived.
    pub(crate) async fn read(&mut self) -> Result<Option<json::LogEvent>, Error> {
        // Commits announced so far are covered by this read.
        self.live.heard();
        self.last_read = Some(Instant::now());
        let (key, filter, after) = (self.key, self.filter.clone(), self.cursor);
        let (followed, newest) = self
            .logs
            .call_read(move |c| {
                let f = query::follow(c, key, &filter, after, LINES_PER_EVENT)?;
                let newest = store::max_chunk_id(c)?;
                Ok((f, newest))
            })
            .await?;
        self.cursor = followed.next;
        self.behind = followed.next < newest;
        if followed.lines.is_empty() {
            return Ok(None);
        }
        Ok(Some(json::LogEvent {
            lines: followed
                .lines
                .into_iter()
                .map(|l| {
                    let matches = self
                        .needle
                        .as_ref()
                        .map(|f| chunk::match_ranges(&l.text, f))
                        .unwrap_or_default();
                    wire::line(l, &matches)
                })
                .collect(),
        }))
    }
}
