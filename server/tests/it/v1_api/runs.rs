//! The runs table and the run page's overview.

use serde_json::Value;

use crate::helpers::TestApp;

fn names(table: &Value) -> Vec<String> {
    table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn runs_table_sends_only_the_requested_columns() {
    let app = TestApp::demo();
    let exp = app.experiment_id("/Workspace/Shared/vision/detection");
    let uri = format!(
        "/api/v1/experiments/{exp}/runs?params=lr,batch_size&param=no,such&metrics=loss&metric=mAP&tags=team"
    );
    let (status, table) = app.get_json(&uri).await;
    assert_eq!(status, 200, "{table}");
    assert_eq!(
        table["columns"]["params"],
        serde_json::json!(["lr", "batch_size", "no,such"])
    );
    assert_eq!(
        table["columns"]["metrics"],
        serde_json::json!(["loss", "mAP"])
    );
    assert_eq!(table["total"], 13);
    assert!(table.get("next_page_token").is_none(), "one page: {table}");
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 13);
    let parent = app.run_id("detr-lr-sweep");
    let child = rows
        .iter()
        .find(|r| r["run_name"] == "detr-lr2e-4-bs32")
        .unwrap();
    assert_eq!(child["params"], serde_json::json!(["2e-4", "32", null]));
    assert!(child["metrics"][0].as_f64().unwrap() > 1.0);
    assert!(child["metrics"][1].as_f64().unwrap() > 0.3);
    assert_eq!(child["tags"], serde_json::json!(["vision"]));
    assert_eq!(child["parent_run_id"], parent.as_str());
    assert_eq!(child["status"], "FINISHED");
    assert!(child["end_time"].as_i64().unwrap() > child["start_time"].as_i64().unwrap());
    let sweep = rows
        .iter()
        .find(|r| r["run_name"] == "detr-lr-sweep")
        .unwrap();
    assert!(sweep["parent_run_id"].is_null());
    assert_eq!(sweep["metrics"], serde_json::json!([null, null]));
    // Default order: newest first.
    let starts: Vec<i64> = rows
        .iter()
        .map(|r| r["start_time"].as_i64().unwrap())
        .collect();
    assert!(starts.windows(2).all(|w| w[0] >= w[1]), "{starts:?}");
    // Without columns the rows carry none.
    let (_, bare) = app
        .get_json(&format!("/api/v1/experiments/{exp}/runs"))
        .await;
    assert_eq!(bare["rows"][0]["params"], serde_json::json!([]));
}

#[tokio::test]
async fn runs_table_filters_and_sorts_with_mlflow_syntax() {
    let app = TestApp::demo();
    let exp = app.experiment_id("/Users/bob/resnet-ablation");
    let base = format!("/api/v1/experiments/{exp}/runs?metrics=val_accuracy");
    let (status, table) = app
        .get_json(&format!("{base}&order_by=metrics.val_accuracy%20DESC"))
        .await;
    assert_eq!(status, 200, "{table}");
    let acc: Vec<f64> = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["metrics"][0].as_f64().unwrap())
        .collect();
    assert_eq!(acc.len(), 6);
    assert!(acc.windows(2).all(|w| w[0] >= w[1]), "{acc:?}");
    let filter =
        "params.augment%20%3D%20%27true%27%20AND%20attributes.status%20%3D%20%27FINISHED%27";
    let (status, table) = app
        .get_json(&format!(
            "{base}&filter={filter}&order_by=params.depth%20ASC&order_by=start_time%20DESC"
        ))
        .await;
    assert_eq!(status, 200, "{table}");
    assert_eq!(
        names(&table),
        vec!["resnet18-aug", "resnet34-aug", "resnet50-aug"]
    );
    assert_eq!(table["total"], 3);
    let (_, deleted) = app
        .get_json(&format!("/api/v1/experiments/{exp}/runs?view=deleted"))
        .await;
    assert_eq!(deleted["total"], 0);
}

#[tokio::test]
async fn run_detail_links_parent_and_children() {
    let app = TestApp::demo();
    let parent = app.run_id("detr-lr-sweep");
    let (status, run) = app.get_json(&format!("/api/v1/runs/{parent}")).await;
    assert_eq!(status, 200, "{run}");
    assert_eq!(run["experiment_name"], "/Workspace/Shared/vision/detection");
    assert_eq!(run["children"].as_array().unwrap().len(), 12);
    assert!(run["parent"].is_null());
    assert_eq!(run["metrics"][0]["key"], "best_mAP");

    let child = app.run_id("detr-lr1e-4-bs16");
    let (_, run) = app.get_json(&format!("/api/v1/runs/{child}")).await;
    assert_eq!(run["parent"]["run_id"], parent.as_str());
    assert_eq!(run["parent"]["run_name"], "detr-lr-sweep");
    assert!(run["children"].as_array().unwrap().is_empty());
    let keys: Vec<&str> = run["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["key"].as_str().unwrap())
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    let loss = run["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == "loss")
        .unwrap();
    assert_eq!(loss["step"], 10_000);

    // The diverged attempt's latest loss is NaN, sent as the string "NaN".
    let failed = app.run_id("sft-7b-lr1e-4");
    let (_, run) = app.get_json(&format!("/api/v1/runs/{failed}")).await;
    assert_eq!(run["status"], "FAILED");
    let loss = run["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == "train/loss")
        .unwrap();
    assert_eq!(loss["value"], "NaN");
    let running = app.run_id("sft-13b-lr2e-5");
    let (_, run) = app.get_json(&format!("/api/v1/runs/{running}")).await;
    assert_eq!(run["status"], "RUNNING");
    assert!(run["end_time"].is_null());
}

#[tokio::test]
async fn columns_default_answers_the_columns_a_table_shows_by_default() {
    let app = TestApp::demo();
    let exp = app.experiment_id("/Users/alice/llm-sft");
    let (_, detail) = app.get_json(&format!("/api/v1/experiments/{exp}")).await;
    let keys = |k: &str| -> Vec<String> { serde_json::from_value(detail[k].clone()).unwrap() };
    let expected = api_types::RunTableColumns::defaults(&keys("param_keys"), &keys("metric_keys"));
    assert_eq!(
        expected.params.len(),
        4,
        "the demo has enough params: {detail}"
    );
    assert!(!expected.metrics.is_empty());
    assert!(keys("metric_keys").iter().any(|k| k.starts_with("system/")));
    assert!(expected.metrics.iter().all(|k| !k.starts_with("system/")));

    let (status, by_default) = app
        .get_json(&format!("/api/v1/experiments/{exp}/runs?columns=default"))
        .await;
    assert_eq!(status, 200, "{by_default}");
    assert_eq!(
        by_default["columns"],
        serde_json::to_value(&expected).unwrap()
    );
    let named = expected
        .params
        .iter()
        .map(|k| format!("param={k}"))
        .chain(expected.metrics.iter().map(|k| format!("metric={k}")))
        .collect::<Vec<_>>()
        .join("&");
    let (_, by_name) = app
        .get_json(&format!("/api/v1/experiments/{exp}/runs?{named}"))
        .await;
    assert_eq!(by_default, by_name, "the same page as naming those columns");

    for (query, part) in [
        ("columns=default&param=lr", "cannot be combined"),
        ("columns=all", "must be 'default'"),
    ] {
        let (status, body) = app
            .get_json(&format!("/api/v1/experiments/{exp}/runs?{query}"))
            .await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["code"], "INVALID_PARAMETER", "{body}");
        assert!(body["message"].as_str().unwrap().contains(part), "{body}");
    }
}
