//! The demo's live run (`runlens serve --demo`): it logs points every tick through the
//! tracking domain, tells the live bus, finishes, starts afresh, keeps only the newest
//! finished runs, and is not left RUNNING when the server stops.

use std::sync::Arc;

use serde_json::Value;
use server::demo::{LiveDemo, LAST_STEP, LIVE_RUN_PREFIX, PAUSE_TICKS, STEPS_PER_TICK};
use server::live::{LiveBus, LiveEvent};

use crate::helpers::TestApp;

const DETECTION: &str = "/Workspace/Shared/vision/detection";

async fn run_info(app: &TestApp, id: &str) -> Value {
    app.ok_get(&format!("/runs/get?run_id={id}")).await["run"]["info"].clone()
}

async fn history(app: &TestApp, id: &str, key: &str) -> Vec<Value> {
    app.ok_get(&format!(
        "/metrics/get-history?run_id={id}&metric_key={key}"
    ))
    .await["metrics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn drain(rx: &mut tokio::sync::broadcast::Receiver<Arc<LiveEvent>>) -> Vec<Arc<LiveEvent>> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

#[tokio::test]
async fn the_live_demo_run_gets_points_every_tick_and_tells_the_live_streams() {
    let app = TestApp::demo();
    let bus = LiveBus::default();
    let mut rx = bus.subscribe();
    let mut demo = LiveDemo::new(app.store.clone());
    let t0 = 1_800_000_000_000i64;
    demo.tick(&bus, t0).expect("start");
    let id = demo.run_id().expect("a live run").to_string();
    assert_eq!(app.run_id(&format!("{LIVE_RUN_PREFIX}1")), id);
    let info = run_info(&app, &id).await;
    assert_eq!(info["status"], "RUNNING");
    assert_eq!(
        info["experiment_id"],
        app.experiment_id(DETECTION).to_string()
    );
    let started = drain(&mut rx);
    assert!(
        started
            .iter()
            .any(|e| matches!(&**e, LiveEvent::Run { change, .. } if change.run_id == id && change.status == "RUNNING")),
        "{started:?}"
    );

    for i in 1..=3 {
        demo.tick(&bus, t0 + i * 1_000).expect("tick");
    }
    let loss = history(&app, &id, "loss").await;
    assert_eq!(
        loss.len() as i64,
        3 * STEPS_PER_TICK,
        "one loss point per step"
    );
    assert_eq!(
        history(&app, &id, "mAP").await.len(),
        3,
        "one mAP point per tick"
    );
    let last = loss.iter().map(|m| m["step"].as_i64().unwrap()).max();
    assert_eq!(last, Some(3 * STEPS_PER_TICK - 1));
    assert!(loss
        .iter()
        .all(|m| m["timestamp"].as_i64().unwrap() <= t0 + 3_000));
    // The same points went to the live streams, one event per tick.
    let events = drain(&mut rx);
    let streamed: usize = events
        .iter()
        .filter_map(|e| match &**e {
            LiveEvent::Metrics { run_id, series, .. } if *run_id == id => Some(series),
            _ => None,
        })
        .flatten()
        .filter(|s| s.key == "loss")
        .map(|s| s.points.len())
        .sum();
    assert_eq!(streamed as i64, 3 * STEPS_PER_TICK);
}

#[tokio::test]
async fn a_live_run_finishes_a_fresh_one_starts_and_old_ones_are_deleted() {
    let app = TestApp::demo();
    let bus = LiveBus::default();
    let mut demo = LiveDemo::new(app.store.clone());
    let ticks_per_run = 1 + LAST_STEP / STEPS_PER_TICK + 1 + i64::from(PAUSE_TICKS);
    let mut now = 1_800_000_000_000i64;
    let mut ids = Vec::new();
    for _ in 0..5 * ticks_per_run - 20 {
        demo.tick(&bus, now).expect("tick");
        if let Some(id) = demo.run_id() {
            if ids.last().map(String::as_str) != Some(id) {
                ids.push(id.to_string());
            }
        }
        now += 1_000;
    }
    assert!(ids.len() >= 5, "{ids:?}");
    let first = run_info(&app, &ids[0]).await;
    assert_eq!(first["status"], "FINISHED");
    assert_eq!(
        first["lifecycle_stage"], "deleted",
        "older than the newest three"
    );
    assert_eq!(
        history(&app, &ids[0], "loss").await.len() as i64,
        LAST_STEP + 1
    );
    let kept = run_info(&app, &ids[ids.len() - 2]).await;
    assert_eq!(kept["status"], "FINISHED");
    assert_eq!(kept["lifecycle_stage"], "active");
    assert_eq!(
        run_info(&app, ids.last().unwrap()).await["status"],
        "RUNNING"
    );
    let (_, table) = app
        .get_json(&format!(
            "/api/v1/experiments/{}/runs",
            app.experiment_id(DETECTION)
        ))
        .await;
    let live = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["run_name"].as_str().unwrap().starts_with(LIVE_RUN_PREFIX))
        .count();
    assert_eq!(live, 4, "three finished and the one in progress");
}

#[tokio::test]
async fn a_stopped_server_leaves_no_live_run_running() {
    let app = TestApp::demo();
    let bus = LiveBus::default();
    let mut demo = LiveDemo::new(app.store.clone());
    demo.tick(&bus, 1_800_000_000_000).unwrap();
    demo.tick(&bus, 1_800_000_001_000).unwrap();
    let id = demo.run_id().unwrap().to_string();
    drop(demo);
    assert_eq!(run_info(&app, &id).await["status"], "KILLED");

    // A run a crashed server left RUNNING is killed by the next start.
    let mut demo = LiveDemo::new(app.store.clone());
    demo.tick(&bus, 1_800_000_010_000).unwrap();
    let crashed = demo.run_id().unwrap().to_string();
    std::mem::forget(demo);
    let mut demo = LiveDemo::new(app.store.clone());
    demo.tick(&bus, 1_800_000_020_000).unwrap();
    assert_ne!(demo.run_id().unwrap(), crashed);
    assert_eq!(run_info(&app, &crashed).await["status"], "KILLED");
}

#[tokio::test]
async fn live_runs_logs_on_its_own_while_it_runs() {
    let app = TestApp::demo();
    let task = tokio::spawn(server::demo::live_runs(
        app.store.clone(),
        LiveBus::default(),
    ));
    tokio::time::sleep(std::time::Duration::from_millis(2_600)).await;
    task.abort();
    let _ = task.await;
    let id = app.run_id(&format!("{LIVE_RUN_PREFIX}1"));
    let loss = history(&app, &id, "loss").await;
    assert!(loss.len() as i64 >= STEPS_PER_TICK, "{}", loss.len());
    assert_eq!(
        run_info(&app, &id).await["status"],
        "KILLED",
        "the task ends with the runtime"
    );
}
