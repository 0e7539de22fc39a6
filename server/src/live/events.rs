//! Events of a log call (log-metric, log-batch, set-tag): built inside the write's
//! transaction, after the write, from what the write itself read and computed
//! ([`Logged`]: the run, and the latest values it committed), so an event costs no reads
//! of its own except for a rename.

use std::collections::HashMap;

use api_types::workspace::LivePoints;
use api_types::{LatestMetric, SeriesPoint, F64};

use super::{LiveBus, LiveEvent};
use crate::db::Conn;
use crate::tracking::log_batch::Logged;
use crate::tracking::model::Metric;
use crate::tracking::runs;
use crate::tracking::tags::RUN_NAME_TAG;
use crate::Error;

/// What a log call writes that the live streams report: its metric points, and whether it
/// renames the run (the `mlflow.runName` tag).
#[derive(Debug)]
pub(crate) struct BatchWatch {
    metrics: Vec<Metric>,
    renamed: bool,
}

impl BatchWatch {
    /// The watch of a call logging `metrics` and `tags`; `None` when no stream listens or
    /// the call writes nothing a stream reports (params, other tags).
    pub(crate) fn of(bus: &LiveBus, metrics: &[Metric], tags: &[(String, String)]) -> Option<Self> {
        let renamed = tags.iter().any(|(k, _)| k == RUN_NAME_TAG);
        (bus.listening() && (renamed || !metrics.is_empty())).then(|| BatchWatch {
            metrics: metrics.to_vec(),
            renamed,
        })
    }

    /// The events of the write to run `run_id`, which left `logged`; a rename reads the run
    /// again in the write's transaction. A failed read costs the streams this event, never
    /// the write: it is logged and skipped.
    pub(crate) fn events(self, c: &Conn, run_id: &str, logged: &Logged) -> Vec<LiveEvent> {
        match self.read(c, run_id, logged) {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!("live event of run {run_id} not sent: {e}");
                Vec::new()
            }
        }
    }

    fn read(self, c: &Conn, run_id: &str, logged: &Logged) -> Result<Vec<LiveEvent>, Error> {
        let mut events = Vec::new();
        if !self.metrics.is_empty() {
            let mut series: Vec<LivePoints> = Vec::new();
            let mut at: HashMap<&str, usize> = HashMap::new();
            for m in &self.metrics {
                let i = *at.entry(m.key.as_str()).or_insert_with(|| {
                    series.push(LivePoints {
                        run_id: run_id.to_string(),
                        key: m.key.clone(),
                        points: Vec::new(),
                    });
                    series.len() - 1
                });
                series[i].points.push(SeriesPoint {
                    step: m.point.step,
                    timestamp: m.point.timestamp,
                    value: F64(m.point.value),
                });
            }
            // The batch's keys, as `series`: in order of first appearance.
            let latest = logged
                .latest
                .iter()
                .map(|(key, p)| LatestMetric {
                    key: key.clone(),
                    value: F64(p.value),
                    step: p.step,
                    timestamp: p.timestamp,
                })
                .collect();
            events.push(LiveEvent::Metrics {
                experiment_id: logged.info.experiment_id,
                run_id: run_id.to_string(),
                series,
                latest,
            });
        }
        if self.renamed {
            events.push(LiveEvent::run(&runs::get_info(c, run_id)?));
        }
        Ok(events)
    }
}
