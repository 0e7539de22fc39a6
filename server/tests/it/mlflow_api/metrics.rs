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

#[tokio::test]
async fn bulk_interval_samples_steps_across_runs() {
    let app = TestApp::new();
    let a = seeded(&app, 100).await;
    let b = seeded(&app, 10).await;
    let v = app
        .ok_get(&format!("/metrics/get-history-bulk-interval?run_ids={a}&run_ids={b}&metric_key=loss&max_results=10"))
        .await;
    let pts = v["metrics"].as_array().unwrap();
    let of = |run: &str| -> Vec<i64> {
        pts.iter()
            .filter(|m| m["run_id"] == run)
            .map(|m| m["step"].as_i64().unwrap())
            .collect()
    };
    let sa = of(&a);
    assert!(sa.len() <= 12, "{sa:?}");
    assert_eq!((sa.first(), sa.last()), (Some(&0), Some(&99)));
    let sb = of(&b);
    assert_eq!((sb.first(), sb.last()), (Some(&0), Some(&9)));
    assert_eq!(pts[0]["key"], "loss");
    let v = app
        .ok_get(&format!("/metrics/get-history-bulk-interval?run_ids={a}&metric_key=loss&start_step=10&end_step=20"))
        .await;
    let steps: Vec<i64> = v["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["step"].as_i64().unwrap())
        .collect();
    assert_eq!(steps, (10..=20).collect::<Vec<_>>());
}

#[tokio::test]
async fn bulk_interval_errors() {
    let app = TestApp::new();
    let base = "/metrics/get-history-bulk-interval";
    let r = app.get(&format!("{base}?metric_key=loss")).await;
    assert_error(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "must specify at least one run_id",
    );
    let many: Vec<String> = (0..101).map(|i| format!("run_ids=r{i}")).collect();
    let r = app
        .get(&format!("{base}?{}&metric_key=loss", many.join("&")))
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "more than 100");
    let r = app
        .get(&format!("{base}?run_ids=a&metric_key=loss&start_step=1"))
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "both must be specified");
    for m in ["0", "2501", "-1"] {
        let r = app
            .get(&format!("{base}?run_ids=a&metric_key=loss&max_results={m}"))
            .await;
        assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "max_results");
    }
    let r = app.get(&format!("{base}?run_ids=a")).await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "metric_key");
}
