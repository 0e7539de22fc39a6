//! Transport rules: content types, malformed bodies, unknown fields, both mounts,
//! unknown endpoints and methods, logged-models/search.

use axum::body::Body;
use axum::http::Request;
use serde_json::json;

use crate::helpers::{assert_error, TestApp};

#[tokio::test]
async fn post_needs_json_content_type() {
    let app = TestApp::new();
    let r = app
        .post_raw(
            "/experiments/create",
            "text/plain",
            r#"{"name":"x"}"#.into(),
        )
        .await;
    assert_error(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Content-Type must be one of ['application/json']",
    );
    let req = Request::post("/api/2.0/mlflow/experiments/create")
        .body(Body::from(r#"{"name":"x"}"#))
        .unwrap();
    assert_error(
        &app.send(req).await,
        400,
        "INVALID_PARAMETER_VALUE",
        "Content-Type header is missing",
    );
    let r = app
        .post_raw(
            "/experiments/create",
            "application/json; charset=utf-8",
            r#"{"name":"x"}"#.into(),
        )
        .await;
    assert_eq!(r.0, 200, "{}", r.1);
}

#[tokio::test]
async fn malformed_and_double_encoded_bodies() {
    let app = TestApp::new();
    let r = app
        .post_raw(
            "/experiments/create",
            "application/json",
            "{\"name\": ".into(),
        )
        .await;
    assert_eq!(r.0, 400);
    assert!(
        r.1["error_code"].is_string() && r.1["message"].is_string(),
        "{}",
        r.1
    );
    let r = app
        .post_raw("/experiments/create", "application/json", "[1,2]".into())
        .await;
    assert_eq!(r.0, 400);
    let double = serde_json::to_string(&json!({"name": "dbl"}).to_string()).unwrap();
    let r = app
        .post_raw("/experiments/create", "application/json", double)
        .await;
    assert_eq!(r.0, 200, "{}", r.1);
}

#[tokio::test]
async fn unknown_fields_are_ignored_and_int64_may_be_strings() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    let m = json!({"run_id": id, "key": "a", "value": "0.5", "timestamp": "12", "step": "3",
        "model_id": null, "dataset_name": "x", "whatever": {"deep": [1]}});
    app.ok("/runs/log-metric", m).await;
    let h = app
        .ok_get(&format!("/metrics/get-history?run_id={id}&metric_key=a"))
        .await;
    assert_eq!(
        h["metrics"][0],
        json!({"key": "a", "value": 0.5, "timestamp": 12, "step": 3})
    );
}

#[tokio::test]
async fn ajax_mount_and_get_search() {
    let app = TestApp::new();
    let req = Request::get("/ajax-api/2.0/mlflow/experiments/search?max_results=10&view_type=ALL")
        .body(Body::empty())
        .unwrap();
    let (status, v) = app.send(req).await;
    assert_eq!(status, 200);
    assert_eq!(v["experiments"][0]["name"], "Default");
}

#[tokio::test]
async fn unknown_endpoints_and_methods_answer_json() {
    let app = TestApp::new();
    let r = app.get("/no/such/thing").await;
    assert_error(&r, 404, "ENDPOINT_NOT_FOUND", "");
    let r = app.get("/runs/log-batch").await;
    assert_eq!(r.0, 405);
    assert!(r.1["error_code"].is_string(), "{}", r.1);
    let r = app.post("/runs/get", json!({})).await;
    assert_eq!(r.0, 405);
}

/// A search that matches nothing answers `{}` (MLflow leaves out an empty list), and one
/// that matches answers the model: the empty answer is a real miss, not a stub.
#[tokio::test]
async fn logged_models_search_without_a_match_is_empty() {
    let app = TestApp::new();
    let made = app
        .ok("/logged-models", json!({"experiment_id": "0", "name": "x"}))
        .await;
    let id = made["model"]["info"]["model_id"]
        .as_str()
        .expect("model id");
    let search = |filter: &str| json!({"experiment_ids": ["0"], "filter": filter});
    let v = app.ok("/logged-models/search", search("name = 'y'")).await;
    assert_eq!(v, json!({}));
    let v = app.ok("/logged-models/search", search("name = 'x'")).await;
    assert_eq!(v["models"][0]["info"]["model_id"], id, "{v}");
    assert_eq!(v["models"].as_array().map(Vec::len), Some(1), "{v}");
}

#[tokio::test]
async fn health_is_ok() {
    let app = TestApp::new();
    let req = Request::get("/health").body(Body::empty()).unwrap();
    let (status, _) = app.send(req).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn doubles_round_trip_bit_exactly() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    let values = [
        0.18181818181818182,
        0.1 + 0.2,
        1e-300,
        9007199254740993.0,
        1.7976931348623157e308,
    ];
    let metrics: Vec<serde_json::Value> = values
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"key": "x", "value": v, "timestamp": 1, "step": i}))
        .collect();
    let body = format!(
        "{{\"run_id\": \"{id}\", \"metrics\": {}}}",
        serde_json::Value::from(metrics)
    );
    assert_eq!(
        app.post_raw("/runs/log-batch", "application/json", body)
            .await
            .0,
        200
    );
    let h = app
        .ok_get(&format!("/metrics/get-history?run_id={id}&metric_key=x"))
        .await;
    let got: Vec<f64> = h["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["value"].as_f64().unwrap())
        .collect();
    assert_eq!(got, values);
}

#[tokio::test]
async fn oversize_bodies_are_a_json_4xx() {
    let app = TestApp::new();
    let huge = format!("{{\"name\": \"{}\"}}", "x".repeat(33 * 1024 * 1024));
    let r = app
        .post_raw("/experiments/create", "application/json", huge)
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "too large");
}
