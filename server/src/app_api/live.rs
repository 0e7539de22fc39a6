//! The experiment page's live stream (`GET /experiments/{id}/live`, Server-Sent Events):
//! what is written to the experiment's runs while the page is open (see
//! [`api_types::workspace::LiveQuery`] for the events).
//!
//! A stream subscribes to the live bus ([`crate::live`]), keeps its experiment's events
//! and merges them: the first write after a quiet spell is sent at once, later ones at
//! most every [`MERGE`] (a run logging a point per millisecond costs a page four events a
//! second). Memory per stream is bounded: the bus keeps [`crate::live::CAPACITY`] shared
//! events for all streams, and a stream holding more than [`MAX_PENDING`] unsent items
//! (or one that fell behind the bus) drops them and sends `resync`, after which the page
//! refetches. The caller is checked again every [`RECHECK`] ([`StreamCaller`]): losing
//! access ends the stream, and a credential that no longer holds (revoked token, ended
//! session, changed password, disabled account) ends it with `event: unauthenticated`.
//! Server shutdown ends it too.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use api_types::workspace::{LiveLatest, LivePoints, LiveUpdate, RunChange};
use api_types::Level;
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::{Stream, StreamExt};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::{broadcast, watch};
use tokio::time::Instant;

use super::guard::{ExperimentGuard, READ};
use super::query::QueryParams;
use super::stream_caller::{end_event, StreamCaller, RECHECK};
use crate::auth::proof::Proof;
use crate::live::LiveEvent;
use crate::permissions::require_experiment;
use crate::{AppState, Error};

/// Shortest time between two `update` events of one stream.
pub(crate) const MERGE: Duration = Duration::from_millis(250);

/// Most points, latest values and run changes one stream holds unsent.
pub(crate) const MAX_PENDING: usize = 50_000;

/// The keep-alive comment's period.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// `GET /api/v1/experiments/{id}/live?run=&run=`: the experiment's writes as they happen
/// (see the module doc). 400 for more than `MAX_BATCH_RUNS` runs.
pub(crate) async fn stream_live(
    State(state): State<AppState>,
    guard: ExperimentGuard<READ>,
    proof: Proof,
    query: QueryParams,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, Error> {
    let streamed: HashSet<String> = query.live()?.runs.into_iter().collect();
    let feed = Feed {
        experiment_id: guard.id,
        caller: StreamCaller::new(&state.store, proof),
        rx: state.live.subscribe(),
        closing: state.store.logs().closing(),
        streamed,
        pending: Pending::default(),
        recheck: Instant::now() + RECHECK,
        last_sent: None,
        ended: false,
    };
    // Fused, so a layer that polls once more after the end finds it ended.
    let stream = futures_util::stream::unfold(feed, |mut f| async move {
        f.next_out().await.map(|o| (Ok(o.event()), f))
    })
    .fuse();
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("keep-alive")))
}

/// One page's stream: who watches what, and what it has not sent yet.
struct Feed {
    experiment_id: i64,
    /// Who watches (their credential and access are checked again as it goes).
    caller: StreamCaller,
    rx: broadcast::Receiver<Arc<LiveEvent>>,
    /// The server's shutdown signal (the log store's, which closes its followers then).
    closing: watch::Receiver<bool>,
    /// Runs whose points are sent.
    streamed: HashSet<String>,
    pending: Pending,
    recheck: Instant,
    last_sent: Option<Instant>,
    /// Whether the stream has sent its last event.
    ended: bool,
}

/// What happened since the last event, merged.
#[derive(Default)]
struct Pending {
    runs: Vec<RunChange>,
    series: Vec<LivePoints>,
    latest: Vec<LiveLatest>,
    /// Positions in `runs`, `series` and `latest` by run (and key).
    run_at: HashMap<String, usize>,
    series_at: HashMap<(String, String), usize>,
    latest_at: HashMap<(String, String), usize>,
    /// Items held: points, latest values and run changes.
    size: usize,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.runs.is_empty() && self.series.is_empty() && self.latest.is_empty()
    }

    /// Adds an event of the stream's experiment (points only of `streamed` runs).
    fn absorb(&mut self, event: &LiveEvent, streamed: &HashSet<String>) {
        match event {
            LiveEvent::Resync { .. } => {}
            LiveEvent::Run { change, .. } => match self.run_at.get(&change.run_id) {
                Some(&i) => self.runs[i] = change.clone(),
                None => {
                    self.run_at.insert(change.run_id.clone(), self.runs.len());
                    self.runs.push(change.clone());
                    self.size += 1;
                }
            },
            LiveEvent::Metrics {
                run_id,
                series,
                latest,
                ..
            } => {
                if streamed.contains(run_id) {
                    for s in series {
                        let k = (run_id.clone(), s.key.clone());
                        match self.series_at.get(&k) {
                            Some(&i) => self.series[i].points.extend_from_slice(&s.points),
                            None => {
                                self.series_at.insert(k, self.series.len());
                                self.series.push(s.clone());
                            }
                        }
                        self.size += s.points.len();
                    }
                }
                for m in latest {
                    let k = (run_id.clone(), m.key.clone());
                    let item = LiveLatest {
                        run_id: run_id.clone(),
                        metric: m.clone(),
                    };
                    match self.latest_at.get(&k) {
                        Some(&i) => self.latest[i] = item,
                        None => {
                            self.latest_at.insert(k, self.latest.len());
                            self.latest.push(item);
                            self.size += 1;
                        }
                    }
                }
            }
        }
    }

    /// The merged update, emptying the buffer.
    fn take(&mut self) -> LiveUpdate {
        let p = std::mem::take(self);
        LiveUpdate {
            at: crate::util::now_ms(),
            runs: p.runs,
            series: p.series,
            latest: p.latest,
        }
    }
}

