//! Unit tests of the live bus.

use tokio::sync::broadcast::error::TryRecvError;

use super::{LiveBus, LiveEvent, CAPACITY};
use crate::tracking::model::RunInfo;

fn info(experiment_id: i64, status: &str) -> RunInfo {
    RunInfo {
        run_id: "a".repeat(32),
        experiment_id,
        run_name: "r".into(),
        user_id: "u".into(),
        status: status.into(),
        start_time: 1,
        end_time: None,
        artifact_uri: String::new(),
        lifecycle_stage: "active".into(),
    }
}

#[test]
fn events_reach_every_subscriber_and_nobody_listening_costs_nothing() {
    let bus = LiveBus::default();
    assert!(!bus.listening());
    // Published with nobody listening: dropped, not kept for later subscribers.
    bus.publish(LiveEvent::run(&info(1, "RUNNING")));
    let (mut a, mut b) = (bus.subscribe(), bus.subscribe());
    assert!(bus.listening());
    assert!(matches!(a.try_recv(), Err(TryRecvError::Empty)));
    bus.run_changed(&info(7, "FINISHED"));
    for rx in [&mut a, &mut b] {
        let got = rx.try_recv().unwrap();
        assert_eq!(got.experiment_id(), Some(7));
        match &*got {
            LiveEvent::Run { change, .. } => assert_eq!(change.status, "FINISHED"),
            other => panic!("{other:?}"),
        }
    }
    drop((a, b));
    assert!(!bus.listening());
}

#[test]
fn a_reader_that_falls_behind_is_told_how_far() {
    let bus = LiveBus::default();
    let mut rx = bus.subscribe();
    for _ in 0..CAPACITY + 5 {
        bus.publish(LiveEvent::run(&info(1, "RUNNING")));
    }
    assert!(matches!(rx.try_recv(), Err(TryRecvError::Lagged(5))));
    assert!(rx.try_recv().is_ok());
}
