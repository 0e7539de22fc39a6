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

#[tokio::test]
async fn a_time_axis_over_timestamps_that_go_back_reads_the_series_page_by_page() {
    // Timestamps out of step order take the scan, which reads 65,536 points a statement:
    // 150,000 points are three pages, and timestamps shared by three points each put ties
    // across the page boundaries (the scan resumes after the last point read).
    let app = TestApp::new();
    let run = "00000000000000000000000000000abd";
    let n = 150_000i64;
    let points: Vec<(i64, i64, f64)> = (0..n)
        .map(|i| {
            let timestamp = 1_000 + (i * 7_919) % n / 3 * 10;
            let value = match i {
                99_991 => 50.0,
                31_337 => f64::NAN,
                _ => (i as f64 * 0.01).sin(),
            };
            (i, timestamp, value)
        })
        .collect();
    app.insert_series(run, "loss", points.iter().copied());
    let (lo, hi) = (1_000.0, (1_000 + (n - 1) / 3 * 10) as f64);
    for (width, range) in [(800, (lo, hi)), (333, (lo + 1_234.0, hi - 98_765.0))] {
        let uri = format!(
            "/api/v1/runs/{run}/series?key=loss&x=wall&width={width}&x_min={}&x_max={}",
            range.0, range.1
        );
        let got = series(&app, &uri).await;
        let want = brute_force(&points, "wall", 0, width, range);
        let label = format!("wall width {width} {range:?}");
        assert_eq!(got.total_points, n as u64, "{label}");
        assert_eq!(got.points_in_range, want.2, "{label}");
        same(&text(&got.points), &want.0, &label);
        same(&text(&got.non_finite), &want.1, &label);
    }
    let whole = series(
        &app,
        &format!("/api/v1/runs/{run}/series?key=loss&x=wall&width=800"),
    )
    .await;
    assert_eq!(whole.points_in_range, n as u64);
    assert!(whole
        .points
        .iter()
        .any(|p| p.step == 99_991 && p.value.0 == 50.0));
    assert!(whole.non_finite.iter().any(|p| p.step == 31_337));
}

/// `(step, timestamp, value)` in the order a chart reads points on `axis`: by step (then
/// timestamp, NaN last, value), or by timestamp first.
fn reading_order(points: &mut [(i64, i64, f64)], by_time: bool) {
    let key = |p: &(i64, i64, f64)| {
        let (nan, v) = if p.2.is_nan() { (1, 0.0) } else { (0, p.2) };
        let (a, b) = if by_time { (p.1, p.0) } else { (p.0, p.1) };
        (a, b, nan, v)
    };
    points.sort_by(|a, b| {
        let (a, b) = (key(a), key(b));
        (a.0, a.1, a.2)
            .cmp(&(b.0, b.1, b.2))
            .then(a.3.total_cmp(&b.3))
    });
}

/// The brute-force chart: M4 over every point.
fn brute_force(
    points: &[(i64, i64, f64)],
    axis: &str,
    origin: i64,
    width: u32,
    (x_min, x_max): (f64, f64),
) -> (Vec<String>, Vec<String>, u64) {
    use server::tracking::series::{downsample, Viewport};
    let mut sorted = points.to_vec();
    reading_order(&mut sorted, axis != "step");
    let view = Viewport::new(width, x_min, x_max).unwrap();
    let out = downsample::reduce(
        view,
        sorted.iter().map(|&(step, timestamp, v)| {
            let x = match axis {
                "step" => step,
                "wall" => timestamp,
                _ => timestamp - origin,
            };
            let p = json::SeriesPoint {
                step,
                timestamp,
                value: json::F64(v),
            };
            (x as f64, p)
        }),
    );
    (text(&out.points), text(&out.non_finite), out.in_range)
}

