//! Timings of the app API's heavy endpoints (run with
//! `cargo test --release -p server --test v1_bench -- --ignored --nocapture`).
//! Benchmarks print figures; they assert the answers they timed are right, never time.

use std::time::Instant;

use crate::helpers::TestApp;

/// Median of `n` timed GETs, in ms, and the body size.
async fn time_get(app: &TestApp, uri: &str, n: usize) -> (f64, usize) {
    let mut times = Vec::new();
    let mut size = 0;
    for _ in 0..n {
        let t = Instant::now();
        let (status, body) = app.get_raw(uri).await;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        size = body.len();
    }
    times.sort_by(f64::total_cmp);
    (times[n / 2], size)
}

#[tokio::test]
#[ignore]
async fn series_of_a_million_points() {
    let app = TestApp::new();
    let run = "0000000000000000000000000000beef";
    let n = 1_000_000i64;
    app.insert_series(
        run,
        "loss",
        (0..n).map(|i| {
            let v = if i == 777_777 {
                1e3
            } else {
                (i as f64 * 1e-4).cos()
            };
            (i, 1_700_000_000_000 + i * 100, v)
        }),
    );
    for (label, query) in [
        ("step, whole", "x=step"),
        ("wall, whole", "x=wall"),
        ("step, 10% zoom", "x=step&x_min=500000&x_max=600000"),
    ] {
        let uri = format!("/api/v1/runs/{run}/series?key=loss&width=1000&{query}");
        let (ms, bytes) = time_get(&app, &uri, 5).await;
        println!("series 1,000,000 points, {label}: {ms:.1} ms median, {bytes} bytes");
        // What was timed is the real answer: at most 4 points per pixel, the spike at step
        // 777,777 kept with its value, and a zoom only within its range.
        let (_, body) = app.get_raw(&uri).await;
        let s: api_types::MetricSeries = serde_json::from_slice(&body).expect("series");
        assert!(
            s.points.len() <= 4 * 1000,
            "{label}: {} points",
            s.points.len()
        );
        assert!(s.points.len() >= 500, "{label}: {} points", s.points.len());
        if query.contains("x_min") {
            assert!(s
                .points
                .iter()
                .all(|p| (500_000..=600_000).contains(&p.step)));
        } else {
            assert!(
                s.points
                    .iter()
                    .any(|p| p.step == 777_777 && p.value.0 == 1e3),
                "{label}: the spike is lost"
            );
        }
    }
}

#[tokio::test]
#[ignore]
async fn runs_table_of_a_thousand_runs() {
    let app = TestApp::new();
    app.store
        .blocking(|c| {
            let tx = c.transaction(server::db::Behavior::Immediate)?;
            for r in 0..1000 {
                let id = format!("{r:032x}");
                tx.execute(
                    "INSERT INTO runs (run_uuid, experiment_id, name, user_id, status, start_time,
                       end_time, lifecycle_stage, artifact_uri)
                     VALUES (?1, 0, ?2, 'bench', 'FINISHED', ?3, ?3 + 1000, 'active', '')",
                    server::db::params![id, format!("run-{r}"), 1_700_000_000_000i64 + r],
                )?;
                for p in 0..20 {
                    tx.execute(
                        "INSERT INTO params VALUES (?1, ?2, ?3)",
                        server::db::params![id, format!("p{p}"), format!("{}", (r * 31 + p) % 97)],
                    )?;
                }
                for m in 0..10 {
                    tx.execute(
                        "INSERT INTO latest_metrics VALUES (?1, ?2, 49, 1, 0, ?3)",
                        server::db::params![id, format!("m{m}"), ((r * 7 + m) % 101) as f64 / 7.0],
                    )?;
                }
                tx.execute(
                    "INSERT INTO tags VALUES (?1, 'mlflow.runName', ?2)",
                    server::db::params![id, format!("run-{r}")],
                )?;
            }
            tx.commit()?;
            Ok(())
        })
        .unwrap();
    let cols = "params=p0,p1,p2,p3,p4&metrics=m0,m1,m2,m3,m4";
    for (label, extra) in [
        ("default order", String::new()),
        ("order by metric", "&order_by=metrics.m3%20DESC".to_string()),
        (
            "filter + order",
            "&filter=metrics.m0%20%3E%205&order_by=params.p1".to_string(),
        ),
    ] {
        let uri = format!("/api/v1/experiments/0/runs?{cols}{extra}");
        let (ms, bytes) = time_get(&app, &uri, 5).await;
        println!("runs table, 1,000 runs x (5 params, 5 metrics), {label}: {ms:.1} ms median, {bytes} bytes");
        let (_, body) = app.get_json(&uri).await;
        let rows = body["rows"].as_array().expect("rows");
        assert!(!rows.is_empty(), "{label}: no rows");
        assert!(rows
            .iter()
            .all(|r| r["params"].as_array().map(Vec::len) == Some(5)));
        if extra.contains("metrics.m3") {
            let m3: Vec<f64> = rows
                .iter()
                .filter_map(|r| r["metrics"][3].as_f64())
                .collect();
            assert!(m3.windows(2).all(|w| w[0] >= w[1]), "{label}: not sorted");
        }
        if extra.contains("filter") {
            assert!(
                rows.iter().all(|r| r["metrics"][0].as_f64() > Some(5.0)),
                "{label}"
            );
        }
    }
}
