//! The live bus: what the MLflow write endpoints commit (metric points, run status, name and
//! lifecycle changes), published in-process to the open live streams of experiment pages
//! (`GET /api/v1/experiments/{id}/live`, see `app_api::live`).
//!
//! A bounded [`tokio::sync::broadcast`] channel: publishing never waits, each event is
//! shared (one allocation for every stream), and a stream that falls more than
//! [`CAPACITY`] events behind is told so (it then asks its page to refetch). Writers build
//! events only while a stream listens ([`LiveBus::listening`]), so a server nobody watches
//! pays nothing. Events describe committed writes: handlers publish after the commit.

mod events;

use std::sync::Arc;

use api_types::workspace::{LivePoints, RunChange};
use api_types::LatestMetric;
use tokio::sync::broadcast;

pub use events::BatchWatch;

use crate::tracking::model::RunInfo;

/// Events kept for the slowest stream before it is told to resync.
pub const CAPACITY: usize = 256;

/// One committed write, as the live streams see it.
#[derive(Debug, Clone, PartialEq)]
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
}

impl LiveEvent {
    /// The experiment the event belongs to.
    pub fn experiment_id(&self) -> i64 {
        match self {
            LiveEvent::Metrics { experiment_id, .. } | LiveEvent::Run { experiment_id, .. } => {
                *experiment_id
            }
        }
    }

    /// The change event of a run as `info` describes it.
    pub fn run(info: &RunInfo) -> Self {
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

/// The in-process bus (cheap to clone; clones share the channel).
#[derive(Debug, Clone)]
pub struct LiveBus {
    tx: broadcast::Sender<Arc<LiveEvent>>,
}

impl Default for LiveBus {
    fn default() -> Self {
        LiveBus {
            tx: broadcast::Sender::new(CAPACITY),
        }
    }
}

impl LiveBus {
    /// Whether any live stream is open (writers skip building events otherwise).
    pub fn listening(&self) -> bool {
        self.tx.receiver_count() > 0
    }

    /// Sends `event` to every open stream (none open: dropped).
    pub fn publish(&self, event: LiveEvent) {
        // An error only means that no stream is open.
        let _ = self.tx.send(Arc::new(event));
    }

    /// Sends each of `events`.
    pub fn publish_all(&self, events: Vec<LiveEvent>) {
        for e in events {
            self.publish(e);
        }
    }

    /// Publishes the change of the run `info` describes, when a stream listens.
    pub fn run_changed(&self, info: &RunInfo) {
        if self.listening() {
            self.publish(LiveEvent::run(info));
        }
    }

    /// A receiver of every event published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<LiveEvent>> {
        self.tx.subscribe()
    }
}

#[cfg(test)]
mod tests;
