//! metrics/get-history and get-history-bulk-interval

use serde_json::{json, Value};

use crate::helpers::{assert_error, TestApp};

async fn seeded(app: &TestApp, n: i64) -> String {
    let id = app.run("0", "r").await;
    let metrics: Vec<Value> = (0..n)
        .map(|i| json!({"key": "loss", "value": (n - i) as f64, "timestamp": 1000 - i, "step": i}))
        .collect();
    app.ok("/runs/log-batch", json!({"run_id": id, "metrics": metrics}))
        .await;
    id
}

#[tokio::test]
async fn history_is_ordered_by_timestamp_and_paged() {
    let app = TestApp::new();
    let id = seeded(&app, 10).await;
    let all = app
        .ok_get(&format!("/metrics/get-history?run_id={id}&metric_key=loss"))
        .await;
    let steps: Vec<i64> = all["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["step"].as_i64().unwrap())
        .collect();
    assert_eq!(steps, (0..10).rev().collect::<Vec<_>>());
    assert!(all.get("next_page_token").is_none());
    assert_eq!(
        all["metrics"][0],
        json!({"key": "loss", "value": 1.0, "timestamp": 991, "step": 9})
    );
    let mut got = Vec::new();
    let mut token = String::new();
    loop {
        let v = app
            .ok_get(&format!("/metrics/get-history?run_uuid={id}&metric_key=loss&max_results=4&page_token={token}"))
            .await;
        got.extend(
            v["metrics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["step"].as_i64().unwrap()),
        );
        match v["next_page_token"].as_str() {
            Some(t) => token = t.replace('=', "%3D"),
            None => break,
        }
    }
    assert_eq!(got, steps);
    let none = app
        .ok_get(&format!("/metrics/get-history?run_id={id}&metric_key=nope"))
        .await;
    assert_eq!(none, json!({}));
}

#[tokio::test]
async fn history_errors() {
    let app = TestApp::new();
    let id = seeded(&app, 1).await;
    let r = app
        .get("/metrics/get-history?run_id=0123456789abcdef0123456789abcdef&metric_key=a")
        .await;
    assert_error(&r, 404, "RESOURCE_DOES_NOT_EXIST", "not found");
    let r = app.get(&format!("/metrics/get-history?run_id={id}")).await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "metric_key");
    let r = app
        .get(&format!(
            "/metrics/get-history?run_id={id}&metric_key=loss&page_token=xx"
        ))
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "Invalid page token");
    let r = app
        .get(&format!(
            "/metrics/get-history?run_id={id}&metric_key=loss&max_results=abc"
        ))
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "max_results");
}

