//! Live follow (`GET /runs/{id}/logs/stream`): the run's new lines as Server-Sent Events.
//!
//! - `event: status`, `data: "RUNNING"` first (its `id` is the starting cursor, so a client
//!   that loses the connection before any line still resumes from there), then again
//!   whenever the job run's status changes.
//! - `event: lines`, `id: <cursor>`, `data: {"lines": [...]}` ([`json::LogEvent`]): the lines
//!   matching the filters stored after the previous event, in arrival order.
//! - `: keep-alive` every 15 s.
//!
//! It starts from the `Last-Event-ID` header (a browser's reconnect), else from `from=`
//! (a page's `follow_from`), else from now. A follower sleeps on the store's notifier
//! ([`crate::logs::LogStore::subscribe`]), which wakes it after each commit, and polls every
//! second for writers in other processes and for the status. Its caller is checked again
//! each second ([`StreamCaller`]): a lost grant ends the stream, and a credential that no
//! longer holds (revoked token, ended session, changed password, disabled account) ends it
//! with `event: unauthenticated`, `data:` an `ApiError`. Memory per follower is bounded:
//! each wake reads at most [`LINES_PER_EVENT`] lines (plus the rest of the last chunk), and
//! the next read waits until the client has taken the event.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use api_types::logs as json;
use api_types::JobRunStatus;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::{Stream, StreamExt};
use memchr::memmem::Finder;
use tokio::time::Instant;

use super::guard::{logs_access, LogsGuard};
use super::logs::{filter_of, log_query};
use super::query::QueryParams;
use super::stream_caller::{end_event, StreamCaller, RECHECK};
use crate::auth::proof::Proof;
use crate::logs::chunk;
use crate::logs::query::{self, Filter};
use crate::logs::{store, wire, LogStore, Wakeups};
use crate::{AppState, Error};

/// Most lines read per wake-up (one event; the last chunk read is sent whole).
pub(crate) const LINES_PER_EVENT: usize = 1000;

/// How often a follower looks for new lines and the job run's status without a wake-up.
const POLL: Duration = Duration::from_secs(1);

/// Shortest time between two reads of one follower (a busy job commits often; the
/// commits in between are read together).
const MIN_GAP: Duration = Duration::from_millis(100);

/// The keep-alive comment's period.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// `GET /api/v1/runs/{id}/logs/stream?node=&level=&level_mode=&q=&since=&until=&from=`:
/// the run's new lines as they arrive (see the module doc).
pub(crate) async fn stream_logs(
    State(state): State<AppState>,
    guard: LogsGuard,
    proof: Proof,
    headers: HeaderMap,
    params: QueryParams,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, Error> {
    let filter = filter_of(&log_query(&params)?);
    let resume = match headers.get("last-event-id") {
        Some(v) => Some(
            v.to_str()
                .ok()
                .and_then(wire::parse_follow_cursor)
                .ok_or_else(|| {
                    Error::InvalidParameter(
                        "the Last-Event-ID header is not an event id of this stream".into(),
                    )
                })?,
        ),
        None => None,
    };
    let from = match params.get("from") {
        Some(v) => Some(wire::parse_follow_cursor(v).ok_or_else(|| {
            Error::InvalidParameter(format!(
                "from must be the follow_from cursor of a log page; got '{v}'"
            ))
        })?),
        None => None,
    };
    let logs = state.store.logs().clone();
    // Subscribe before reading "now", so that no commit falls between the two.
    let live = logs.subscribe();
    let cursor = match resume.or(from) {
        Some(c) => c,
        None => logs.call_read(|c| store::max_chunk_id(c)).await?,
    };
    let key = guard.attempt.attempt_id;
    let status = guard.attempt.status;
    let needle = filter
        .search
        .as_deref()
        .map(|q| Finder::new(&q.to_ascii_lowercase()).into_owned());
    let follower = Follower {
        caller: StreamCaller::new(&state.store, proof),
        run_id: guard.run_id.clone(),
        needle,
        logs,
        live,
        job_run_id: guard.attempt.job_run_id,
        key,
        filter,
        cursor,
        status,
        status_checked: Instant::now(),
        last_read: None,
        behind: true,
        pending: VecDeque::from([status_event(status).id(wire::follow_cursor(cursor))]),
        ended: false,
    };
    // Fused, so a layer that polls once more after the end finds it ended.
    let stream = futures_util::stream::unfold(follower, |mut f| async move {
        f.next_event().await.map(|e| (Ok(e), f))
    })
    .fuse();
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("keep-alive")))
}

