//! The demo's jobs: a two-node job run with a failed attempt and a successful retry that
//! bob may view, and a running job he may not, so its access message shows out of the box.

use crate::helpers::TestApp;

#[tokio::test]
async fn demo_jobs_show_a_retry_with_a_traceback_and_a_job_bob_may_not_view() {
    let app = TestApp::demo();
    let bob = app.token("bob");
    let failed = app.run_id("sft-7b-lr1e-4");
    let retried = app.run_id("sft-7b-lr1e-4-resumed");
    let running = app.run_id("sft-13b-lr2e-5");

    let job = app
        .get_as(&bob, &format!("/api/v1/runs/{failed}/job"))
        .await;
    assert_eq!(job.status, 200, "{}", job.text);
    let info = &job.body["job"];
    assert_eq!(info["job"]["name"], "sft-7b-lr1e-4");
    assert_eq!(info["attempt"], 1);
    assert_eq!(info["status"], "SUCCEEDED");
    assert_eq!(info["can_view_logs"], true);
    assert_eq!(
        info["nodes"],
        serde_json::json!(["demo-node-1", "demo-node-2"])
    );
    let attempts = info["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0]["status"], "FAILED");
    assert_eq!(attempts[1]["run_id"], retried.as_str());
    assert_eq!(attempts[1]["status"], "FINISHED");

    // The failed attempt ends in a traceback, parsed as ERROR, on both nodes.
    let errors = app
        .get_as(
            &bob,
            &format!("/api/v1/runs/{failed}/logs?level=ERROR&level_mode=exactly&limit=100"),
        )
        .await;
    assert_eq!(errors.status, 200, "{}", errors.text);
    let lines = errors.body["lines"].as_array().unwrap();
    let texts: Vec<&str> = lines.iter().map(|l| l["text"].as_str().unwrap()).collect();
    for node in ["demo-node-1", "demo-node-2"] {
        assert!(lines
            .iter()
            .any(|l| l["node"] == node && l["text"] == "Traceback (most recent call last):"));
    }
    assert!(texts
        .iter()
        .any(|t| t.starts_with("FloatingPointError: loss is nan at step 5420")));
    // Warnings, debug lines and ANSI colours are there too.
    let all = app
        .get_as(
            &bob,
            &format!("/api/v1/runs/{failed}/logs?limit=10000&earliest=true"),
        )
        .await;
    let all = all.body["lines"].as_array().unwrap().clone();
    assert!(all.len() > 1_000, "{}", all.len());
    assert!(all.iter().any(|l| l["level"] == "WARNING"));
    assert!(all.iter().any(|l| l["level"] == "DEBUG"));
    assert!(all
        .iter()
        .any(|l| l["text"].as_str().unwrap().contains("\u{1b}[32m")));

    // The running job is alice's alone: bob reads the experiment, not the logs.
    let job = app
        .get_as(&bob, &format!("/api/v1/runs/{running}/job"))
        .await;
    assert_eq!(job.status, 200, "{}", job.text);
    assert_eq!(job.body["job"]["can_view_logs"], false);
    assert_eq!(job.body["job"]["status"], "RUNNING");
    assert_eq!(
        job.body["job"]["managers"],
        serde_json::json!([{"kind": "user", "name": "alice"}])
    );
    let refused = app
        .get_as(&bob, &format!("/api/v1/runs/{running}/logs"))
        .await;
    assert_eq!(refused.status, 403, "{}", refused.text);
    assert!(refused.text.contains("You don't have access to these logs"));
    assert!(refused.text.contains("sft-13b") && refused.text.contains("alice"));
    assert!(!refused.text.contains("step "), "{}", refused.text);
    let alice = app.token("alice");
    let page = app
        .get_as(&alice, &format!("/api/v1/runs/{running}/logs"))
        .await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(!page.body["lines"].as_array().unwrap().is_empty());

    // Loading again changes nothing: no second job, no line stored twice.
    let before = all.len();
    server::demo::load(&app.store).unwrap();
    let again = app
        .get_as(
            &bob,
            &format!("/api/v1/runs/{failed}/logs?limit=10000&earliest=true"),
        )
        .await;
    assert_eq!(again.body["lines"].as_array().unwrap().len(), before);
    let runs = app.get_as(&alice, "/api/v1/job-runs?all_status=true").await;
    assert_eq!(runs.body["job_runs"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn the_running_demo_job_keeps_printing_on_both_nodes() {
    let app = TestApp::demo();
    let alice = app.token("alice");
    let running = app.run_id("sft-13b-lr2e-5");
    let count = |page: &serde_json::Value, node: &str| {
        page["lines"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["node"] == node && l["text"].as_str().unwrap().contains("INFO trainer"))
            .count()
    };
    let uri = format!("/api/v1/runs/{running}/logs?limit=10000&q=INFO%20trainer");
    let before = app.get_as(&alice, &uri).await.body;
    // Two ticks of the live demo, as `runlens serve --demo` runs it every second.
    let bus = server::live::LiveBus::default();
    let mut demo = server::demo::LiveDemo::new(app.store.clone());
    demo.tick(&bus, 1_800_000_000_000).unwrap();
    demo.tick(&bus, 1_800_000_001_000).unwrap();
    let after = app.get_as(&alice, &uri).await.body;
    for node in ["demo-node-1", "demo-node-2"] {
        assert_eq!(count(&after, node), count(&before, node) + 2, "{node}");
    }
    assert!(
        after["gaps"].as_array().unwrap().is_empty(),
        "{}",
        after["gaps"]
    );
}
