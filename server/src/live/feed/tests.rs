//! Unit tests of one live feed's merging and bounds, over the bus alone.

use std::collections::HashSet;
use std::time::Duration;

use api_types::workspace::{LivePoints, RunChange};
use api_types::{LatestMetric, SeriesPoint, F64};

use super::{Feed, Out, MAX_PENDING};
use crate::auth::proof::Proof;
use crate::auth::stream_caller::StreamCaller;
use crate::live::{LiveBus, LiveEvent, CAPACITY};
use crate::Store;

fn feed(bus: &LiveBus, store: &Store, streamed: &[&str]) -> Feed {
    Feed::open(
        bus,
        store,
        1,
        StreamCaller::new(store, Proof::proxy(1)),
        streamed
            .iter()
            .map(|s| s.to_string())
            .collect::<HashSet<_>>(),
    )
}

fn points(experiment_id: i64, run: &str, steps: std::ops::Range<i64>) -> LiveEvent {
    let pts: Vec<SeriesPoint> = steps
        .clone()
        .map(|s| SeriesPoint {
            step: s,
            timestamp: s,
            value: F64(s as f64),
        })
        .collect();
    LiveEvent::Metrics {
        experiment_id,
        run_id: run.into(),
        latest: vec![LatestMetric {
            key: "loss".into(),
            value: F64((steps.end - 1) as f64),
            step: steps.end - 1,
            timestamp: steps.end - 1,
        }],
        series: vec![LivePoints {
            run_id: run.into(),
            key: "loss".into(),
            points: pts,
        }],
    }
}

fn finished(run: &str) -> LiveEvent {
    LiveEvent::Run {
        experiment_id: 1,
        change: RunChange {
            run_id: run.into(),
            run_name: "n".into(),
            status: "FINISHED".into(),
            end_time: Some(9),
            lifecycle_stage: "active".into(),
        },
    }
}

async fn next(f: &mut Feed) -> Out {
    tokio::time::timeout(Duration::from_secs(2), f.next_out())
        .await
        .expect("an event in time")
        .expect("the stream goes on")
}

#[tokio::test]
async fn writes_waiting_are_merged_into_one_update_of_this_experiment() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let bus = LiveBus::default();
    let mut f = feed(&bus, &store, &["a"]);
    bus.publish(points(1, "a", 0..3));
    bus.publish(points(2, "a", 100..200));
    bus.publish(points(1, "b", 0..5));
    bus.publish(finished("b"));
    bus.publish(points(1, "a", 3..5));
    let Out::Update(u) = next(&mut f).await else {
        panic!("expected an update")
    };
    assert_eq!(u.series.len(), 1, "only run a's points: {u:?}");
    let steps: Vec<i64> = u.series[0].points.iter().map(|p| p.step).collect();
    assert_eq!(steps, [0, 1, 2, 3, 4]);
    let latest: Vec<(&str, i64)> = u
        .latest
        .iter()
        .map(|l| (l.run_id.as_str(), l.metric.step))
        .collect();
    assert_eq!(latest, [("a", 4), ("b", 4)]);
    assert_eq!(u.runs.len(), 1);
    assert_eq!(u.runs[0].status, "FINISHED");
    // The next write waits for the merge window after the update just sent.
    let sent = std::time::Instant::now();
    bus.publish(points(1, "a", 5..6));
    let Out::Update(u) = next(&mut f).await else {
        panic!("expected an update")
    };
    assert_eq!(u.series[0].points[0].step, 5);
    assert!(
        sent.elapsed() >= Duration::from_millis(200),
        "{:?}",
        sent.elapsed()
    );
}

#[tokio::test]
async fn a_stream_that_fell_behind_the_bus_is_told_to_resync() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let bus = LiveBus::default();
    let mut f = feed(&bus, &store, &["a"]);
    for i in 0..CAPACITY as i64 + 10 {
        bus.publish(points(1, "a", i..i + 1));
    }
    assert!(matches!(next(&mut f).await, Out::Resync));
    // Then it carries on with what comes next; what the bus held before the resync is
    // covered by the page's refetch.
    bus.publish(points(1, "a", 999..1000));
    match next(&mut f).await {
        Out::Update(u) => {
            let steps: Vec<i64> = u.series[0].points.iter().map(|p| p.step).collect();
            assert_eq!(steps, [999]);
        }
        other => panic!("a second resync: {other:?}"),
    }
}

#[tokio::test]
async fn more_pending_than_the_bound_is_dropped_for_a_resync() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let bus = LiveBus::default();
    let mut f = feed(&bus, &store, &["a"]);
    let per = 1_000;
    let n = (MAX_PENDING / per + 2) as i64;
    assert!((n as usize) < CAPACITY);
    for i in 0..n {
        bus.publish(points(1, "a", i * per as i64..(i + 1) * per as i64));
    }
    assert!(matches!(next(&mut f).await, Out::Resync));
    assert!(f.pending.is_empty());
    // Points of runs not streamed cost nothing: many of them still fit.
    for i in 0..n {
        bus.publish(points(1, "b", i * per as i64..(i + 1) * per as i64));
    }
    match next(&mut f).await {
        Out::Update(u) => assert!(u.series.is_empty() && u.latest.len() == 1),
        other => panic!("points of a run not streamed were held: {other:?}"),
    }
}
