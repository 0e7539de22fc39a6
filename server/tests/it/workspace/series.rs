//! `GET /experiments/{id}/series`: one request for many (run, key) series, runs of other
//! experiments kept out, limits, another metric as x; and the relative axis' origin on
//! both series routes.

use api_types::workspace::SeriesBatch;
use api_types::MetricSeries;
use serde_json::Value;

use super::log_points;
use crate::helpers::TestApp;

/// Start of the runs made by `TestApp::run`.
const START: i64 = 1_700_000_000_000;

async fn batch(app: &TestApp, exp: &str, query: &str) -> SeriesBatch {
    let uri = format!("/api/v1/experiments/{exp}/series?{query}");
    let r = app.get_as(&app.admin_token, &uri).await;
    assert_eq!(r.status, 200, "{uri}: {}", r.text);
    assert!(r.header("content-type").starts_with("application/json"));
    serde_json::from_str(&r.text).unwrap_or_else(|e| panic!("{e}: {}", r.text))
}

async fn single(app: &TestApp, run: &str, query: &str) -> MetricSeries {
    let (status, v) = app
        .get_json(&format!("/api/v1/runs/{run}/series?{query}"))
        .await;
    assert_eq!(status, 200, "{v}");
    serde_json::from_value(v).unwrap()
}

#[tokio::test]
async fn a_batch_is_every_series_in_order_and_other_experiments_runs_are_missing() {
    let app = TestApp::new();
    let exp = app.experiment("workspace").await;
    let other = app.experiment("elsewhere").await;
    let (a, b) = (app.run(&exp, "a").await, app.run(&exp, "b").await);
    let foreign = app.run(&other, "foreign").await;
    let loss_a: Vec<_> = (0..5_000)
        .map(|i| ("loss", i, START + i, (i as f64 * 0.01).sin()))
        .collect();
    log_points(&app, &a, &loss_a).await;
    log_points(
        &app,
        &a,
        &[("acc", 0, START, 0.5), ("acc", 1, START + 1, 0.75)],
    )
    .await;
    log_points(&app, &b, &[("loss", 0, START, 2.0)]).await;
    log_points(&app, &foreign, &[("loss", 0, START, 123_456.789)]).await;
    let unknown = "f".repeat(32);
    let q = format!(
        "run={b}&run={a}&run={foreign}&run={unknown}&run={a}&key=loss&key=acc&key=loss&width=200"
    );
    let got = batch(&app, &exp, &q).await;
    assert_eq!(got.missing, [foreign.clone(), unknown]);
    let order: Vec<(&str, &str)> = got
        .series
        .iter()
        .map(|s| (s.run_id.as_str(), s.key.as_str()))
        .collect();
    assert_eq!(
        order,
        [
            (b.as_str(), "loss"),
            (b.as_str(), "acc"),
            (a.as_str(), "loss"),
            (a.as_str(), "acc")
        ]
    );
    // Each series is what the single-run route answers for the same view.
    for s in &got.series {
        let one = single(&app, &s.run_id, &format!("key={}&width=200", s.key)).await;
        assert_eq!(*s, one);
    }
    assert!(got.series[1].points.is_empty() && got.series[1].x_extent.is_none());
    assert!(got.series[2].points.len() <= 800 && got.series[2].total_points == 5_000);
    // Nothing of the foreign run is read out.
    let text = app
        .get_as(
            &app.admin_token,
            &format!("/api/v1/experiments/{exp}/series?{q}"),
        )
        .await
        .text;
    assert!(!text.contains("123456"), "{text}");
    // Only a foreign run: every run is missing, no series.
    let got = batch(&app, &exp, &format!("run={foreign}&key=loss")).await;
    assert!(got.series.is_empty());
    assert_eq!(got.missing, [foreign]);
}

