//! The demo's running fine-tuning job (`sft-13b-lr2e-5` on the demo nodes) while
//! `runlens serve --demo` serves: every tick of the live demo logs its next step, its
//! nodes print that step, its system metrics go on for every GPU the demo agents simulate,
//! its step never passes `max_steps`, and at `max_steps` it finishes.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use server::demo::{LiveDemo, DEMO_NODES, DEMO_NODE_GPUS};
use server::live::LiveBus;

use crate::helpers::binary::Server;
use crate::helpers::TestApp;

const RUN: &str = "sft-13b-lr2e-5";

async fn run(app: &TestApp, id: &str) -> Value {
    app.ok_get(&format!("/runs/get?run_id={id}")).await["run"].clone()
}

/// The run's `max_steps` param.
async fn max_steps(app: &TestApp, id: &str) -> i64 {
    let r = run(app, id).await;
    let params = r["data"]["params"].as_array().unwrap().clone();
    let p = params.iter().find(|p| p["key"] == "max_steps").unwrap();
    p["value"].as_str().unwrap().parse().unwrap()
}

/// The latest metrics' `(key, step)`s.
async fn latest(app: &TestApp, id: &str) -> Vec<(String, i64)> {
    let r = run(app, id).await;
    r["data"]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let key = m["key"].as_str().unwrap().to_string();
            (key, m["step"].as_i64().unwrap())
        })
        .collect()
}

async fn loss_step(app: &TestApp, id: &str) -> i64 {
    let metrics = latest(app, id).await;
    metrics.iter().find(|(k, _)| k == "train/loss").unwrap().1
}

async fn history_len(app: &TestApp, id: &str, key: &str) -> usize {
    let uri = format!("/metrics/get-history?run_id={id}&metric_key={key}");
    app.ok_get(&uri).await["metrics"]
        .as_array()
        .map_or(0, Vec::len)
}

/// `(step, max)` of a progress line (`... step 11212/100000 loss=...`).
fn progress(text: &str) -> Option<(i64, i64)> {
    let rest = text.split("step ").nth(1)?;
    let (step, rest) = rest.split_once('/')?;
    let max = rest.split_whitespace().next()?;
    Some((step.parse().ok()?, max.parse().ok()?))
}

/// The newest lines of `node`, oldest first.
async fn newest_lines(app: &TestApp, id: &str, node: &str) -> Vec<String> {
    let alice = app.token("alice");
    let uri = format!("/api/v1/runs/{id}/logs?node={node}&limit=200");
    let page = app.get_as(&alice, &uri).await;
    assert_eq!(page.status, 200, "{}", page.text);
    page.body["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap().to_string())
        .collect()
}

fn ticks(demo: &mut LiveDemo, bus: &LiveBus, t0: i64, n: i64) {
    for i in 0..n {
        demo.tick(bus, t0 + i * 1_000).expect("tick");
    }
}

fn now_ms() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since.unwrap().as_millis() as i64
}

#[tokio::test]
async fn the_running_demo_job_logs_steps_lines_and_system_metrics_that_agree() {
    let app = TestApp::demo();
    let id = app.run_id(RUN);
    let max = max_steps(&app, &id).await;
    let before = loss_step(&app, &id).await;
    let gpu = "system/demo-node-2/gpu_3_utilization_percentage";
    let samples = history_len(&app, &id, gpu).await;

    let bus = LiveBus::default();
    let mut demo = LiveDemo::new(app.store.clone());
    ticks(&mut demo, &bus, now_ms(), 12);

    let step = loss_step(&app, &id).await;
    assert_eq!(step, before + 12, "one step a tick");
    assert!(step <= max, "{step} > max_steps {max}");
    assert_eq!(run(&app, &id).await["info"]["status"], "RUNNING");
    for node in DEMO_NODES {
        let lines = newest_lines(&app, &id, node).await;
        let steps: Vec<(i64, i64)> = lines.iter().filter_map(|l| progress(l)).collect();
        assert!(
            steps.iter().all(|&(s, m)| s <= m && m == max),
            "{node}: {steps:?}"
        );
        let newest = steps.last().expect("a progress line");
        assert_eq!(
            newest.0, step,
            "{node}: the newest line prints the newest step"
        );
    }
    // Every node's system metrics name the GPUs its agent simulates, and go on.
    let metrics = latest(&app, &id).await;
    for node in DEMO_NODES {
        let prefix = format!("system/{node}/gpu_");
        let gpus: BTreeSet<&str> = metrics
            .iter()
            .filter_map(|(k, _)| k.strip_prefix(&prefix)?.split('_').next())
            .collect();
        assert_eq!(gpus.len(), DEMO_NODE_GPUS as usize, "{node}: {gpus:?}");
    }
    let grown = history_len(&app, &id, gpu).await - samples;
    assert_eq!(grown, 2, "a sample every 10 s");
}

