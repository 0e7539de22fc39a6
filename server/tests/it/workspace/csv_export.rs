//! `GET /experiments/{id}/runs/csv`: every matching run (all pages of the table),
//! the table's columns, ISO times, quoting, and cells a spreadsheet would run as formulas
//! neutralised.

use std::collections::HashSet;

use serde_json::{json, Value};

use super::parse_csv;
use crate::helpers::TestApp;

const FIXED: [&str; 7] = [
    "run_id",
    "run_name",
    "status",
    "user",
    "start_time",
    "end_time",
    "duration_s",
];

async fn csv(app: &TestApp, exp: &str, query: &str) -> (crate::helpers::Resp, Vec<Vec<String>>) {
    let uri = format!("/api/v1/experiments/{exp}/runs/csv?{query}");
    let r = app.get_as(&app.admin_token, &uri).await;
    assert_eq!(r.status, 200, "{uri}: {}", r.text);
    let rows = parse_csv(&r.text);
    (r, rows)
}

/// `n` runs in experiment `exp` written straight to the store (the MLflow API would take
/// minutes for 10,000 runs): run `i` has metric `loss` = i / 10,000 - 0.5 and param `lr`.
fn insert_runs(app: &TestApp, exp: i64, n: usize) -> Vec<String> {
    app.store
        .blocking(move |c| {
            let tx = c.transaction(server::db::Behavior::Immediate)?;
            let mut ids = Vec::with_capacity(n);
            {
                let mut run = tx.prepare(
                    "INSERT INTO runs (run_uuid, experiment_id, name, user_id, status, start_time,
                       end_time, artifact_uri, lifecycle_stage)
                     VALUES (?1, ?2, ?3, 'bulk', 'FINISHED', ?4, ?5, '', 'active')",
                )?;
                let mut metric = tx.prepare(
                    "INSERT INTO latest_metrics (run_uuid, key, step, timestamp, is_nan, value)
                     VALUES (?1, 'loss', 0, 0, 0, ?2)",
                )?;
                let mut param =
                    tx.prepare("INSERT INTO params (run_uuid, key, value) VALUES (?1, 'lr', ?2)")?;
                for i in 0..n {
                    let id = format!("{:032x}", 0xbee0_0000_u64 + i as u64);
                    let start = 1_700_000_000_000i64 + i as i64 * 1_000;
                    run.execute(server::db::params![
                        id,
                        exp,
                        format!("bulk-{i}"),
                        start,
                        start + 1_500
                    ])?;
                    metric.execute(server::db::params![id, i as f64 / 10_000.0 - 0.5])?;
                    param.execute(server::db::params![id, format!("{}", i % 7)])?;
                    ids.push(id);
                }
            }
            tx.commit()?;
            Ok(ids)
        })
        .expect("insert runs")
}

