//! One experiment page's live stream, as domain events: a [`Feed`] subscribes to the bus,
//! keeps its experiment's events and merges them into one [`LiveUpdate`]: the first write
//! after a quiet spell goes out at once, later ones at most every [`MERGE`] (a run logging
//! a point per millisecond costs a page four updates a second). Memory per feed is
//! bounded: the bus keeps [`CAPACITY`](super::CAPACITY) shared events for all feeds, and a
//! feed holding more than [`MAX_PENDING`] unsent items (or one that fell behind the bus)
//! drops them and asks for a resync ([`Out::Resync`]), after which the page refetches. The
//! caller is checked again every [`RECHECK`] ([`StreamCaller`]): losing access ends the
//! feed, after [`Out::End`]. Server shutdown ends it too.
//!
//! The HTTP side (`app_api`) turns each [`Out`] into a Server-Sent Event.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use api_types::workspace::{LiveLatest, LivePoints, LiveUpdate, RunChange};
use api_types::Level;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::{broadcast, watch};
use tokio::time::Instant;

use super::{LiveBus, LiveEvent};
use crate::auth::stream_caller::{StreamCaller, RECHECK};
use crate::permissions::require_experiment;
use crate::{Error, Store};

/// Shortest time between two updates of one feed.
pub(crate) const MERGE: Duration = Duration::from_millis(250);

/// Most points, latest values and run changes one feed holds unsent.
pub(crate) const MAX_PENDING: usize = 50_000;

/// One page's feed: who watches what, and what it has not sent yet.
pub(crate) struct Feed {
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
    /// Whether the feed has given its last item.
    ended: bool,
}

/// What a feed gives next.
#[derive(Debug)]
pub(crate) enum Out {
    /// What happened since the last update, merged.
    Update(LiveUpdate),
    /// Events were dropped: the page refetches.
    Resync,
    /// The last item: the caller's check failed with this error (lost access, or a
    /// credential that no longer holds).
    End(Error),
}

/// What happened since the last update, merged.
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

    /// Adds an event of the feed's experiment (points only of `streamed` runs).
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

/// Why the feed stops receiving for now.
enum Wake {
    /// Give what is pending.
    Flush,
    /// Check the caller's access.
    Recheck,
    /// An event of the bus (or its end).
    Received(Result<Arc<LiveEvent>, RecvError>),
    /// The server is shutting down.
    Closing,
}

impl Feed {
    /// The feed of experiment `experiment_id` for `caller`, from now on: the points of the
    /// `streamed` runs, every run's latest values and run changes.
    pub(crate) fn open(
        bus: &LiveBus,
        store: &Store,
        experiment_id: i64,
        caller: StreamCaller,
        streamed: HashSet<String>,
    ) -> Self {
        Feed {
            experiment_id,
            caller,
            rx: bus.subscribe(),
            closing: store.logs().closing(),
            streamed,
            pending: Pending::default(),
            recheck: Instant::now() + RECHECK,
            last_sent: None,
            ended: false,
        }
    }

    /// What to give next; `None` ends the feed (server shutdown, or a failure, after
    /// which the client reconnects; a failed check of the caller gives [`Out::End`]
    /// first).
    pub(crate) async fn next_out(&mut self) -> Option<Out> {
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
                        return Some(Out::End(e));
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

    /// Holds `event` if it is this feed's; true when it asks for a resync instead.
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

    /// Drops what is pending and what the bus holds for this feed (all committed, so the
    /// page's refetch covers it).
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
