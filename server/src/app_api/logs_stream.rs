//! Live follow (`GET /runs/{id}/logs/stream`): the run's new lines as Server-Sent Events.
//!
//! - `event: status`, `data: "RUNNING"` first (its `id` is the starting cursor, so a client
//!   that loses the connection before any line still resumes from there), then again
//!   whenever the job run's status changes.
//! - `event: lines`, `id: <cursor>`, `data: {"lines": [...]}`
//!   ([`api_types::logs::LogEvent`]): the lines matching the filters stored after the
//!   previous event, in arrival order.
//! - `: keep-alive` every 15 s.
//!
//! It starts from the `Last-Event-ID` header (a browser's reconnect), else from `from=`
//! (a page's `follow_from`), else from now. The follower ([`crate::logs::follow`]) sleeps
//! on the store's notifier, which wakes it after each commit, and polls every second for
//! writers in other processes; the job run's status is read each second. The caller is
//! checked again each second ([`StreamCaller`]): a lost grant ends the stream, and a
//! credential that no longer holds (revoked token, ended session, changed password,
//! disabled account) ends it with `event: unauthenticated`, `data:` an `ApiError`. Memory
//! per follower is bounded: each wake reads at most
//! [`LINES_PER_EVENT`](crate::logs::follow::LINES_PER_EVENT) lines (plus the rest of the
//! last chunk), and the next read waits until the client has taken the event.
//!
//! This module is the HTTP side: the query, the resume cursor, the events and the
//! caller's re-check.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use api_types::JobRunStatus;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::{Stream, StreamExt};
use tokio::time::Instant;

use super::guard::LogsGuard;
use super::query::QueryParams;
use super::stream_end::end_event;
use crate::auth::proof::Proof;
use crate::auth::stream_caller::{StreamCaller, RECHECK};
use crate::jobs;
use crate::logs::follow::Follower;
use crate::logs::{page, wire};
use crate::{AppState, Error};

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
    let filter = page::filter_of(&params.log_query()?);
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
    let status = guard.attempt.status;
    let follower = Follower::start(
        state.store.logs().clone(),
        guard.attempt.attempt_id,
        filter,
        resume.or(from),
    )
    .await?;
    let start = status_event(status).id(wire::follow_cursor(follower.cursor()));
    let stream = LogStream {
        caller: StreamCaller::new(&state.store, proof),
        run_id: guard.run_id.clone(),
        job_run_id: guard.attempt.job_run_id,
        follower,
        status,
        status_checked: Instant::now(),
        pending: VecDeque::from([start]),
        ended: false,
    };
    // Fused, so a layer that polls once more after the end finds it ended.
    let stream = futures_util::stream::unfold(stream, |mut s| async move {
        s.next_event().await.map(|e| (Ok(e), s))
    })
    .fuse();
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("keep-alive")))
}

fn status_event(status: JobRunStatus) -> Event {
    Event::default()
        .event("status")
        .data(format!("\"{}\"", status.as_str()))
}

/// One client's follow as events: who follows, the follower, what it was last told.
struct LogStream {
    /// Who follows (their credential and access are checked again as it goes).
    caller: StreamCaller,
    /// The run followed.
    run_id: String,
    job_run_id: i64,
    follower: Follower,
    status: JobRunStatus,
    status_checked: Instant,
    pending: VecDeque<Event>,
    /// Whether the stream ends once `pending` is sent.
    ended: bool,
}

impl LogStream {
    /// The next event to send; `None` ends the stream (server shutdown, lost access or a
    /// failure, after which the client reconnects and resumes; a credential that no longer
    /// holds sends its [`end_event`] first).
    async fn next_event(&mut self) -> Option<Event> {
        loop {
            if let Some(e) = self.pending.pop_front() {
                return Some(e);
            }
            if self.ended || self.follower.closing() {
                return None;
            }
            if !self.follower.wait().await {
                return None;
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

    /// Checks the caller again (at most once per [`RECHECK`]), then queues the lines that
    /// arrived and, after them, a changed status.
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
                .check(move |c, who| jobs::require_run_logs(c, who, &run_id))
                .await?;
            checked = Some(attempt.status);
        }
        if let Some(event) = self.follower.read().await? {
            let data = serde_json::to_string(&event)
                .map_err(|e| Error::Internal(format!("log event: {e}")))?;
            self.pending.push_back(
                Event::default()
                    .event("lines")
                    .id(wire::follow_cursor(self.follower.cursor()))
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
