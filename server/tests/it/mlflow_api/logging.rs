//! runs/log-metric, log-parameter, set-tag, delete-tag, log-batch, log-inputs

use serde_json::{json, Value};

use crate::helpers::{assert_error, TestApp};

async fn run_data(app: &TestApp, id: &str) -> Value {
    app.ok_get(&format!("/runs/get?run_id={id}")).await["run"]["data"].clone()
}

#[tokio::test]
async fn metrics_keep_nan_and_infinities() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    let batch = json!({"run_id": id, "metrics": [
        {"key": "nan", "value": "NaN", "timestamp": 5, "step": 0, "run_id": id},
        {"key": "pinf", "value": "Infinity", "timestamp": 5, "step": 1},
        {"key": "ninf", "value": "-Infinity", "timestamp": 5},
        {"key": "big", "value": 1.7976931348623157e308, "timestamp": 5}
    ]});
    app.ok("/runs/log-batch", batch).await;
    let data = run_data(&app, &id).await;
    assert_eq!(
        data["metrics"],
        json!([
            {"key": "big", "value": 1.7976931348623157e308, "timestamp": 5, "step": 0},
            {"key": "nan", "value": "NaN", "timestamp": 5, "step": 0},
            {"key": "ninf", "value": "-Infinity", "timestamp": 5, "step": 0},
            {"key": "pinf", "value": "Infinity", "timestamp": 5, "step": 1}
        ])
    );
    let h = app
        .ok_get(&format!("/metrics/get-history?run_id={id}&metric_key=pinf"))
        .await;
    assert_eq!(h["metrics"][0]["value"], "Infinity");
}

#[tokio::test]
async fn latest_metric_follows_step_timestamp_value() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    for (value, ts, step) in [
        (1.0, 10, 2),
        (9.0, 99, 1),
        (3.0, 10, 2),
        (2.0, 10, 2),
        (0.5, 5, 2),
    ] {
        let m = json!({"run_id": id, "key": "loss", "value": value, "timestamp": ts, "step": step});
        app.ok("/runs/log-metric", m).await;
    }
    let data = run_data(&app, &id).await;
    assert_eq!(
        data["metrics"],
        json!([{"key": "loss", "value": 3.0, "timestamp": 10, "step": 2}])
    );
}

#[tokio::test]
async fn duplicate_points_are_deduplicated() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    let m = json!({"run_id": id, "key": "a", "value": 1.5, "timestamp": 7, "step": 3});
    app.ok("/runs/log-metric", m.clone()).await;
    app.ok("/runs/log-metric", m).await;
    app.ok(
        "/runs/log-batch",
        json!({"run_id": id, "metrics": [{"key": "a", "value": 1.5, "timestamp": 7, "step": 3}]}),
    )
    .await;
    let h = app
        .ok_get(&format!("/metrics/get-history?run_id={id}&metric_key=a"))
        .await;
    assert_eq!(h["metrics"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn params_are_write_once() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    app.ok(
        "/runs/log-parameter",
        json!({"run_id": id, "key": "lr", "value": "0.01"}),
    )
    .await;
    app.ok(
        "/runs/log-parameter",
        json!({"run_id": id, "key": "lr", "value": "0.01"}),
    )
    .await;
    let r = app
        .post(
            "/runs/log-parameter",
            json!({"run_id": id, "key": "lr", "value": "0.1"}),
        )
        .await;
    assert_error(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Changing param values is not allowed",
    );
    let b =
        json!({"run_id": id, "params": [{"key": "x", "value": "1"}, {"key": "x", "value": "1"}]});
    let r = app.post("/runs/log-batch", b).await;
    assert_error(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Duplicate parameter keys have been submitted",
    );
    let long = "v".repeat(7000);
    app.ok(
        "/runs/log-parameter",
        json!({"run_id": id, "key": "long", "value": long}),
    )
    .await;
    let data = run_data(&app, &id).await;
    let params = data["params"].as_array().unwrap();
    assert_eq!(params.len(), 2, "{params:?}");
    assert_eq!(params[0]["value"].as_str().unwrap().len(), 6000);
    assert_eq!(params[1], json!({"key": "lr", "value": "0.01"}));
}

#[tokio::test]
async fn a_failed_batch_writes_nothing() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    app.ok(
        "/runs/log-parameter",
        json!({"run_id": id, "key": "p", "value": "1"}),
    )
    .await;
    let b = json!({"run_id": id,
        "metrics": [{"key": "m", "value": 1, "timestamp": 1}],
        "params": [{"key": "p", "value": "2"}]});
    assert_eq!(app.post("/runs/log-batch", b).await.0, 400);
    let data = run_data(&app, &id).await;
    assert!(data.get("metrics").is_none(), "{data}");
}

