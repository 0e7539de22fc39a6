//! `runs/log-inputs` (datasets and model inputs), `runs/outputs`, and the run's `inputs`
//! and `outputs` in `runs/get` and `runs/search`, as MLflow 3.17.2 answers them.

use serde_json::{json, Value};

use super::{call, create, id};
use crate::helpers::{assert_error, TestApp};

fn dataset(name: &str, digest: &str, context: &str) -> Value {
    json!({
        "tags": [{"key": "mlflow.data.context", "value": context}],
        "dataset": {"name": name, "digest": digest, "source_type": "local",
                    "source": "{\"uri\": \"/data\"}", "schema": "{\"cols\": 1}",
                    "profile": "{\"rows\": 2}"}
    })
}

#[tokio::test]
async fn datasets_are_stored_deduplicated_and_returned() {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    let run = app.run(&exp, "r").await;
    let body = json!({"run_id": run, "datasets": [
        dataset("train", "d1", "training"),
        dataset("eval", "d2", "eval"),
        // The first of a repeated name and digest wins.
        dataset("train", "d1", "ignored"),
    ]});
    assert_eq!(app.ok("/runs/log-inputs", body.clone()).await, json!({}));
    // Logging again adds nothing.
    app.ok("/runs/log-inputs", body).await;
    let want = json!({"dataset_inputs": [
        dataset("train", "d1", "training"),
        dataset("eval", "d2", "eval"),
    ]});
    let got = app.ok_get(&format!("/runs/get?run_id={run}")).await;
    assert_eq!(got["run"]["inputs"], want);
    assert_eq!(got["run"]["outputs"], json!({}));
    let found = app
        .ok("/runs/search", json!({"experiment_ids": [exp]}))
        .await;
    assert_eq!(found["runs"][0]["inputs"], want);
    // One dataset row per experiment, name and digest, shared by the runs that use it.
    let other = app.run(&exp, "r2").await;
    let body = json!({"run_id": other, "datasets": [dataset("train", "d1", "training")]});
    app.ok("/runs/log-inputs", body).await;
    assert_eq!(app.scalar("SELECT count(*) FROM datasets"), 2);
    assert_eq!(app.scalar("SELECT count(*) FROM dataset_inputs"), 3);
    // Optional fields are omitted when absent, as MLflow's JSON does.
    let bare = app.run(&exp, "bare").await;
    let body = json!({"run_id": bare, "datasets": [{"dataset": {"name": "n", "digest": "x"}}]});
    app.ok("/runs/log-inputs", body).await;
    let got = app.ok_get(&format!("/runs/get?run_id={bare}")).await;
    assert_eq!(
        got["run"]["inputs"],
        json!({"dataset_inputs": [{"dataset": {
            "name": "n", "digest": "x", "source_type": "", "source": ""
        }}]})
    );
}

#[tokio::test]
async fn model_inputs_and_outputs_link_runs_and_models() {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    let run = app.run(&exp, "r").await;
    let a = id(&create(&app, &exp, json!({"source_run_id": run})).await);
    let b = id(&create(&app, &exp, json!({})).await);
    let out = json!({"run_id": run, "models": [{"model_id": a, "step": 3}]});
    assert_eq!(app.ok("/runs/outputs", out.clone()).await, json!({}));
    app.ok("/runs/outputs", out).await;
    app.ok(
        "/runs/log-inputs",
        json!({"run_id": run, "models": [{"model_id": b}]}),
    )
    .await;
    let got = app.ok_get(&format!("/runs/get?run_id={run}")).await;
    assert_eq!(
        got["run"]["inputs"],
        json!({"model_inputs": [{"model_id": b}]})
    );
    assert_eq!(
        got["run"]["outputs"],
        json!({"model_outputs": [{"model_id": a, "step": 3}]})
    );
    // MLflow links unknown model ids without complaint.
    let out = json!({"run_id": run, "models": [{"model_id": "m-unknown", "step": 1}]});
    app.ok("/runs/outputs", out).await;
    // But a model list is required, and the run must exist and be active.
    assert_error(
        &app.post("/runs/outputs", json!({"run_id": run})).await,
        400,
        "INVALID_PARAMETER_VALUE",
        "Missing value for required parameter 'models'",
    );
    let missing = "0123456789abcdef0123456789abcdef";
    let body = json!({"run_id": missing, "models": [{"model_id": a, "step": 1}]});
    assert_error(
        &app.post("/runs/outputs", body).await,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "Run with id=",
    );
    app.ok("/runs/delete", json!({"run_id": run})).await;
    let body = json!({"run_id": run, "models": [{"model_id": a, "step": 1}]});
    assert_error(
        &app.post("/runs/outputs", body).await,
        400,
        "INVALID_PARAMETER_VALUE",
        "'active' state",
    );
}