fn status_event(status: JobRunStatus) -> Event {
    Event::default()
        .event("status")
        .data(format!("\"{}\"", status.as_str()))
}

/// One client's follow: where it is, what it wants, what it was last told.
struct Follower {
    /// Who follows (their credential and access are checked again as it goes).
    caller: StreamCaller,
    /// The run followed.
    run_id: String,
    logs: LogStore,
    live: Wakeups,
    job_run_id: i64,
    /// The log store's key (the attempt id).
    key: i64,
    filter: Filter,
    /// The search text, lowercased, for the lines' match ranges.
    needle: Option<Finder<'static>>,
    /// The arrival cursor: every line stored up to it was considered.
    cursor: i64,
    status: JobRunStatus,
    status_checked: Instant,
    last_read: Option<Instant>,
    /// Whether lines may be waiting beyond the cursor (read before sleeping).
    behind: bool,
    pending: VecDeque<Event>,
    /// Whether the stream ends once `pending` is sent.
    ended: bool,
}

impl Follower {
    /// The next event to send; `None` ends the stream (server shutdown, lost access or a
    /// failure, after which the client reconnects and resumes; a credential that no longer
    /// holds sends its [`end_event`] first).
    async fn next_event(&mut self) -> Option<Event> {
        loop {
            if let Some(e) = self.pending.pop_front() {
                return Some(e);
            }
            if self.ended || self.live.closing() {
                return None;
            }
            if !self.behind {
                self.wait().await;
            }
            if self.live.closing() {
                return None;
            }
            if let Some(t) = self.last_read {
                tokio::time::sleep_until(t + MIN_GAP).await;
            }
            if let Err(e) = self.read().await {
                match &e {
                    Error::PermissionDenied { .. }
                    | Error::Unauthenticated(_)
                    | Error::NotFound(_) => tracing::info!(
                        "log follow of job run {} ended: the follower's access ended ({e})",
                        self.job_run_id
                    ),
                    other => {
                        tracing::warn!("log follow of job run {} ended: {other:?}", self.job_run_id)
                    }
                }
                self.pending.extend(end_event(&e));
                self.ended = true;
            }
        }
    }

    /// Sleeps until a commit, the poll period, or shutdown.
    async fn wait(&mut self) {
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

    /// Reads what arrived after the cursor (at most [`LINES_PER_EVENT`] lines and the rest
    /// of their chunk) and, at most once per [`POLL`], the job run's status.
    async fn read(&mut self) -> Result<(), Error> {
        // The caller is checked again each second, before reading: their credential, and
        // their access as stored now (grants, groups, admin flag): a revoked token or
        // grant ends the stream within about a second, and the client's reconnect gets the
        // 401 or 403. The status read here is announced after the lines read below, so a
        // final status follows every line stored before it.
        let mut checked = None;
        if self.status_checked.elapsed() >= RECHECK {
            self.status_checked = Instant::now();
            let run_id = self.run_id.clone();
            let attempt = self
                .caller
                .check(move |c, who| logs_access(c, who, &run_id))
                .await?;
            checked = Some(attempt.status);
        }
        // Commits announced so far are covered by this read.
        self.live.heard();
        self.last_read = Some(Instant::now());
        let (key, filter, after) = (self.key, self.filter.clone(), self.cursor);
        let got = self
            .logs
            .call_read(move |c| {
                let f = query::follow(c, key, &filter, after, LINES_PER_EVENT)?;
                let newest = store::max_chunk_id(c)?;
                Ok((f, newest))
            })
            .await?;
        let (followed, newest) = got;
        self.cursor = followed.next;
        self.behind = followed.next < newest;
        if !followed.lines.is_empty() {
            let event = json::LogEvent {
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
            };
            let data = serde_json::to_string(&event)
                .map_err(|e| Error::Internal(format!("log event: {e}")))?;
            self.pending.push_back(
                Event::default()
                    .event("lines")
                    .id(wire::follow_cursor(self.cursor))
                    .data(data),
            );
        }
        if let Some(now) = checked {
            if now != self.status {
                self.status = now;
                self.pending.push_back(status_event(now));
            }
        }
        Ok(())
    }
}