/// Asserts equal lists, showing the first difference.
fn same(got: &[String], want: &[String], label: &str) {
    let at = got.iter().zip(want).position(|(g, w)| g != w);
    let at = at.unwrap_or(got.len().min(want.len()));
    assert!(
        got.len() == want.len() && at == got.len(),
        "{label}: {} vs {} points, first difference at {at}: {:?} vs {:?}",
        got.len(),
        want.len(),
        got.get(at.saturating_sub(1)..(at + 2).min(got.len())),
        want.get(at.saturating_sub(1)..(at + 2).min(want.len())),
    );
}

fn text(points: &[json::SeriesPoint]) -> Vec<String> {
    points
        .iter()
        .map(|p| format!("{} {} {:?}", p.step, p.timestamp, p.value.0))
        .collect()
}

/// Logs `points` in batches of `batch` through the MLflow API.
async fn log(app: &TestApp, run: &str, key: &str, points: &[(i64, i64, f64)], batch: usize) {
    for chunk in points.chunks(batch) {
        let metrics: Vec<serde_json::Value> = chunk
            .iter()
            .map(|&(step, timestamp, v)| {
                let value = if v.is_nan() {
                    serde_json::json!("NaN")
                } else if v.is_infinite() {
                    serde_json::json!(if v > 0.0 { "Infinity" } else { "-Infinity" })
                } else {
                    serde_json::json!(v)
                };
                serde_json::json!({"key": key, "value": value, "timestamp": timestamp, "step": step})
            })
            .collect();
        app.ok(
            "/runs/log-batch",
            serde_json::json!({"run_id": run, "metrics": metrics}),
        )
        .await;
    }
}

#[tokio::test]
async fn charts_from_block_summaries_equal_brute_force_m4() {
    let app = TestApp::new();
    let exp = app.experiment("blocks").await;
    let run = app.run(&exp, "long").await;
    let start = 1_700_000_000_000i64;
    let n = 30_000i64;
    let value = |i: i64| match i {
        // One-point spikes inside blocks (never a block's first or last step).
        12_345 => 500.0,
        23_456 => -500.0,
        7_001 => f64::NAN,
        15_003 => f64::INFINITY,
        20_007 => f64::NEG_INFINITY,
        _ => (i as f64 * 0.01).sin(),
    };
    // "ordered": logged in step order, timestamps growing with the step, some steps logged
    // twice in the same batch (MLflow keeps both points).
    let mut ordered: Vec<(i64, i64, f64)> = Vec::new();
    for i in 0..n {
        ordered.push((i, start + 10 * i, value(i)));
        if i % 997 == 5 {
            ordered.push((i, start + 10 * i, value(i) + 3.0));
        }
    }
    log(&app, &run, "ordered", &ordered, 1000).await;
    // "shuffled": the same steps logged out of order, then some steps re-logged later with
    // later timestamps and other values.
    let mut shuffled: Vec<(i64, i64, f64)> =
        (0..n).map(|i| (i, start + 10 * i, value(i))).collect();
    let mut s = 99u64;
    for i in (1..shuffled.len()).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        shuffled.swap(i, (s % (i as u64 + 1)) as usize);
    }
    for i in (0..n).step_by(331) {
        shuffled.push((i, start + 10 * n + i, 1.5 - value(i) * 2.0));
    }
    log(&app, &run, "shuffled", &shuffled, 900).await;
    // "paused": noisy values (so that most column boundaries settle from the summaries)
    // logged in order with a pause of 5 s every 1,000 steps: on a time axis the step at a
    // boundary is then often not where an even pace puts it, and is looked up by timestamp.
    let mut r = 7u64;
    let paused: Vec<(i64, i64, f64)> = (0..n)
        .map(|i| {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            let v = match i {
                12_345 | 23_456 | 7_001 | 15_003 | 20_007 => value(i),
                _ => (r % 1_000_003) as f64 / 1e6,
            };
            (i, start + 10 * i + 5_000 * (i / 1_000), v)
        })
        .collect();
    log(&app, &run, "paused", &paused, 1000).await;

    for (key, points) in [
        ("ordered", &ordered),
        ("shuffled", &shuffled),
        ("paused", &paused),
    ] {
        let steps = (0.0, (n - 1) as f64);
        let walls = (
            points.iter().map(|p| p.1).min().unwrap() as f64,
            points.iter().map(|p| p.1).max().unwrap() as f64,
        );
        for axis in ["step", "wall", "relative"] {
            let (lo, hi) = match axis {
                "step" => steps,
                "wall" => walls,
                _ => (walls.0 - start as f64, walls.1 - start as f64),
            };
            for width in [400u32, 120, 57, 7] {
                for (a, b) in [(0.0, 1.0), (0.1, 0.9), (0.4123, 0.4456), (0.77, 0.999)] {
                    let range = (lo + a * (hi - lo), lo + b * (hi - lo));
                    let uri = format!(
                        "/api/v1/runs/{run}/series?key={key}&x={axis}&width={width}&x_min={}&x_max={}",
                        range.0, range.1
                    );
                    let got = series(&app, &uri).await;
                    let want = brute_force(points, axis, start, width, range);
                    let label = format!("{key} {axis} width {width} {a}..{b}");
                    assert_eq!(got.total_points, points.len() as u64, "{label}");
                    assert_eq!(got.points_in_range, want.2, "{label}");
                    same(&text(&got.points), &want.0, &label);
                    same(&text(&got.non_finite), &want.1, &label);
                }
            }
        }
        // The whole series by default: every spike is there.
        let whole = series(
            &app,
            &format!("/api/v1/runs/{run}/series?key={key}&width=300"),
        )
        .await;
        for step in [12_345, 23_456] {
            assert!(whole.points.iter().any(|p| p.step == step), "{key} {step}");
        }
        for step in [7_001, 15_003, 20_007] {
            assert!(
                whole.non_finite.iter().any(|p| p.step == step),
                "{key} {step}"
            );
        }
    }
    // The flags the time axes chose their path by.
    let flag = |key: &str| {
        app.scalar(&format!(
            "SELECT time_ordered FROM metric_series WHERE key = '{key}'"
        ))
    };
    assert_eq!(
        (flag("ordered"), flag("shuffled"), flag("paused")),
        (1, 0, 1)
    );
}

