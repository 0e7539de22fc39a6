//! Live rows of the runs table: the table's RUNNING/SCHEDULED runs go into the page's
//! [`LiveFeed`]; each update patches the rows in place (status, end, name, the shown
//! metric cells) instead of reloading the table; a run the table does not have (created or
//! restored since, or on a page not loaded yet) or a run it has that was deleted refetches it
//! ([`changes_rows`]), and a `resync` refetches it. Rows
//! of pages loaded later join through [`LiveRows::add`].

use std::collections::{HashMap, HashSet};

use api_types as json;
use json::workspace::LiveUpdate;
use leptos::prelude::*;

use crate::api::ApiError;
use crate::hooks::{use_live_feed, use_now};

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

/// Whether `u` changes which runs the table holds: an active run it does not have (created,
/// restored, or on a page not loaded yet) or a run it has that was deleted. `asked` keeps,
/// per run, the lifecycle stage a refetch was last asked for, so a run on a page not loaded
/// yet asks once per stage, not at each of its updates.
pub fn changes_rows(
    u: &LiveUpdate,
    known: &HashSet<String>,
    asked: &mut HashMap<String, String>,
) -> bool {
    let mut refetch = false;
    for r in &u.runs {
        let active = r.lifecycle_stage == "active";
        let has = known.contains(&r.run_id);
        if active != has && asked.get(&r.run_id) != Some(&r.lifecycle_stage) {
            asked.insert(r.run_id.clone(), r.lifecycle_stage.clone());
            refetch = true;
        }
    }
    refetch
}

/// The table's live patches and the rows it knows. Owned by the page, not the
/// table, so a row's view never reads a signal of a table view replaced since.
#[derive(Clone, Copy)]
pub struct LiveRows {
    /// Live changes of the rows (cleared whenever the rows reload).
    pub patches: RwSignal<Patches>,
    /// "Now", every second: relative times and running durations move.
    pub now: Signal<i64>,
    known: StoredValue<HashSet<String>>,
}

impl LiveRows {
    /// Rows of a further page: known from now on.
    pub fn add(&self, rows: &[json::RunRow]) {
        self.known
            .update_value(|k| k.extend(rows.iter().map(|r| r.run_id.clone())));
    }
}

/// Connects the table's rows (`runs`, its first page) to the page's live feed.
pub fn use_live_rows(runs: LocalResource<Result<json::RunTable, ApiError>>) -> LiveRows {
    let patches = RwSignal::new(Patches::default());
    let known = StoredValue::new(HashSet::<String>::new());
    let feed = use_live_feed();
    let out = LiveRows {
        patches,
        now: use_now(1_000),
        known,
    };
    let Some(feed) = feed else {
        return out;
    };
    let asked = StoredValue::new(HashMap::<String, String>::new());
    Effect::new(move |_| {
        let Some(Ok(t)) = runs.get() else { return };
        let ids: HashSet<String> = t.rows.iter().map(|r| r.run_id.clone()).collect();
        known.set_value(ids);
        patches.set(Patches::default());
    });
    feed.on_update(move |u| {
        patches.try_update(|p| p.apply(u));
        let refetch = known
            .try_with_value(|k| asked.try_update_value(|a| changes_rows(u, k, a)))
            .flatten();
        if refetch == Some(true) {
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
    fn new_restored_and_deleted_runs_ask_for_a_refetch_once_per_stage() {
        let known: HashSet<String> = ["a".to_owned()].into();
        let mut asked = HashMap::new();
        let u = |c: RunChange| LiveUpdate {
            runs: vec![c],
            ..Default::default()
        };
        // A known run finishing changes a row, not which rows there are.
        assert!(!changes_rows(
            &u(change("a", "FINISHED", "active")),
            &known,
            &mut asked
        ));
        // A new run: once, however often it changes before the table has it.
        assert!(changes_rows(
            &u(change("b", "RUNNING", "active")),
            &known,
            &mut asked
        ));
        assert!(!changes_rows(
            &u(change("b", "FINISHED", "active")),
            &known,
            &mut asked
        ));
        // A known run deleted, then restored while the table no longer has it.
        assert!(changes_rows(
            &u(change("a", "FINISHED", "deleted")),
            &known,
            &mut asked
        ));
        let known: HashSet<String> = HashSet::new();
        assert!(changes_rows(
            &u(change("a", "FINISHED", "active")),
            &known,
            &mut asked
        ));
        // A deleted run the table never had changes nothing.
        assert!(!changes_rows(
            &u(change("c", "FINISHED", "deleted")),
            &known,
            &mut asked
        ));
    }
}
