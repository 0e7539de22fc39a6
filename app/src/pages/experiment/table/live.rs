//! Live rows of the runs table: the table's RUNNING/SCHEDULED runs go into the page's
//! [`LiveFeed`]; each update patches the rows in place (status, end, name, the shown
//! metric cells) instead of reloading the table; a run the table does not know (created
//! since, or on a page not loaded yet) refetches it once, and a `resync` refetches it. Rows
//! of pages loaded later join through [`LiveRows::add`].

use std::collections::{HashMap, HashSet};

use api_types as json;
use json::workspace::LiveUpdate;
use leptos::prelude::*;

use crate::api::ApiError;
use crate::hooks::{is_live_status, use_live_feed, LiveFeed};

/// What the live stream changed in one row since the table loaded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowPatch {
    /// New name.
    pub name: Option<String>,
    /// New status.
    pub status: Option<String>,
    /// New end (`Some(None)`: running again).
    pub end_time: Option<Option<i64>>,
    /// Deleted or restored.
    pub deleted: Option<bool>,
    /// Newest value per metric key.
    pub metrics: HashMap<String, f64>,
}

/// The live changes of every row, by run id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Patches(HashMap<String, RowPatch>);

impl Patches {
    /// Applies one update of the stream.
    pub fn apply(&mut self, u: &LiveUpdate) {
        for r in &u.runs {
            let p = self.0.entry(r.run_id.clone()).or_default();
            p.name = Some(r.run_name.clone());
            p.status = Some(r.status.clone());
            p.end_time = Some(r.end_time);
            p.deleted = Some(r.lifecycle_stage == "deleted");
        }
        for l in &u.latest {
            self.0
                .entry(l.run_id.clone())
                .or_default()
                .metrics
                .insert(l.metric.key.clone(), l.metric.value.0);
        }
    }

    /// The patch of one run, if the stream changed it.
    pub fn get(&self, run_id: &str) -> Option<&RowPatch> {
        self.0.get(run_id)
    }
}

/// The active runs an update names that the table does not have (it must be refetched).
pub fn unknown_runs(u: &LiveUpdate, known: &HashSet<String>) -> Vec<String> {
    u.runs
        .iter()
        .filter(|r| r.lifecycle_stage == "active" && !known.contains(&r.run_id))
        .map(|r| r.run_id.clone())
        .collect()
}

/// The table's live patches and the runs the feed follows.
#[derive(Clone, Copy)]
pub struct LiveRows {
    /// Live changes of the rows (cleared whenever the rows reload).
    pub patches: RwSignal<Patches>,
    known: StoredValue<HashSet<String>>,
    feed: Option<LiveFeed>,
}

impl LiveRows {
    /// Rows of a further page: known from now on, and followed while they run.
    pub fn add(&self, rows: &[json::RunRow]) {
        self.known
            .update_value(|k| k.extend(rows.iter().map(|r| r.run_id.clone())));
        let live: Vec<String> = rows
            .iter()
            .filter(|r| is_live_status(&r.status))
            .map(|r| r.run_id.clone())
            .collect();
        if let (Some(feed), false) = (self.feed, live.is_empty()) {
            feed.running.update(|r| r.extend(live));
        }
    }
}

/// Connects the table's rows (`runs`, its first page) to the page's live feed.
pub fn use_live_rows(runs: LocalResource<Result<json::RunTable, ApiError>>) -> LiveRows {
    let patches = RwSignal::new(Patches::default());
    let known = StoredValue::new(HashSet::<String>::new());
    let feed = use_live_feed();
    let out = LiveRows {
        patches,
        known,
        feed,
    };
    let Some(feed) = feed else {
        return out;
    };
    // Unknown runs that already caused a refetch: one on a page not loaded yet would
    // otherwise refetch the table at each of its updates.
    let asked = StoredValue::new(HashSet::<String>::new());
    Effect::new(move |_| {
        let Some(Ok(t)) = runs.get() else { return };
        let ids: HashSet<String> = t.rows.iter().map(|r| r.run_id.clone()).collect();
        let live: HashSet<String> = t
            .rows
            .iter()
            .filter(|r| is_live_status(&r.status))
            .map(|r| r.run_id.clone())
            .collect();
        known.set_value(ids);
        patches.set(Patches::default());
        feed.running.set(live);
    });
    feed.on_update(move |u| {
        patches.try_update(|p| p.apply(u));
        let fresh: Vec<String> = known
            .try_with_value(|k| unknown_runs(u, k))
            .unwrap_or_default()
            .into_iter()
            .filter(|id| asked.try_with_value(|a| !a.contains(id)) == Some(true))
            .collect();
        if !fresh.is_empty() {
            asked.try_update_value(|a| a.extend(fresh));
            runs.refetch();
        }
    });
    Effect::new(move |prev: Option<u64>| {
        let n = feed.resync.get();
        if prev.is_some_and(|p| p != n) {
            runs.refetch();
        }
        n
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use json::workspace::{LiveLatest, RunChange};

    fn change(id: &str, status: &str, stage: &str) -> RunChange {
        RunChange {
            run_id: id.into(),
            run_name: format!("{id}-name"),
            status: status.into(),
            end_time: (status != "RUNNING").then_some(42),
            lifecycle_stage: stage.into(),
        }
    }

    #[test]
    fn updates_patch_rows() {
        let mut p = Patches::default();
        let latest = |v: f64| LiveLatest {
            run_id: "a".into(),
            metric: json::LatestMetric {
                key: "loss".into(),
                value: json::F64(v),
                step: 1,
                timestamp: 0,
            },
        };
        p.apply(&LiveUpdate {
            at: 1,
            latest: vec![latest(0.5)],
            ..Default::default()
        });
        assert_eq!(p.get("a").unwrap().metrics["loss"], 0.5);
        assert_eq!(p.get("a").unwrap().status, None);
        p.apply(&LiveUpdate {
            at: 2,
            runs: vec![change("a", "FINISHED", "active")],
            latest: vec![latest(0.25)],
            ..Default::default()
        });
        let a = p.get("a").unwrap();
        assert_eq!(
            (
                a.status.as_deref(),
                a.end_time,
                a.name.as_deref(),
                a.metrics["loss"]
            ),
            (Some("FINISHED"), Some(Some(42)), Some("a-name"), 0.25)
        );
        assert_eq!(a.deleted, Some(false));
        assert!(p.get("b").is_none());
    }

    #[test]
    fn unknown_active_runs_ask_for_a_refetch() {
        let known: HashSet<String> = ["a".to_owned()].into();
        let u = |c: RunChange| LiveUpdate {
            runs: vec![c],
            ..Default::default()
        };
        assert!(unknown_runs(&u(change("a", "RUNNING", "active")), &known).is_empty());
        assert_eq!(
            unknown_runs(&u(change("b", "RUNNING", "active")), &known),
            vec!["b"]
        );
        assert!(unknown_runs(&u(change("b", "FINISHED", "deleted")), &known).is_empty());
    }
}
