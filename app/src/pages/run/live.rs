//! The run page follows its run live: the page opens its experiment's live feed
//! ([`provide_live_feed`]) with this one run "streamed" (its every new point comes), whatever
//! its status, so a run resumed, renamed or deleted elsewhere shows here too. From the
//! updates:
//!
//! - the header's status and duration follow the run's [`RunChange`](api_types::workspace::RunChange)s;
//! - the Metrics tab's charts append their key's new points ([`LiveSeries`]), and a key
//!   logged for the first time gets its chart;
//! - the header shows the stream's state ([`LiveBadge`]).

use api_types as json;
use leptos::prelude::*;

use crate::components::chart_panel::LiveSeries;
use crate::components::live_badge::LiveBadge;
use crate::components::status_badge::StatusBadge;
use crate::format;
use crate::hooks::{is_live_status, provide_live_feed, use_now, LiveFeed};

/// `Copy` handle of the run page's live state, provided as context.
#[derive(Clone, Copy)]
pub struct RunLive {
    /// The page's feed.
    pub feed: LiveFeed,
    /// The run's status, as loaded, then as the stream reports it.
    pub status: RwSignal<String>,
    /// The run's end, once it has ended.
    pub end_time: RwSignal<Option<i64>>,
    /// The run's metric keys, sorted; grows when a new key is logged.
    pub keys: RwSignal<Vec<String>>,
    /// New points for the charts.
    pub series: LiveSeries,
}

/// Adds the keys of `latest` that `keys` lacks, keeping it sorted; whether any was new.
fn merge_keys<'a>(keys: &mut Vec<String>, latest: impl IntoIterator<Item = &'a str>) -> bool {
    let mut changed = false;
    for key in latest {
        if let Err(i) = keys.binary_search_by(|k| k.as_str().cmp(key)) {
            keys.insert(i, key.to_owned());
            changed = true;
        }
    }
    changed
}

/// Opens the live feed of `run`'s experiment for this run and provides [`RunLive`].
pub fn provide_run_live(run: &json::RunDetail) -> RunLive {
    let feed = provide_live_feed(run.experiment_id.clone());
    let run_id = run.run_id.clone();
    let mut keys: Vec<String> = Vec::new();
    merge_keys(&mut keys, run.metrics.iter().map(|m| m.key.as_str()));
    // Charts refetch when the feed resyncs and once the run has finished.
    let finished = RwSignal::new(0u64);
    let refetch = Signal::derive(move || feed.resync.get() + finished.get());
    let live = RunLive {
        feed,
        status: RwSignal::new(run.status.clone()),
        end_time: RwSignal::new(run.end_time),
        keys: RwSignal::new(keys),
        series: LiveSeries::new(feed, refetch),
    };
    feed.streamed.set(vec![run_id.clone()]);
    feed.on_update(move |u| {
        for change in u.runs.iter().filter(|c| c.run_id == run_id) {
            let was_live = live.status.try_with_untracked(|s| is_live_status(s));
            live.status.try_set(change.status.clone());
            live.end_time.try_set(change.end_time);
            if was_live == Some(true) && !is_live_status(&change.status) {
                finished.try_update(|n| *n += 1);
            }
        }
        let latest = u.latest.iter().filter(|l| l.run_id == run_id);
        let mut new_keys: Vec<&str> = latest.map(|l| l.metric.key.as_str()).collect();
        new_keys.sort_unstable();
        let missing = live.keys.try_with_untracked(|k| {
            new_keys
                .iter()
                .any(|n| k.binary_search_by(|x| x.as_str().cmp(n)).is_err())
        });
        if missing == Some(true) {
            live.keys.try_update(|k| merge_keys(k, new_keys));
        }
    });
    provide_context(live);
    live
}

/// The run page's [`RunLive`], where the page provides one.
pub fn use_run_live() -> Option<RunLive> {
    use_context::<RunLive>()
}

/// The header's status: the badge, the duration (growing while the run runs) and the
/// stream's state.
#[component]
pub fn RunLiveStatus(
    /// The page's live state.
    live: RunLive,
    /// The run's start, ms.
    start_time: i64,
) -> impl IntoView {
    let badge = move || view! { <StatusBadge status=live.status.get() /> };
    let now = use_now(1_000);
    let duration = move || {
        let end = live.end_time.get().unwrap_or_else(|| now.get());
        format::duration(end - start_time)
    };
    view! {
        {badge}
        <span class="muted small run-duration" title="Duration">{duration}</span>
        <LiveBadge feed=live.feed testid="run-live" />
    }
}

#[cfg(test)]
mod tests {
    use super::merge_keys;

    #[test]
    fn new_keys_are_merged_in_order() {
        let mut keys = vec!["acc".to_owned(), "loss".to_owned()];
        assert!(merge_keys(&mut keys, ["lr", "acc", "val/loss"]));
        assert_eq!(keys, ["acc", "loss", "lr", "val/loss"]);
        assert!(!merge_keys(&mut keys, ["loss"]));
    }
}