/// Tags are validated last, so a batch whose only fault is a tag fails after the params
/// and metrics passed validation: nothing of it may be stored (one transaction, and no
/// write before the last check).
#[tokio::test]
async fn a_batch_failing_on_its_last_tag_stores_nothing() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    for bad_tag in [
        json!({"key": "bad$key", "value": "v"}),
        json!({"key": "../escape", "value": "v"}),
    ] {
        let b = json!({"run_id": id,
            "metrics": [{"key": "fresh_metric", "value": 1.5, "timestamp": 1, "step": 3}],
            "params": [{"key": "fresh_param", "value": "1"}],
            "tags": [{"key": "good_tag", "value": "g"}, bad_tag]});
        let r = app.post("/runs/log-batch", b).await;
        assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "");
        let data = run_data(&app, &id).await;
        assert!(data.get("metrics").is_none(), "metric stored: {data}");
        let text = data.to_string();
        for key in ["fresh_param", "good_tag", "escape", "bad$key"] {
            assert!(!text.contains(key), "{key} stored: {data}");
        }
        let (_, h) = app
            .get(&format!(
                "/metrics/get-history?run_id={id}&metric_key=fresh_metric"
            ))
            .await;
        assert!(
            h["metrics"].as_array().is_none_or(Vec::is_empty),
            "metric history stored: {h}"
        );
    }
}

/// Params and tags of a batch are written as one statement each: a tag given twice keeps
/// its last value (the run's name too), and values with quotes, backslashes and non-ASCII
/// text come back as sent.
#[tokio::test]
async fn a_batch_writes_every_param_and_tag_as_sent() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    let odd = "say \"hi\" \\ back\\slash, é, 🙂, [1, 2] {\"k\": null}";
    let params: Vec<Value> = (0..60)
        .map(|i| json!({"key": format!("p{i:02}"), "value": format!("{odd} {i}")}))
        .collect();
    let b = json!({"run_id": id, "params": params, "tags": [
        {"key": "k", "value": "1"},
        {"key": "other", "value": odd},
        {"key": "mlflow.runName", "value": "first"},
        {"key": "k", "value": "2"},
        {"key": "mlflow.runName", "value": "second"},
    ]});
    app.ok("/runs/log-batch", b).await;
    let (_, got) = app.get(&format!("/runs/get?run_id={id}")).await;
    let data = &got["run"]["data"];
    let value_of = |list: &str, key: &str| -> Vec<String> {
        data[list]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["key"] == key)
            .map(|t| t["value"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(value_of("tags", "k"), ["2"]);
    assert_eq!(value_of("tags", "other"), [odd]);
    assert_eq!(value_of("tags", "mlflow.runName"), ["second"]);
    assert_eq!(got["run"]["info"]["run_name"], "second");
    assert_eq!(data["params"].as_array().unwrap().len(), 60);
    for i in [0, 31, 59] {
        assert_eq!(
            value_of("params", &format!("p{i:02}")),
            [format!("{odd} {i}")]
        );
    }
    // The same params again, one new: accepted; one changed: refused, the new one not kept.
    let again = json!({"run_id": id, "params": [
        {"key": "p07", "value": format!("{odd} 7")},
        {"key": "fresh", "value": "1"},
    ]});
    app.ok("/runs/log-batch", again).await;
    let changed = json!({"run_id": id, "params": [
        {"key": "fresher", "value": "1"},
        {"key": "p08", "value": "other"},
    ]});
    let r = app.post("/runs/log-batch", changed).await;
    assert_error(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Changing param values is not allowed",
    );
    let data = run_data(&app, &id).await;
    let text = data.to_string();
    assert!(
        text.contains("\"fresh\"") && !text.contains("fresher"),
        "{data}"
    );
}

#[tokio::test]
async fn tags_upsert_and_delete() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    app.ok(
        "/runs/set-tag",
        json!({"run_id": id, "key": "k", "value": "1"}),
    )
    .await;
    app.ok(
        "/runs/set-tag",
        json!({"run_uuid": id, "key": "k", "value": "2"}),
    )
    .await;
    let data = run_data(&app, &id).await;
    assert!(data["tags"]
        .as_array()
        .unwrap()
        .contains(&json!({"key": "k", "value": "2"})));
    app.ok("/runs/delete-tag", json!({"run_id": id, "key": "k"}))
        .await;
    let r = app
        .post("/runs/delete-tag", json!({"run_id": id, "key": "fakeTag"}))
        .await;
    assert_error(
        &r,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "No tag with name: fakeTag",
    );
    let r = app
        .post(
            "/runs/set-tag",
            json!({"run_id": id, "key": "k", "value": 41}),
        )
        .await;
    assert_error(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Invalid value 41 for parameter 'value' supplied",
    );
    let long = "t".repeat(9000);
    app.ok(
        "/runs/set-tag",
        json!({"run_id": id, "key": "long", "value": long}),
    )
    .await;
    let data = run_data(&app, &id).await;
    let t = data["tags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["key"] == "long")
        .unwrap()
        .clone();
    assert_eq!(t["value"].as_str().unwrap().len(), 8000);
}

#[tokio::test]
async fn validation_errors_name_the_field() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    let cases = [
        (
            "/runs/log-metric",
            json!({"run_id": id, "key": "a", "value": 1, "timestamp": "foo"}),
            "Invalid value \"foo\" for parameter 'timestamp' supplied",
        ),
        (
            "/runs/log-metric",
            json!({"run_id": id, "key": "a", "value": 1, "timestamp": 1, "step": "foo"}),
            "Invalid value \"foo\" for parameter 'step' supplied",
        ),
        (
            "/runs/log-metric",
            json!({"run_id": id, "key": "a", "value": true, "timestamp": 1}),
            "parameter 'value'",
        ),
        (
            "/runs/log-metric",
            json!({"run_id": id, "key": "a", "value": 1, "timestamp": -1}),
            "Timestamp must be nonnegative",
        ),
        (
            "/runs/log-metric",
            json!({"run_id": 31, "key": "a", "value": 1, "timestamp": 1}),
            "Invalid value 31 for parameter 'run_id' supplied",
        ),
        (
            "/runs/log-metric",
            json!({"run_id": id, "key": "../x", "value": 1, "timestamp": 1}),
            "parameter 'key'",
        ),
        (
            "/runs/log-batch",
            json!({"run_id": id, "metrics": [{"key": "a", "value": 1}]}),
            "Missing value for required parameter 'metrics[0].timestamp'",
        ),
        (
            "/runs/log-batch",
            json!({"run_id": id, "metrics": [{"key": "a$", "value": 1, "timestamp": 1}]}),
            "Names may only contain alphanumerics",
        ),
        (
            "/runs/log-batch",
            json!({"run_id": id, "params": [{"key": "k".repeat(251), "value": "1"}]}),
            "250",
        ),
        (
            "/runs/log-parameter",
            json!({"run_id": id, "key": "a"}),
            "Missing value for required parameter 'value'.",
        ),
    ];
    for (path, body, msg) in cases {
        let r = app.post(path, body).await;
        assert_error(&r, 400, "INVALID_PARAMETER_VALUE", msg);
    }
}

