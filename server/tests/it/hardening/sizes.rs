//! F: sizes that reach SQLite's limits are refused up front with MLflow's
//! 400 INVALID_PARAMETER_VALUE and a clear message, never a 500: filter clauses, `IN`
//! lists, `order_by` keys and `experiment_ids`.

use serde_json::{json, Value};

use crate::helpers::TestApp;

fn and_clauses(n: usize) -> String {
    (0..n)
        .map(|i| format!("params.p{i} = 'x'"))
        .collect::<Vec<_>>()
        .join(" AND ")
}

fn in_list(n: usize) -> String {
    let items = vec!["'a'"; n].join(",");
    format!("attributes.run_id IN ({items})")
}

fn order_keys(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("metrics.m{i}")).collect()
}

fn ids(n: usize) -> Vec<String> {
    vec!["0".to_string(); n]
}

async fn search(app: &TestApp, body: Value) -> (u16, Value) {
    let (s, v) = app.post("/runs/search", body).await;
    (s.as_u16(), v)
}

fn assert_invalid(got: &(u16, Value), ctx: &str) {
    assert_eq!(got.0, 400, "{ctx}: {}", short(&got.1));
    assert_eq!(got.1["error_code"], "INVALID_PARAMETER_VALUE", "{ctx}");
    let msg = got.1["message"].as_str().unwrap_or("");
    assert!(
        !msg.is_empty() && msg.len() < 1_000,
        "{ctx}: unclear message {msg:?}"
    );
}

fn short(v: &Value) -> String {
    v.to_string().chars().take(300).collect()
}

#[tokio::test]
async fn what_the_probe_sent_is_400_not_500() {
    let app = TestApp::new();
    let cases = [
        (
            "1,100 AND clauses",
            json!({"experiment_ids": ["0"], "filter": and_clauses(1_100)}),
        ),
        (
            "70 order_by keys",
            json!({"experiment_ids": ["0"], "order_by": order_keys(70)}),
        ),
        (
            "IN list of 250,001",
            json!({"experiment_ids": ["0"], "filter": in_list(250_001)}),
        ),
        (
            "250,001 experiment_ids",
            json!({"experiment_ids": ids(250_001)}),
        ),
    ];
    for (what, body) in cases {
        assert_invalid(&search(&app, body).await, what);
    }
}

#[tokio::test]
async fn limits_sit_where_mlflow_puts_them() {
    let app = TestApp::new();
    let over = [
        (
            "101 clauses",
            json!({"experiment_ids": ["0"], "filter": and_clauses(101)}),
        ),
        (
            "11 order_by keys",
            json!({"experiment_ids": ["0"], "order_by": order_keys(11)}),
        ),
        (
            "IN of 10,001",
            json!({"experiment_ids": ["0"], "filter": in_list(10_001)}),
        ),
        (
            "10,001 experiment_ids",
            json!({"experiment_ids": ids(10_001)}),
        ),
    ];
    for (what, body) in over {
        assert_invalid(&search(&app, body).await, what);
    }
    let within = [
        (
            "100 clauses",
            json!({"experiment_ids": ["0"], "filter": and_clauses(100)}),
        ),
        (
            "10 order_by keys",
            json!({"experiment_ids": ["0"], "order_by": order_keys(10)}),
        ),
        (
            "IN of 10,000",
            json!({"experiment_ids": ["0"], "filter": in_list(10_000)}),
        ),
        (
            "10,000 experiment_ids",
            json!({"experiment_ids": ids(10_000)}),
        ),
    ];
    for (what, body) in within {
        let (s, v) = search(&app, body).await;
        assert_eq!(s, 200, "{what}: {}", short(&v));
    }
    // The app API's runs table takes the same filter and order syntax.
    let q: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("filter", &and_clauses(1_100))
        .finish();
    let (s, v) = app
        .get_json(&format!("/api/v1/experiments/0/runs?{q}"))
        .await;
    assert_eq!(s, 400, "{}", short(&v));
    let mut q = form_urlencoded::Serializer::new(String::new());
    for k in order_keys(70) {
        q.append_pair("order_by", &k);
    }
    let (s, v) = app
        .get_json(&format!("/api/v1/experiments/0/runs?{}", q.finish()))
        .await;
    assert_eq!(s, 400, "{}", short(&v));
}

#[tokio::test]
async fn bulk_interval_takes_at_most_100_runs() {
    let app = TestApp::new();
    let run = app.run("0", "r").await;
    let q = |n: usize| {
        let mut s = form_urlencoded::Serializer::new(String::new());
        for _ in 0..n {
            s.append_pair("run_ids", &run);
        }
        s.append_pair("metric_key", "m");
        s.finish()
    };
    let (s, v) = app
        .get(&format!("/metrics/get-history-bulk-interval?{}", q(101)))
        .await;
    assert_eq!(s, 400, "{}", short(&v));
    assert_eq!(v["error_code"], "INVALID_PARAMETER_VALUE");
    let (s, v) = app
        .get(&format!("/metrics/get-history-bulk-interval?{}", q(100)))
        .await;
    assert_eq!(s, 200, "{}", short(&v));
}