#[tokio::test]
async fn metrics_with_a_model_id_are_the_models_metrics() {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    let run = app.run(&exp, "r").await;
    let mid = id(&create(&app, &exp, json!({})).await);
    let one = json!({"run_id": run, "key": "loss", "value": 0.25, "timestamp": 5, "step": 1,
                     "model_id": mid, "dataset_name": "ds", "dataset_digest": "dg"});
    app.ok("/runs/log-metric", one.clone()).await;
    app.ok("/runs/log-metric", one).await;
    let batch = json!({"run_id": run, "metrics": [
        {"key": "acc", "value": "NaN", "timestamp": 6, "step": 2, "model_id": mid},
        {"key": "plain", "value": 1, "timestamp": 6},
        {"key": "lost", "value": 1, "timestamp": 6, "model_id": "m-unknown"},
    ]});
    app.ok("/runs/log-batch", batch).await;
    let (_, v) = call(&app, "GET", &format!("/logged-models/{mid}"), None).await;
    assert_eq!(
        v["model"]["data"]["metrics"],
        json!([
            {"key": "acc", "value": "NaN", "timestamp": 6, "step": 2, "run_id": run,
             "model_id": mid},
            {"key": "loss", "value": 0.25, "timestamp": 5, "step": 1, "run_id": run,
             "dataset_name": "ds", "dataset_digest": "dg", "model_id": mid},
        ])
    );
    // The run has them all as ordinary metrics too.
    let got = app.ok_get(&format!("/runs/get?run_id={run}")).await;
    assert_eq!(got["run"]["data"]["metrics"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn bad_inputs_get_mlflow_errors() {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    let run = app.run(&exp, "r").await;
    let long = |n: usize| "x".repeat(n);
    for (ds, part) in [
        (json!({"name": long(501), "digest": "d"}), "name"),
        (json!({"name": "n", "digest": long(37)}), "digest"),
        (
            json!({"name": "n", "digest": "d", "source": long(65536)}),
            "source",
        ),
        (json!({"digest": "d"}), "datasets[0].dataset.name"),
    ] {
        let body = json!({"run_id": run, "datasets": [{"dataset": ds}]});
        assert_error(
            &app.post("/runs/log-inputs", body).await,
            400,
            "INVALID_PARAMETER_VALUE",
            part,
        );
    }
    let tag = json!({"key": long(256), "value": "v"});
    let body = json!({"run_id": run,
                      "datasets": [{"tags": [tag], "dataset": {"name": "n", "digest": "d"}}]});
    assert_error(
        &app.post("/runs/log-inputs", body).await,
        400,
        "INVALID_PARAMETER_VALUE",
        "key",
    );
    let body = json!({"run_id": run, "models": [{}]});
    assert_error(
        &app.post("/runs/log-inputs", body).await,
        400,
        "INVALID_PARAMETER_VALUE",
        "models[0].model_id",
    );
    // Nothing of a refused request was stored.
    assert_eq!(app.scalar("SELECT count(*) FROM datasets"), 0);
}