#[tokio::test]
async fn batch_limits() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    let metrics = |n: usize| -> Vec<Value> {
        (0..n)
            .map(|i| json!({"key": "m", "value": i, "timestamp": 1, "step": i}))
            .collect()
    };
    let kvs = |n: usize| -> Vec<Value> {
        (0..n)
            .map(|i| json!({"key": format!("k{i}"), "value": "v"}))
            .collect()
    };
    app.ok(
        "/runs/log-batch",
        json!({"run_id": id, "metrics": metrics(1000)}),
    )
    .await;
    let h = app
        .ok_get(&format!("/metrics/get-history?run_id={id}&metric_key=m"))
        .await;
    assert_eq!(h["metrics"].as_array().unwrap().len(), 1000);
    for body in [
        json!({"run_id": id, "metrics": metrics(1001)}),
        json!({"run_id": id, "params": kvs(101)}),
        json!({"run_id": id, "tags": kvs(101)}),
        json!({"run_id": id, "metrics": metrics(900), "params": kvs(100), "tags": kvs(1)}),
    ] {
        let r = app.post("/runs/log-batch", body).await;
        assert_error(
            &r,
            400,
            "INVALID_PARAMETER_VALUE",
            "A batch logging request can contain at most",
        );
    }
    app.ok(
        "/runs/log-batch",
        json!({"run_id": id, "params": kvs(100), "tags": kvs(100)}),
    )
    .await;
}

#[tokio::test]
async fn deleted_runs_refuse_writes() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    app.ok("/runs/delete", json!({"run_id": id})).await;
    for (path, body) in [
        (
            "/runs/log-metric",
            json!({"run_id": id, "key": "a", "value": 1, "timestamp": 1}),
        ),
        (
            "/runs/log-parameter",
            json!({"run_id": id, "key": "a", "value": "1"}),
        ),
        (
            "/runs/set-tag",
            json!({"run_id": id, "key": "a", "value": "1"}),
        ),
        ("/runs/delete-tag", json!({"run_id": id, "key": "a"})),
        ("/runs/log-batch", json!({"run_id": id})),
        ("/runs/log-inputs", json!({"run_id": id})),
    ] {
        let r = app.post(path, body).await;
        assert_error(
            &r,
            400,
            "INVALID_PARAMETER_VALUE",
            "must be in the 'active' state. Current state is deleted.",
        );
    }
}

#[tokio::test]
async fn log_inputs_validates_and_accepts() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    let ok = json!({"run_id": id, "datasets": [{
        "tags": [{"key": "mlflow.data.context", "value": "train"}],
        "dataset": {"name": "d", "digest": "abc", "source_type": "local", "source": "{}"}
    }], "models": [{"model_id": "m-1"}]});
    assert_eq!(app.ok("/runs/log-inputs", ok).await, json!({}));
    let bad =
        json!({"run_id": id, "datasets": [{"dataset": {"name": "d", "digest": "x".repeat(37)}}]});
    assert_error(
        &app.post("/runs/log-inputs", bad).await,
        400,
        "INVALID_PARAMETER_VALUE",
        "digest",
    );
    let bad = json!({"run_id": id, "datasets": [{"tags": []}]});
    assert_error(
        &app.post("/runs/log-inputs", bad).await,
        400,
        "INVALID_PARAMETER_VALUE",
        "datasets[0].dataset",
    );
}
