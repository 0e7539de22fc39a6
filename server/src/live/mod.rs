//! The live bus: what the MLflow write endpoints commit (metric points, run status, name and
//! lifecycle changes), published to the open live streams of experiment pages
//! (`GET /api/v1/experiments/{id}/live`, one `feed::Feed` each), in this process and, on
//! PostgreSQL, in every other replica (`LiveBus::for_store`): a topic of
//! `crate::bus` on the notification channel `CHANNEL`. An event too large for a
//! notification goes to the other replicas as a [`LiveEvent::Resync`] of its experiment;
//! a reconnect of the listening session is a resync of every experiment.
//!
//! Publishing never waits, each event is shared (one allocation for every stream), and a
//! stream that falls more than `CAPACITY` events behind is told so (it then asks its
//! page to refetch). Writers build events only while a stream may listen
//! (`LiveBus::listening`), so a lone server nobody watches pays nothing; with other
//! replicas, a stream may be open on any of them. Events describe committed writes:
//! handlers publish after the commit.
//!
//! Offers [`LiveBus`] and [`LiveEvent`]; to the crate `BatchWatch` (a log call's events,
//! built in the write's transaction) and `feed::Feed` (one page's merged updates, which
//! the app API's stream renders). The bus's transport is `crate::bus`'s.

mod events;
pub(crate) mod feed;

use std::sync::Arc;

use api_types::workspace::{LivePoints, RunChange};
use api_types::LatestMetric;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::bus::{Message, Topic};

pub(crate) use events::BatchWatch;

use crate::tracking::model::RunInfo;

/// Events kept for the slowest stream before it is told to resync.
pub(crate) const CAPACITY: usize = 256;

/// The PostgreSQL notification channel of the live bus.
pub(crate) const CHANNEL: &str = "runlens_live";

/// One committed write, as the live streams see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LiveEvent {
    /// Points logged to a run, and the run's latest values of the keys they touched.
    Metrics {
        /// The run's experiment.
        experiment_id: i64,
        /// The run.
        run_id: String,
        /// The new points, one entry per key in the order first written.
        series: Vec<LivePoints>,
        /// The latest value of each key written, after the write.
        latest: Vec<LatestMetric>,
    },
    /// A run created, renamed, finished (or otherwise changed status), deleted or restored.
    Run {
        /// The run's experiment.
        experiment_id: i64,
        /// The run as it is now.
        change: RunChange,
    },
    /// Events were lost on their way between replicas: the experiment's streams (every
    /// stream, for `None`) tell their pages to refetch.
    Resync {
        /// The experiment, or `None` for all.
        experiment_id: Option<i64>,
    },
}

impl LiveEvent {
    /// The experiment the event belongs to (`None`: a resync of every experiment).
    pub(crate) fn experiment_id(&self) -> Option<i64> {
        match self {
            LiveEvent::Metrics { experiment_id, .. } | LiveEvent::Run { experiment_id, .. } => {
                Some(*experiment_id)
            }
            LiveEvent::Resync { experiment_id } => *experiment_id,
        }
    }

    /// The change event of a run as `info` describes it.
    pub(crate) fn run(info: &RunInfo) -> Self {
        LiveEvent::Run {
            experiment_id: info.experiment_id,
            change: RunChange {
                run_id: info.run_id.clone(),
                run_name: info.run_name.clone(),
                status: info.status.clone(),
                end_time: info.end_time,
                lifecycle_stage: info.lifecycle_stage.clone(),
            },
        }
    }
}

/// The bus (cheap to clone; clones share the channel).
#[derive(Debug, Clone)]
pub struct LiveBus {
    topic: Topic<LiveEvent>,
}

impl Message for LiveEvent {
    /// Every page refetches: whatever was sent meanwhile is lost.
    fn reconnected() -> Self {
        LiveEvent::Resync {
            experiment_id: None,
        }
    }

    /// A resync of the event's experiment.
    fn shrunk(&self) -> Self {
        LiveEvent::Resync {
            experiment_id: self.experiment_id(),
        }
    }
}

impl Default for LiveBus {
    fn default() -> Self {
        LiveBus {
            topic: Topic::local(CAPACITY),
        }
    }
}

impl LiveBus {
    /// The bus of a server over `store`: in-process on SQLite; on PostgreSQL also shared
    /// with every replica on the same database (returns once it listens).
    pub(crate) fn for_store(store: &crate::Store) -> Self {
        match store.pg_pool() {
            Some(pool) => LiveBus {
                topic: Topic::shared(pool, CHANNEL, CAPACITY),
            },
            None => LiveBus::default(),
        }
    }

    /// Whether a live stream may be open (writers skip building events otherwise): one of
    /// this process's, or, with replicas, always.
    pub(crate) fn listening(&self) -> bool {
        self.topic.is_shared() || self.topic.receivers() > 0
    }

    /// Sends `event` to every open stream (none open: dropped), here and in the other
    /// replicas.
    pub(crate) fn publish(&self, event: LiveEvent) {
        self.topic.publish(event);
    }

    /// Sends each of `events`.
    pub(crate) fn publish_all(&self, events: Vec<LiveEvent>) {
        for e in events {
            self.publish(e);
        }
    }

    /// Publishes the change of the run `info` describes, when a stream listens.
    pub(crate) fn run_changed(&self, info: &RunInfo) {
        if self.listening() {
            self.publish(LiveEvent::run(info));
        }
    }

    /// A receiver of every event published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<LiveEvent>> {
        self.topic.subscribe()
    }
}

#[cfg(test)]
mod tests;