/// `(step, timestamp, value)` of each point that `run` has in a bulk-interval answer.
fn points_of(v: &Value, run: &str) -> Vec<(i64, i64, f64)> {
    v["metrics"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|m| m["run_id"] == run)
        .map(|m| {
            (
                m["step"].as_i64().unwrap(),
                m["timestamp"].as_i64().unwrap(),
                m["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// A new run with metric `s`: one point per `(step, timestamp, value)`.
async fn logged(app: &TestApp, points: impl IntoIterator<Item = (i64, i64, f64)>) -> String {
    let id = app.run("0", "r").await;
    let all: Vec<Value> = points
        .into_iter()
        .map(|(step, ts, v)| json!({"key": "s", "value": v, "timestamp": ts, "step": step}))
        .collect();
    for batch in all.chunks(1000) {
        app.ok("/runs/log-batch", json!({"run_id": id, "metrics": batch}))
            .await;
    }
    id
}

fn steps(points: &[(i64, i64, f64)]) -> Vec<i64> {
    points.iter().map(|p| p.0).collect()
}

/// MLflow 3.17.2's sample: NTILE(max_results) buckets over each run's own points, each
/// bucket's first point, the run's last point in place of the last bucket's first.
#[tokio::test]
async fn bulk_interval_samples_each_run_on_its_own() {
    let app = TestApp::new();
    let a = seeded(&app, 100).await;
    let b = logged(&app, (0..1000).map(|i| (i * 3, 5, -(i as f64)))).await;
    let v = app
        .ok_get(&format!("/metrics/get-history-bulk-interval?run_ids={a}&run_ids={b}&metric_key=loss&max_results=10"))
        .await;
    let sa = points_of(&v, &a);
    let mut want: Vec<i64> = (0..9).map(|k| k * 10).collect();
    want.push(99);
    assert_eq!(steps(&sa), want);
    assert!(sa
        .iter()
        .all(|p| p.2 == (100 - p.0) as f64 && p.1 == 1000 - p.0));
    assert_eq!(v["metrics"][0]["key"], "loss");
    // b logged no `loss`; asked for `s`, its own 1,000 points give its own sample
    // (a sample common to both runs would pick a's steps 0..99 out of b's 0..2997).
    let v = app
        .ok_get(&format!("/metrics/get-history-bulk-interval?run_ids={a}&run_ids={b}&metric_key=s&max_results=10"))
        .await;
    assert!(points_of(&v, &a).is_empty());
    let mut want: Vec<i64> = (0..9).map(|k| k * 300).collect();
    want.push(2997);
    assert_eq!(steps(&points_of(&v, &b)), want);
    // Runs answer in the order asked for.
    let c = seeded(&app, 5).await;
    let v = app
        .ok_get(&format!("/metrics/get-history-bulk-interval?run_ids={c}&run_ids={a}&metric_key=loss&max_results=10"))
        .await;
    let order: Vec<&str> = v["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["run_id"].as_str().unwrap())
        .collect();
    assert_eq!(order.len(), 15);
    assert!(order[..5].iter().all(|r| *r == c) && order[5..].iter().all(|r| *r == a));
    let v = app
        .ok_get(&format!("/metrics/get-history-bulk-interval?run_ids={a}&metric_key=loss&start_step=10&end_step=20"))
        .await;
    assert_eq!(steps(&points_of(&v, &a)), (10..=20).collect::<Vec<_>>());
}

/// Steps logged at two timestamps: with room for every point all come back (as MLflow); when
/// sampled, a bucket gives one point, the step's first (as MLflow), not every point of it.
#[tokio::test]
async fn bulk_interval_samples_points_not_steps() {
    let app = TestApp::new();
    let twice = (0..1000).flat_map(|s| [(s, 1, 2.0 * s as f64), (s, 2, 2.0 * s as f64 + 1.0)]);
    let id = logged(&app, twice).await;
    let base = format!("/metrics/get-history-bulk-interval?run_ids={id}&metric_key=s");
    let got = points_of(&app.ok_get(&format!("{base}&max_results=100")).await, &id);
    assert_eq!(got.len(), 100, "{got:?}");
    let mut want: Vec<(i64, i64)> = (0..99).map(|k| (k * 10, 1)).collect();
    want.push((999, 2));
    assert_eq!(got.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(), want);
    let few = points_of(
        &app.ok_get(&format!("{base}&start_step=5&end_step=6")).await,
        &id,
    );
    assert_eq!(
        few,
        vec![(5, 1, 10.0), (5, 2, 11.0), (6, 1, 12.0), (6, 2, 13.0)]
    );
}

/// runlens keeps what MLflow's sample hides: a spike between two sampled points comes back
/// as an extra point (here off the NTILE grid: 20,000 points in 320 buckets of 62 or 63).
#[tokio::test]
async fn bulk_interval_keeps_a_spike_off_the_grid() {
    let app = TestApp::new();
    let id = logged(
        &app,
        (0..20_000).map(|s| (s, 1, if s == 7_777 { 100.0 } else { 1.0 })),
    )
    .await;
    let v = app
        .ok_get(&format!(
            "/metrics/get-history-bulk-interval?run_ids={id}&metric_key=s&max_results=320"
        ))
        .await;
    let got = points_of(&v, &id);
    let spikes: Vec<_> = got.iter().filter(|p| p.2 != 1.0).collect();
    assert_eq!(spikes, vec![&(7_777, 1, 100.0)]);
    assert_eq!(got.len(), 321);
}

#[tokio::test]
async fn bulk_interval_errors() {
    let app = TestApp::new();
    let id = seeded(&app, 3).await;
    let base = "/metrics/get-history-bulk-interval";
    let hint = " See the API docs for more information about request parameters.";
    let exact = |r: &(axum::http::StatusCode, Value), msg: String| {
        assert_eq!(r.0.as_u16(), 400, "{}", r.1);
        assert_eq!(r.1["error_code"], "INVALID_PARAMETER_VALUE", "{}", r.1);
        assert_eq!(r.1["message"], msg.as_str());
    };
    let r = app.get(&format!("{base}?metric_key=loss")).await;
    exact(
        &r,
        format!("Missing value for required parameter 'run_ids'.{hint}"),
    );
    let many: Vec<String> = (0..101).map(|i| format!("run_ids=r{i}")).collect();
    let r = app
        .get(&format!("{base}?{}&metric_key=loss", many.join("&")))
        .await;
    exact(
        &r,
        format!(
            "GetMetricHistoryBulkInterval request must specify at most 100 run_ids. \
             Received 101 run_ids.{hint}"
        ),
    );
    for q in ["", "&metric_key="] {
        let r = app.get(&format!("{base}?run_ids={id}{q}")).await;
        exact(
            &r,
            format!("Missing value for required parameter 'metric_key'.{hint}"),
        );
    }
    let r = app
        .get(&format!("{base}?run_ids={id}&metric_key=loss&start_step=1"))
        .await;
    exact(
        &r,
        "If either start step or end step are specified, both must be specified.".into(),
    );
    let r = app
        .get(&format!(
            "{base}?run_ids={id}&metric_key=loss&start_step=5&end_step=3"
        ))
        .await;
    exact(
        &r,
        "end_step must be greater than start_step. Found start_step=5 and end_step=3.".into(),
    );
    for m in ["0", "2501", "-1"] {
        let r = app
            .get(&format!(
                "{base}?run_ids={id}&metric_key=loss&max_results={m}&start_step=5&end_step=3"
            ))
            .await;
        exact(&r, format!("max_results must be between 1 and 2500.{hint}"));
    }
    let r = app
        .get(&format!(
            "{base}?run_ids={id}&metric_key=loss&max_results=abc"
        ))
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "max_results");
}

/// The id of metric `s`'s series in `run`.
fn series_id(app: &TestApp, run: &str) -> i64 {
    let run = run.to_owned();
    app.store
        .blocking(move |c| {
            Ok(c.query_row(
                "SELECT series_id FROM metric_series WHERE run_uuid = ?1 AND key = 's'",
                [run],
                |r| r.get(0),
            )?)
        })
        .unwrap()
}

/// A long series is sampled from its block summaries; the answer is the one the stream
/// over every point gives (`sample_points`), on either backend: a smooth series, a noisy
/// one with a spike between two sampled steps, and one with gaps, re-logged steps,
/// negative steps, NaN and infinities; whole and cut ranges, small and large samples.
#[tokio::test]
async fn bulk_interval_from_summaries_is_the_full_scan() {
    use server::tracking::history::{sample_points, sample_summaries, SCAN_PER_BUCKET};
    use server::tracking::model::Point;
    use server::tracking::series::insert_points;
    let app = TestApp::new();
    let n = 30_000i64;
    let smooth = logged(&app, (0..n).map(|s| (s, 1_000 + s, s as f64 * 0.25))).await;
    let noisy = logged(
        &app,
        (0..n).map(|s| {
            let v = if s == 12_345 {
                1e4
            } else {
                ((s * 7919) % 1000) as f64
            };
            (s, 7, v)
        }),
    )
    .await;
    let odd = logged(
        &app,
        (-2_000..n)
            .filter(|s| s % 7 != 3)
            .flat_map(|s| {
                let v = (s % 97) as f64 - 40.0;
                let again = (s % 5 == 0).then_some((s * 3, 9, -v));
                [Some((s * 3, 8, v)), again]
            })
            .flatten(),
    )
    .await;
    // NaN and the infinities (JSON has none of them): stored as log-batch stores them.
    let sid = series_id(&app, &odd);
    let special: Vec<Point> = (0..n)
        .step_by(501)
        .flat_map(|s| {
            [f64::NAN, f64::INFINITY, f64::NEG_INFINITY]
                .into_iter()
                .enumerate()
                .map(move |(i, value)| Point {
                    step: s * 3 + i as i64,
                    timestamp: 10,
                    value,
                })
        })
        .collect();
    app.store
        .blocking(move |c| insert_points(c, sid, &special))
        .unwrap();
    // Steps 12,345 and its neighbours are not sampled at max_results=320 (buckets of 93
    // or 94 points from 0): the spike comes back on top of MLflow's 320.
    let v = app
        .ok_get(&format!(
            "/metrics/get-history-bulk-interval?run_ids={noisy}&metric_key=s&max_results=320"
        ))
        .await;
    let got = points_of(&v, &noisy);
    assert!(got.contains(&(12_345, 7, 1e4)), "{got:?}");
    let sid = series_id(&app, &noisy);
    let want = app
        .store
        .blocking(move |c| sample_points(c, sid, None, 320))
        .unwrap();
    let want: Vec<(i64, i64, f64)> = want
        .iter()
        .map(|p| (p.step, p.timestamp, p.value))
        .collect();
    assert_eq!(got, want);
    for run in [&smooth, &noisy, &odd] {
        let sid = series_id(&app, run);
        for max in [7, 320, 2500] {
            assert!(n as u64 > SCAN_PER_BUCKET * max as u64);
            for range in [
                None,
                Some((100, 20_000)),
                Some((-5_000, 1)),
                Some((4_097, 4_099)),
            ] {
                let (old, new) = app
                    .store
                    .blocking(move |c| {
                        Ok((
                            sample_points(c, sid, range, max)?,
                            sample_summaries(c, sid, range, max)?,
                        ))
                    })
                    .unwrap();
                // Compared as text (NaN is not equal to itself), from the first difference.
                let (new, old) = (format!("{new:?}"), format!("{old:?}"));
                let at = new
                    .bytes()
                    .zip(old.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                let at = new[..at].rfind("Point").unwrap_or(0);
                assert_eq!(&new[at..], &old[at..], "{range:?} {max}");
            }
        }
    }
}