#[tokio::test]
async fn the_running_demo_job_finishes_at_its_max_steps() {
    let app = TestApp::demo();
    let id = app.run_id(RUN);
    let max = max_steps(&app, &id).await;
    let now = now_ms();
    let at_max =
        json!({"run_id": id, "key": "train/loss", "value": 0.95, "timestamp": now, "step": max});
    app.ok("/runs/log-metric", at_max).await;

    let bus = LiveBus::default();
    let mut demo = LiveDemo::new(app.store.clone());
    ticks(&mut demo, &bus, now + 1_000, 3);

    assert_eq!(loss_step(&app, &id).await, max, "no step past max_steps");
    let info = run(&app, &id).await["info"].clone();
    assert_eq!(info["status"], "FINISHED");
    let alice = app.token("alice");
    let job = app.get_as(&alice, &format!("/api/v1/runs/{id}/job")).await;
    assert_eq!(job.body["job"]["status"], "SUCCEEDED", "{}", job.text);
    for node in DEMO_NODES {
        let lines = newest_lines(&app, &id, node).await;
        let closing = &lines[lines.len() - 2];
        assert!(
            closing.contains(&format!("training finished: {max} steps")),
            "{node}: {lines:?}"
        );
    }
}

#[test]
fn the_demo_agents_simulate_as_many_gpus_as_the_demo_logs() {
    let makefile = concat!(env!("CARGO_MANIFEST_DIR"), "/../Makefile");
    let text = std::fs::read_to_string(makefile).expect("Makefile");
    assert!(
        text.contains(&format!("--simulate-gpus {DEMO_NODE_GPUS} ")),
        "`make run` starts the demo agents with DEMO_NODE_GPUS GPUs"
    );
}

/// `runlens serve --demo` itself keeps the run logging (the live demo ticks every second).
#[test]
fn a_demo_server_keeps_the_running_job_logging() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), &["--demo"], &[("RUNLENS_LOG", "warn")]);
    let search = json!({
        "experiment_ids": [],
        "filter": format!("attributes.run_name = '{RUN}'"),
        "run_view_type": "ACTIVE_ONLY",
    });
    let id = {
        let exps = server.ok(
            "POST",
            "/api/2.0/mlflow/experiments/search",
            Some(&json!({"max_results": 100})),
        );
        let ids: Vec<Value> = exps["experiments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["experiment_id"].clone())
            .collect();
        let mut body = search.clone();
        body["experiment_ids"] = Value::Array(ids);
        let found = server.ok("POST", "/api/2.0/mlflow/runs/search", Some(&body));
        found["runs"][0]["info"]["run_id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let uri = format!("/api/2.0/mlflow/metrics/get-history?run_id={id}&metric_key=train/loss");
    let count = || {
        server.ok("GET", &uri, None)["metrics"]
            .as_array()
            .unwrap()
            .len()
    };
    let first = count();
    std::thread::sleep(std::time::Duration::from_secs(3));
    let second = count();
    assert!(second > first, "{first} points, then {second}");
}