#[tokio::test]
async fn bad_batches_answer_400_naming_the_parameter() {
    let app = TestApp::new();
    let exp = app.experiment("limits").await;
    let run = app.run(&exp, "r").await;
    let runs = |n: usize| -> String {
        (0..n)
            .map(|i| format!("run={i:032x}"))
            .collect::<Vec<_>>()
            .join("&")
    };
    let keys = |n: usize| -> String {
        (0..n)
            .map(|i| format!("key=k{i}"))
            .collect::<Vec<_>>()
            .join("&")
    };
    let cases = [
        ("key=loss".to_string(), "run"),
        (format!("run={run}"), "key"),
        (format!("{}&key=loss", runs(101)), "run"),
        (format!("run={run}&{}", keys(51)), "key"),
        (format!("{}&{}", runs(100), keys(11)), "series"),
        (format!("run={run}&key=loss&x=epoch"), "x"),
        (format!("run={run}&key=loss&width=0"), "width"),
        (format!("run={run}&key=loss&width=wide"), "width"),
        (format!("run={run}&key=loss&x_min=abc"), "x_min"),
        (format!("run={run}&key=loss&x_max=inf"), "x_max"),
        (format!("run={run}&key=loss&x_min=5&x_max=1"), "x_min"),
    ];
    for (q, part) in cases {
        let r = app
            .get_as(
                &app.admin_token,
                &format!("/api/v1/experiments/{exp}/series?{q}"),
            )
            .await;
        assert_eq!(r.status, 400, "{q}: {}", r.text);
        assert_eq!(r.body["code"], "INVALID_PARAMETER", "{q}: {}", r.text);
        let msg = r.body["message"].as_str().unwrap_or("");
        assert!(msg.contains(part), "{q}: {msg}");
    }
    // The limits themselves are accepted.
    let got = batch(&app, &exp, &format!("{}&{}", runs(100), keys(10))).await;
    assert_eq!(got.missing.len(), 100);
    let r = app
        .get_as(
            &app.admin_token,
            "/api/v1/experiments/987654/series?run=a&key=b",
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
}

#[tokio::test]
async fn another_metric_as_x_pairs_each_point_with_its_value_at_the_same_step() {
    let app = TestApp::new();
    let exp = app.experiment("x-key").await;
    let run = app.run(&exp, "r").await;
    let bare = app.run(&exp, "no-epoch").await;
    let mut points: Vec<(&str, i64, i64, f64)> = (0..1_000)
        .map(|s| ("loss", s, START + s, 1.0 / (1.0 + s as f64)))
        .collect();
    points.push(("loss", 300, START + 5_000, f64::NAN));
    // epoch is logged every 10 steps; at step 20 twice (the later value counts) and at
    // step 500 as NaN (no x there).
    for s in (0..1_000).step_by(10) {
        let v = if s == 500 { f64::NAN } else { s as f64 / 100.0 };
        points.push(("epoch", s, START + s, v));
    }
    points.push(("epoch", 20, START + 9_999, 0.25));
    log_points(&app, &run, &points).await;
    log_points(&app, &bare, &[("loss", 0, START, 1.0)]).await;
    let x_of = |step: i64| {
        if step == 20 {
            0.25
        } else {
            step as f64 / 100.0
        }
    };

    let got = batch(
        &app,
        &exp,
        &format!("run={run}&run={bare}&key=loss&x_key=epoch&x=wall"),
    )
    .await;
    let s = &got.series[0];
    assert_eq!(s.x_axis, api_types::XAxis::Step);
    assert_eq!(s.x_extent, Some((0.0, 999.0)));
    assert_eq!(s.points.len(), 99, "every 10th step but 500");
    assert_eq!(s.x_values.len(), s.points.len());
    assert!(s.non_finite.is_empty());
    for (p, x) in s.points.iter().zip(&s.x_values) {
        assert!(p.step % 10 == 0 && p.step != 500, "{p:?}");
        assert_eq!(x.0, x_of(p.step), "{p:?}");
        assert_eq!(p.value.0, 1.0 / (1.0 + p.step as f64));
    }
    assert!(got.series[1].points.is_empty() && got.series[1].x_values.is_empty());

    // Zoom is by step; a narrow chart keeps at most 4 points per column, paired alike.
    let zoomed = batch(
        &app,
        &exp,
        &format!("run={run}&key=loss&x_key=epoch&x_min=100&x_max=200"),
    )
    .await;
    let steps: Vec<i64> = zoomed.series[0].points.iter().map(|p| p.step).collect();
    assert_eq!(steps, (100..=200).step_by(10).collect::<Vec<_>>());
    let narrow = batch(
        &app,
        &exp,
        &format!("run={run}&key=loss&x_key=epoch&width=5"),
    )
    .await;
    let s = &narrow.series[0];
    assert!(
        !s.points.is_empty() && s.points.len() <= 20,
        "{}",
        s.points.len()
    );
    for (p, x) in s.points.iter().zip(&s.x_values) {
        assert_eq!(x.0, x_of(p.step));
    }
    // A key never logged as x: no points.
    let none = batch(&app, &exp, &format!("run={run}&key=loss&x_key=tokens")).await;
    assert!(none.series[0].points.is_empty());
    assert_eq!(none.series[0].total_points, 1_001);
}

#[tokio::test]
async fn the_relative_axis_starts_at_the_first_point_when_points_precede_the_run_start() {
    let app = TestApp::new();
    let exp = app.experiment("clock-skew").await;
    let early = app.run(&exp, "early").await;
    let normal = app.run(&exp, "normal").await;
    // Ten of twenty points were logged before the run's start (a client clock behind).
    let points: Vec<_> = (0..20)
        .map(|i| ("loss", i, START - 10_000 + i * 1_000, i as f64))
        .collect();
    log_points(&app, &early, &points).await;
    let later: Vec<_> = (0..20)
        .map(|i| ("loss", i, START + 5_000 + i * 1_000, i as f64))
        .collect();
    log_points(&app, &normal, &later).await;

    let s = single(&app, &early, "key=loss&x=relative").await;
    assert_eq!(s.run_start_time, START - 10_000);
    assert_eq!(s.x_extent, Some((0.0, 19_000.0)));
    assert_eq!(s.points.len(), 20);
    assert!(s.points.iter().all(|p| p.timestamp >= s.run_start_time));
    // Zooming is in the same relative times.
    let z = single(&app, &early, "key=loss&x=relative&x_min=0&x_max=4000").await;
    assert_eq!(
        z.points.iter().map(|p| p.step).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    // The origin is the same on every axis (the tooltip's relative time).
    let by_step = single(&app, &early, "key=loss").await;
    assert_eq!(by_step.run_start_time, START - 10_000);
    // A run whose points follow its start keeps the start as origin.
    let n = single(&app, &normal, "key=loss&x=relative").await;
    assert_eq!(n.run_start_time, START);
    assert_eq!(n.x_extent, Some((5_000.0, 24_000.0)));

    let got = batch(
        &app,
        &exp,
        &format!("run={early}&run={normal}&key=loss&x=relative"),
    )
    .await;
    assert_eq!(got.series[0], s);
    assert_eq!(got.series[1], n);
}

/// The answer is JSON that `serde_json` reads as the contract type even for many series.
#[tokio::test]
async fn a_large_batch_streams_valid_json() {
    let app = TestApp::new();
    let exp = app.experiment("many").await;
    let mut runs = Vec::new();
    for i in 0..20 {
        let run = app.run(&exp, &format!("r{i}")).await;
        let pts: Vec<(String, i64, i64, f64)> = (0..10)
            .flat_map(|k| (0..50).map(move |s| (format!("m{k}"), s, START + s, (s * k) as f64)))
            .collect();
        let pts: Vec<(&str, i64, i64, f64)> = pts
            .iter()
            .map(|(k, s, t, v)| (k.as_str(), *s, *t, *v))
            .collect();
        log_points(&app, &run, &pts).await;
        runs.push(run);
    }
    let q: Vec<String> = runs
        .iter()
        .map(|r| format!("run={r}"))
        .chain((0..10).map(|k| format!("key=m{k}")))
        .collect();
    let got = batch(&app, &exp, &q.join("&")).await;
    assert_eq!(got.series.len(), 200);
    assert!(got.series.iter().all(|s| s.points.len() == 50));
    let v: Value = serde_json::to_value(&got).unwrap();
    assert!(v["missing"].as_array().unwrap().is_empty());
}
