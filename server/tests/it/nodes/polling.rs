//! The on-demand poller against real (fake) agents: N viewers cost one agent call per node
//! per interval, nothing is called while nobody asks, a dead or slow agent is reported
//! unreachable while the other nodes stay live, and history is back-filled.

use std::time::{Duration, Instant};

use futures_util::future::join_all;

use super::agent::{sample, FakeAgent};
use super::{gpus, history_at, register, view};
use crate::helpers::binary::free_port;
use crate::helpers::TestApp;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_viewers_cost_one_agent_call_per_node_per_interval() {
    let app = TestApp::new();
    let a = FakeAgent::start("fan-a", "tok-a").await;
    let b = FakeAgent::start("fan-b", "tok-b").await;
    register(&app, "fan-a", &a.url, "tok-a", 3).await;
    register(&app, "fan-b", &b.url, "tok-b", 3).await;

    let viewers = (0..20).map(|_| gpus(&app, &app.admin_token, "fan-a,fan-b", None));
    let answers = join_all(viewers).await;
    for r in &answers {
        assert_eq!(r.status, 200, "{}", r.text);
        for node in ["fan-a", "fan-b"] {
            assert_eq!(view(&r.body, node)["state"]["status"], "live", "{}", r.text);
        }
    }
    assert_eq!(
        (a.calls(), b.calls()),
        (1, 1),
        "one call per node for 20 viewers"
    );

    // Nobody asks for longer than the interval: the agents are not called.
    tokio::time::sleep(Duration::from_millis(3500)).await;
    assert_eq!(
        (a.calls(), b.calls()),
        (1, 1),
        "no calls while nobody watches"
    );

    // The next interval: one more call per node, again for 20 viewers.
    let viewers = (0..20).map(|_| gpus(&app, &app.admin_token, "fan-a,fan-b", None));
    for r in join_all(viewers).await {
        assert_eq!(r.status, 200, "{}", r.text);
    }
    assert_eq!((a.calls(), b.calls()), (2, 2), "one more call per node");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_agent_is_unreachable_with_last_seen_while_the_other_stays_live() {
    let app = TestApp::new();
    let live = FakeAgent::start("live", "tok").await;
    let mut dying = FakeAgent::start("dying", "tok").await;
    let wrong = FakeAgent::start("wrong-token", "the-right-token").await;
    register(&app, "live", &live.url, "tok", 1).await;
    register(&app, "dying", &dying.url, "tok", 1).await;
    register(&app, "wrong-token", &wrong.url, "not-the-token", 1).await;
    let never = format!("http://127.0.0.1:{}", free_port());
    register(&app, "never-up", &never, "tok", 1).await;
    let all = "live,dying,wrong-token,never-up";

    let r = gpus(&app, &app.admin_token, all, None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(view(&r.body, "live")["state"]["status"], "live");
    assert_eq!(view(&r.body, "dying")["state"]["status"], "live");
    let seen = view(&r.body, "dying")["last_seen_ms"]
        .as_i64()
        .expect("seen");
    let never_up = view(&r.body, "never-up");
    assert_eq!(never_up["state"]["status"], "unreachable", "{never_up}");
    let reason = never_up["state"]["reason"].as_str().unwrap();
    assert!(reason.starts_with("cannot connect"), "{reason}");
    assert!(
        !reason.contains("127.0.0.1"),
        "the reason names no URL: {reason}"
    );
    assert!(never_up.get("last_seen_ms").is_none() && never_up.get("snapshot").is_none());
    let wrong_token = view(&r.body, "wrong-token");
    assert_eq!(
        wrong_token["state"],
        serde_json::json!({"status": "unreachable", "reason": "agent answered 401"})
    );

    dying.stop().await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    live.push(sample(server::util::now_ms(), 77));
    let r = gpus(&app, &app.admin_token, all, None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let dead = view(&r.body, "dying");
    assert_eq!(dead["state"]["status"], "unreachable", "{dead}");
    assert_eq!(dead["last_seen_ms"].as_i64(), Some(seen), "last seen kept");
    assert_eq!(
        dead["snapshot"]["node"], "dying",
        "last snapshot kept: {dead}"
    );
    let live_view = view(&r.body, "live");
    assert_eq!(live_view["state"]["status"], "live");
    assert_eq!(
        live_view["snapshot"]["gpus"][0]["utilization_percent"], 77,
        "the live node keeps updating"
    );
    assert_eq!(live.calls(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_agents_time_out_after_3_s_concurrently_without_holding_up_the_others() {
    let app = TestApp::new();
    let fast = FakeAgent::start("fast", "tok").await;
    let slow1 = FakeAgent::start("slow1", "tok").await;
    let slow2 = FakeAgent::start("slow2", "tok").await;
    slow1.set_delay(Duration::from_secs(8));
    slow2.set_delay(Duration::from_secs(8));
    for (n, a) in [("fast", &fast), ("slow1", &slow1), ("slow2", &slow2)] {
        register(&app, n, &a.url, "tok", 1).await;
    }
    let started = Instant::now();
    let r = gpus(&app, &app.admin_token, "fast,slow1,slow2", None).await;
    let took = started.elapsed();
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(view(&r.body, "fast")["state"]["status"], "live");
    for n in ["slow1", "slow2"] {
        assert_eq!(
            view(&r.body, n)["state"],
            serde_json::json!({"status": "unreachable", "reason": "timed out after 3 s"})
        );
    }
    // Polled one after the other, two slow agents would take 6 s.
    assert!(
        took >= Duration::from_millis(2900) && took < Duration::from_millis(5500),
        "took {took:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_is_back_filled_from_the_agent_and_served_from_the_server_ring() {
    let app = TestApp::new();
    let agent = FakeAgent::start("ring", "tok").await;
    let t0 = server::util::now_ms() - 60_000;
    agent.set_samples(
        (0..3)
            .map(|i| sample(t0 + i * 1000, 10 + i as u32))
            .collect(),
    );
    register(&app, "ring", &agent.url, "tok", 2).await;

    // First poll: the server asks for the last 2 h, the viewer gets what is after its since.
    let before = server::util::now_ms();
    let r = gpus(&app, &app.admin_token, "ring", Some(t0 + 500)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(history_at(view(&r.body, "ring")), [t0 + 1000, t0 + 2000]);
    let first = agent.sinces()[0].expect("since");
    let two_hours = 2 * 3600 * 1000;
    assert!(
        (before - two_hours - 5000..=server::util::now_ms() - two_hours).contains(&first),
        "first call asks for 2 h: {first}"
    );
    let without = gpus(&app, &app.admin_token, "ring", None).await;
    assert!(history_at(view(&without.body, "ring")).is_empty());

    // While nobody watches the agent samples on; the next poll asks only for what is newer
    // than the newest sample held, and the server's ring serves the whole history.
    agent.push(sample(t0 + 3000, 13));
    agent.push(sample(t0 + 4000, 14));
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let r = gpus(&app, &app.admin_token, "ring", Some(0)).await;
    let at = history_at(view(&r.body, "ring"));
    assert_eq!(at, (0..5).map(|i| t0 + i * 1000).collect::<Vec<_>>());
    assert_eq!(agent.sinces().last().copied().flatten(), Some(t0 + 2000));
    assert_eq!(agent.calls(), 2);
    let latest = &view(&r.body, "ring")["snapshot"];
    assert_eq!(latest["at_ms"], t0 + 4000);
    assert_eq!(latest["gpus"][0]["utilization_percent"], 14);
}