/// A batch of many keys writes each key as if it had been logged alone (ingest writes the
/// series of a batch with shared statements): the same history, latest value and chart,
/// over two rounds so that the second adds to stored blocks and chunks, with steps out of
/// order, a step logged twice with different values, an identical point sent twice, and
/// keys whose steps cross different blocks.
#[tokio::test]
async fn a_batch_of_many_keys_writes_each_as_if_logged_alone() {
    use serde_json::{json, Value};
    const KEYS: usize = 12;
    let app = TestApp::new();
    let exp = app.experiment("many keys").await;
    let together = app.run(&exp, "together").await;
    let apart = app.run(&exp, "apart").await;
    // Key k's points in round r: 3 + 7k steps from 50k (blocks of 64 steps are crossed at
    // different places), in reverse order, the last one again with another value, and the
    // first one again as it was.
    let points = |k: usize, r: usize| -> Vec<Value> {
        let n = 3 + 7 * k as i64;
        let start = 50 * k as i64 + r as i64 * n;
        let at = |s: i64, v: f64| json!({"key": format!("m/{k}"), "value": v, "timestamp": 1_700_000_000_000i64 + s, "step": s});
        let mut out: Vec<Value> = (start..start + n)
            .rev()
            .map(|s| at(s, (k * 1_000) as f64 + (s * 37 % 101) as f64))
            .collect();
        out.push(at(start, -1.5 - k as f64));
        out.push(out[0].clone());
        out
    };
    for r in 0..2 {
        // The keys' points interleaved, so no key's points are together in the batch.
        let mut all: Vec<(usize, Value)> = (0..KEYS)
            .flat_map(|k| points(k, r).into_iter().enumerate().collect::<Vec<_>>())
            .collect();
        all.sort_by_key(|(i, _)| *i);
        let metrics: Vec<Value> = all.into_iter().map(|(_, v)| v).collect();
        app.ok(
            "/runs/log-batch",
            json!({"run_id": together, "metrics": metrics}),
        )
        .await;
        for k in 0..KEYS {
            app.ok(
                "/runs/log-batch",
                json!({"run_id": apart, "metrics": points(k, r)}),
            )
            .await;
        }
    }
    let history = |v: &Value| -> Vec<(i64, i64, String)> {
        let mut h: Vec<(i64, i64, String)> = v["metrics"]
            .as_array()
            .expect("metrics")
            .iter()
            .map(|m| {
                (
                    m["step"].as_i64().unwrap(),
                    m["timestamp"].as_i64().unwrap(),
                    m["value"].to_string(),
                )
            })
            .collect();
        h.sort();
        h
    };
    for k in 0..KEYS {
        let key = format!("m/{k}");
        let q = |run: &str| format!("/metrics/get-history?run_id={run}&metric_key={key}");
        let (a, b) = (
            history(&app.ok_get(&q(&together)).await),
            history(&app.ok_get(&q(&apart)).await),
        );
        assert_eq!(
            a.len(),
            2 * (3 + 7 * k) + 2,
            "{key}: every distinct point once"
        );
        assert_eq!(a, b, "{key}: history");
        // One column (the block path once a key has 64 points) and seven.
        for width in [1, 7] {
            let chart = |run: &str| format!("/api/v1/runs/{run}/series?key={key}&width={width}");
            let (a, b) = (
                series(&app, &chart(&together)).await,
                series(&app, &chart(&apart)).await,
            );
            assert_eq!(a.total_points, b.total_points, "{key}: count");
            assert_eq!(
                format!("{:?}", a.points),
                format!("{:?}", b.points),
                "{key}: chart of width {width}"
            );
        }
    }
    let latest = |v: &Value| -> Vec<String> {
        let mut m: Vec<String> = v["run"]["data"]["metrics"]
            .as_array()
            .expect("metrics")
            .iter()
            .map(Value::to_string)
            .collect();
        m.sort();
        m
    };
    let (a, b) = (
        latest(&app.ok_get(&format!("/runs/get?run_id={together}")).await),
        latest(&app.ok_get(&format!("/runs/get?run_id={apart}")).await),
    );
    assert_eq!(a.len(), KEYS);
    assert_eq!(a, b, "latest values");
}