/// What a stream sends next.
#[derive(Debug)]
enum Out {
    /// `event: update`.
    Update(LiveUpdate),
    /// `event: resync`: events were dropped, the page refetches.
    Resync,
    /// The last event, [`end_event`]: the credential no longer holds.
    End(Event),
}

impl Out {
    fn event(self) -> Event {
        let update = match self {
            Out::Update(u) => u,
            Out::Resync => return Event::default().event("resync").data(""),
            Out::End(event) => return event,
        };
        match serde_json::to_string(&update) {
            Ok(data) => Event::default().event("update").data(data),
            Err(e) => {
                tracing::warn!("live update not serialisable: {e}");
                Event::default().event("resync").data("")
            }
        }
    }
}

/// Why the stream stops receiving for now.
enum Wake {
    /// Send what is pending.
    Flush,
    /// Check the caller's access.
    Recheck,
    /// An event of the bus (or its end).
    Received(Result<Arc<LiveEvent>, RecvError>),
    /// The server is shutting down.
    Closing,
}

impl Feed {
    /// What to send next; `None` ends the stream (lost access, server shutdown, or a
    /// failure, after which the client reconnects; a credential that no longer holds is
    /// told first, with [`Out::End`]).
    async fn next_out(&mut self) -> Option<Out> {
        if self.ended {
            return None;
        }
        loop {
            let flush_at = (!self.pending.is_empty())
                .then(|| self.last_sent.map_or_else(Instant::now, |t| t + MERGE));
            let wake = tokio::select! {
                biased;
                _ = self.closing.wait_for(|closing| *closing) => Wake::Closing,
                () = tokio::time::sleep_until(self.recheck) => Wake::Recheck,
                () = sleep_until_some(flush_at) => Wake::Flush,
                r = self.rx.recv() => Wake::Received(r),
            };
            match wake {
                Wake::Closing => return None,
                Wake::Recheck => {
                    if let Err(e) = self.check_access().await {
                        tracing::info!(
                            "live stream of experiment {} ended: {e}",
                            self.experiment_id
                        );
                        self.ended = true;
                        return end_event(&e).map(Out::End);
                    }
                    self.recheck = Instant::now() + RECHECK;
                }
                Wake::Flush => return Some(self.flush()),
                Wake::Received(Err(RecvError::Closed)) => return None,
                Wake::Received(Err(RecvError::Lagged(_))) => return Some(self.resync()),
                Wake::Received(Ok(event)) => {
                    if self.keep(&event) {
                        return Some(self.resync());
                    }
                    // Take what else is already there before deciding to send.
                    loop {
                        match self.rx.try_recv() {
                            Ok(event) => {
                                if self.keep(&event) {
                                    return Some(self.resync());
                                }
                            }
                            Err(TryRecvError::Lagged(_)) => return Some(self.resync()),
                            Err(TryRecvError::Empty | TryRecvError::Closed) => break,
                        }
                    }
                    if self.pending.size > MAX_PENDING {
                        return Some(self.resync());
                    }
                }
            }
        }
    }

    /// Holds `event` if it is this stream's; true when it asks for a resync instead.
    fn keep(&mut self, event: &LiveEvent) -> bool {
        match event {
            LiveEvent::Resync { experiment_id } => {
                experiment_id.is_none_or(|id| id == self.experiment_id)
            }
            e if e.experiment_id() == Some(self.experiment_id) => {
                self.pending.absorb(event, &self.streamed);
                false
            }
            _ => false,
        }
    }

    fn flush(&mut self) -> Out {
        self.last_sent = Some(Instant::now());
        Out::Update(self.pending.take())
    }

    /// Drops what is pending and what the bus holds for this stream (all committed, so
    /// the page's refetch covers it).
    fn resync(&mut self) -> Out {
        self.pending = Pending::default();
        while let Ok(_) | Err(TryRecvError::Lagged(_)) = self.rx.try_recv() {}
        self.last_sent = Some(Instant::now());
        Out::Resync
    }

    /// The caller's credential, and their access as stored now (grants, groups, admin
    /// flag).
    async fn check_access(&self) -> Result<(), Error> {
        let id = self.experiment_id;
        self.caller
            .check(move |c, who| require_experiment(c, who, id, Level::CanRead).map(|_| ()))
            .await
    }
}

/// Sleeps until `at`, or forever when `None`.
async fn sleep_until_some(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests;