#[tokio::test]
async fn every_matching_run_is_exported_not_only_a_page() {
    let app = TestApp::new();
    let exp = app.experiment("bulk").await;
    let ids = insert_runs(&app, exp.parse().unwrap(), 10_050);
    let (status, table) = app
        .get_json(&format!("/api/v1/experiments/{exp}/runs?metrics=loss"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(table["total"], 10_050);
    assert_eq!(
        table["rows"].as_array().map(Vec::len),
        Some(200),
        "one page"
    );
    let started = std::time::Instant::now();
    let (r, rows) = csv(&app, &exp, "metrics=loss&params=lr").await;
    eprintln!(
        "CSV of 10,050 runs: {:?}, {} bytes",
        started.elapsed(),
        r.text.len()
    );
    assert_eq!(r.header("content-type"), "text/csv; charset=utf-8");
    assert_eq!(
        r.header("content-disposition"),
        format!("attachment; filename=\"experiment-{exp}-runs.csv\"")
    );
    let mut header: Vec<&str> = FIXED.to_vec();
    header.extend(["metrics.loss", "params.lr"]);
    assert_eq!(rows[0], header);
    assert_eq!(rows.len(), 1 + 10_050);
    let got: HashSet<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(got.len(), 10_050, "no run twice");
    assert_eq!(got, ids.iter().map(String::as_str).collect());
    // Newest first (the default order), times in ISO 8601 UTC, duration in seconds,
    // negative metrics as plain numbers.
    let first = &rows[1];
    assert_eq!(first[1], "bulk-10049");
    assert_eq!(first[4], "2023-11-15T01:00:49.000Z");
    assert_eq!(first[5], "2023-11-15T01:00:50.500Z");
    assert_eq!(first[6], "1.5");
    let last = &rows[10_050];
    assert_eq!((last[1].as_str(), last[7].as_str()), ("bulk-0", "-0.5"));
    // The filter applies to the export as to the table.
    let (_, rows) = csv(&app, &exp, "filter=metrics.loss%20%3C%20-0.49995").await;
    assert_eq!(rows.len(), 1 + 1, "{rows:?}");
}

#[tokio::test]
async fn rows_equal_the_runs_table_for_a_filter() {
    let app = TestApp::new();
    let exp = app.experiment("equal").await;
    // The last run's loss (1.0) is left out by the filter below.
    let names = [
        "plain",
        "-3",
        "with \"quotes\"",
        "two\nlines",
        "=HYPERLINK(\"http://evil\",\"x\")",
        "@SUM(A1)",
        "+1+2",
        "with, comma",
    ];
    for (i, name) in names.iter().enumerate() {
        let run = app.run(&exp, name).await;
        let loss = i as f64 / 4.0 - 0.75;
        let mut tags = vec![json!({"key": "note", "value": format!("-cmd {i}")})];
        if i % 2 == 0 {
            tags.push(json!({"key": "team", "value": "a,b"}));
        }
        app.ok(
            "/runs/log-batch",
            json!({"run_id": run, "tags": tags,
                   "params": [{"key": "lr", "value": format!("-{i}e-3")}, {"key": "opt", "value": "=1+1"}],
                   "metrics": [{"key": "loss", "value": loss, "timestamp": 5, "step": 0},
                               {"key": "acc", "value": i as f64, "timestamp": 5, "step": 0}]}),
        )
        .await;
        if i % 3 == 0 {
            let end =
                json!({"run_id": run, "status": "FINISHED", "end_time": 1_700_000_123_456i64});
            app.ok("/runs/update", end).await;
        }
    }
    let query = "filter=metrics.loss%20%3C%200.9&order_by=metrics.loss%20DESC\
                 &metrics=loss,acc&params=opt,lr&tag=team&tag=note";
    let (status, table) = app
        .get_json(&format!("/api/v1/experiments/{exp}/runs?{query}"))
        .await;
    assert_eq!(status, 200);
    let json_rows = table["rows"].as_array().unwrap();
    let (_, rows) = csv(&app, &exp, query).await;
    let mut header: Vec<&str> = FIXED.to_vec();
    header.extend([
        "metrics.loss",
        "metrics.acc",
        "params.opt",
        "params.lr",
        "tags.team",
        "tags.note",
    ]);
    assert_eq!(rows[0], header);
    assert_eq!(rows.len() - 1, json_rows.len());
    assert_eq!(json_rows.len(), 7, "loss < 0.9 leaves out the last run");
    // What a cell of the JSON table looks like in the CSV.
    let text = |v: &Value| -> String {
        let s = v.as_str().unwrap_or_default();
        let number = s.parse::<f64>().is_ok_and(f64::is_finite);
        if s.starts_with(['=', '+', '-', '@', '\t', '\r']) && !number {
            format!("'{s}")
        } else {
            s.to_string()
        }
    };
    let time = |v: &Value| -> String {
        v.as_i64()
            .map(|ms| {
                chrono::DateTime::from_timestamp_millis(ms)
                    .unwrap()
                    .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
            })
            .unwrap_or_default()
    };
    for (csv_row, j) in rows[1..].iter().zip(json_rows) {
        let mut want = vec![
            text(&j["run_id"]),
            text(&j["run_name"]),
            text(&j["status"]),
            text(&j["user_id"]),
            time(&j["start_time"]),
            time(&j["end_time"]),
        ];
        want.push(match j["end_time"].as_i64() {
            Some(end) => format!(
                "{:?}",
                (end - j["start_time"].as_i64().unwrap()) as f64 / 1e3
            ),
            None => String::new(),
        });
        for m in j["metrics"].as_array().unwrap() {
            want.push(m.as_f64().map(|v| format!("{v:?}")).unwrap_or_default());
        }
        for v in j["params"]
            .as_array()
            .unwrap()
            .iter()
            .chain(j["tags"].as_array().unwrap())
        {
            want.push(text(v));
        }
        assert_eq!(*csv_row, want);
    }
    // Spot checks of the neutralising: names, params and tags, never plain numbers.
    let by_name = |n: &str| {
        rows.iter()
            .find(|r| r[1].trim_start_matches('\'') == n)
            .unwrap()
    };
    assert_eq!(
        by_name("=HYPERLINK(\"http://evil\",\"x\")")[1],
        "'=HYPERLINK(\"http://evil\",\"x\")"
    );
    assert_eq!(by_name("-3")[1], "-3");
    assert_eq!(by_name("+1+2")[1], "'+1+2");
    assert_eq!(by_name("plain")[7], "-0.75");
    assert_eq!(by_name("plain")[9], "'=1+1");
    assert_eq!(by_name("plain")[10], "-0e-3");
    assert_eq!(by_name("plain")[12], "'-cmd 0");
}

#[tokio::test]
async fn a_bad_query_is_a_json_400_not_a_broken_download() {
    let app = TestApp::new();
    let exp = app.experiment("bad").await;
    for (q, part) in [
        ("filter=metrics.loss%20%3C%3C%201", ""),
        ("order_by=nonsense%20ASC", ""),
        ("view=gone", "view"),
    ] {
        let r = app
            .get_as(
                &app.admin_token,
                &format!("/api/v1/experiments/{exp}/runs/csv?{q}"),
            )
            .await;
        assert_eq!(r.status, 400, "{q}: {}", r.text);
        assert!(r.body["message"].as_str().unwrap().contains(part), "{q}");
        assert!(r.header("content-disposition").is_empty());
    }
    // No runs: the header row alone.
    let (_, rows) = csv(&app, &exp, "").await;
    assert_eq!(rows, [FIXED.to_vec()]);
}