/// A chart's large reads go to a second connection of the pool beside the request's own
/// (`Conn::sibling`), but only one the pool can give without waiting: a busy pool leaves
/// the chart on one connection. Each connection is told apart by a temporary table of its
/// own (per connection on both backends).
#[tokio::test]
async fn a_second_connection_comes_only_from_a_free_slot_of_the_pool() {
    use server::db::Conn;
    let app = TestApp::new();
    app.store
        .call(|c| {
            let mark = |c: &Conn, id: i64| {
                c.execute_batch("CREATE TEMP TABLE IF NOT EXISTS who (id BIGINT)")
                    .and_then(|()| c.execute("DELETE FROM who", []))
                    .and_then(|_| c.execute("INSERT INTO who (id) VALUES (?1)", [id]))
                    .expect("mark");
            };
            let who = |c: &Conn| -> Option<i64> {
                c.query_row("SELECT id FROM who", [], |r| r.get(0)).ok()
            };
            mark(c, 0);
            let other = c.sibling().expect("a free connection");
            assert_eq!(who(&other), None, "another connection");
            // Take every slot left: then there is none, and one given back serves again.
            let mut held = vec![other];
            while let Some(s) = c.sibling() {
                assert!(held.len() < 64, "the pool has a size");
                held.push(s);
            }
            for (i, s) in held.iter().enumerate() {
                mark(s, i as i64 + 1);
            }
            assert!(c.sibling().is_none());
            drop(held.pop());
            let again = c.sibling().expect("the slot given back");
            assert_eq!(who(&again), Some(held.len() as i64 + 1), "the idle one");
            assert_eq!(who(c), Some(0));
            Ok(())
        })
        .await
        .expect("store");
}
