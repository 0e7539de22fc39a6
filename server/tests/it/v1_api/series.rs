//! Downsampled metric series over HTTP.

use api_types as json;

use crate::helpers::TestApp;

async fn series(app: &TestApp, uri: &str) -> json::MetricSeries {
    let (status, bytes) = app.get_raw(uri).await;
    assert_eq!(status, 200, "{uri}: {}", String::from_utf8_lossy(&bytes));
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test]
async fn a_whole_series_is_reduced_to_the_width() {
    let app = TestApp::demo();
    let run = app.run_id("sft-7b-lr2e-5");
    let s = series(
        &app,
        &format!("/api/v1/runs/{run}/series?key=train/loss&width=500"),
    )
    .await;
    assert_eq!(s.total_points, 12_001);
    assert_eq!(s.points_in_range, 12_001);
    assert_eq!(s.x_axis, json::XAxis::Step);
    assert_eq!(s.x_extent, Some((0.0, 12_000.0)));
    assert!(
        s.points.len() <= 2_000 && s.points.len() > 500,
        "{}",
        s.points.len()
    );
    assert_eq!(s.points.first().unwrap().step, 0);
    assert_eq!(s.points.last().unwrap().step, 12_000);
    // The loss spike at step 7,777 is kept with its stored value (read back through the
    // MLflow dialect), which is the highest of its neighbourhood.
    let (status, h) = app
        .get(&format!(
            "/metrics/get-history?run_id={run}&metric_key=train/loss&max_results=25000"
        ))
        .await;
    assert_eq!(status, 200, "{h}");
    let stored = |step: i64| -> f64 {
        h["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["step"] == step)
            .and_then(|m| m["value"].as_f64())
            .unwrap_or_else(|| panic!("step {step} not stored"))
    };
    let spike = s
        .points
        .iter()
        .find(|p| p.step == 7_777)
        .expect("the spike's step is kept");
    assert_eq!(spike.value.0, stored(7_777), "the spike keeps its value");
    assert!(
        spike.value.0 > 2.0 * stored(7_776) && spike.value.0 > 2.0 * stored(7_778),
        "{} vs {} / {}",
        spike.value.0,
        stored(7_776),
        stored(7_778)
    );
    let near: Vec<f64> = s
        .points
        .iter()
        .filter(|p| (7_000..8_500).contains(&p.step))
        .map(|p| p.value.0)
        .collect();
    assert!(near.iter().all(|v| *v <= spike.value.0), "{near:?}");
    assert!(s.non_finite.is_empty());
}

#[tokio::test]
async fn zoomed_and_time_axes() {
    let app = TestApp::demo();
    let run = app.run_id("sft-7b-lr2e-5");
    let base = format!("/api/v1/runs/{run}/series?key=train/loss");
    let s = series(&app, &format!("{base}&x_min=1000.5&x_max=2000&width=2000")).await;
    assert_eq!(s.points_in_range, 1_000);
    assert_eq!(s.total_points, 12_001);
    assert_eq!(s.points.len(), 1_000, "fewer points than pixels: all kept");
    assert_eq!(s.points[0].step, 1_001);

    let wall = series(&app, &format!("{base}&x=wall&width=100")).await;
    let (lo, hi) = wall.x_extent.unwrap();
    assert!(hi - lo > 12_000.0 * 600.0);
    assert_eq!(wall.points_in_range, 12_001);
    assert!(wall
        .points
        .windows(2)
        .all(|w| w[0].timestamp <= w[1].timestamp));

    let rel = series(&app, &format!("{base}&x=relative&x_max=60000")).await;
    assert_eq!(
        rel.x_extent.map(|e| e.0),
        Some(lo - wall.run_start_time as f64)
    );
    assert!(rel
        .points
        .iter()
        .all(|p| p.timestamp - rel.run_start_time <= 60_000));
    assert!(
        rel.points_in_range > 90 && rel.points_in_range < 100,
        "{}",
        rel.points_in_range
    );
}

#[tokio::test]
async fn non_finite_points_and_missing_keys() {
    let app = TestApp::demo();
    let run = app.run_id("sft-7b-lr1e-4");
    let s = series(
        &app,
        &format!("/api/v1/runs/{run}/series?key=train/loss&width=1000"),
    )
    .await;
    assert!(!s.non_finite.is_empty());
    assert!(s.non_finite.iter().all(|p| p.value.0.is_nan()));
    assert!(s.points.iter().all(|p| p.value.0.is_finite()));
    let g = series(
        &app,
        &format!("/api/v1/runs/{run}/series?key=train/grad_norm"),
    )
    .await;
    assert!(g.non_finite.iter().any(|p| p.value.0 == f64::INFINITY));

    let none = series(&app, &format!("/api/v1/runs/{run}/series?key=never/logged")).await;
    assert_eq!(none.total_points, 0);
    assert_eq!(none.x_extent, None);
    assert!(none.points.is_empty());
}

#[tokio::test]
async fn a_spike_among_200k_points_reaches_the_chart() {
    let app = TestApp::new();
    let run = "00000000000000000000000000000abc";
    let n = 200_000i64;
    app.insert_series(
        run,
        "loss",
        (0..n).map(|i| {
            let v = if i == 123_457 {
                50.0
            } else {
                1.0 + (i as f64 * 0.01).sin() * 0.1
            };
            (i, 1_000 + i * 10, v)
        }),
    );
    let s = series(
        &app,
        &format!("/api/v1/runs/{run}/series?key=loss&width=800"),
    )
    .await;
    assert_eq!(s.total_points, n as u64);
    assert!(s.points.len() <= 3_200);
    assert!(s
        .points
        .iter()
        .any(|p| p.step == 123_457 && p.value.0 == 50.0));
    let wall = series(
        &app,
        &format!("/api/v1/runs/{run}/series?key=loss&width=800&x=wall"),
    )
    .await;
    assert!(wall.points.len() <= 3_200);
    assert!(wall
        .points
        .iter()
        .any(|p| p.step == 123_457 && p.value.0 == 50.0));
}
