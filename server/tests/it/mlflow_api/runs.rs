//! runs/create, get, update, delete, restore, search

use serde_json::{json, Value};

use crate::helpers::{assert_error, TestApp};

fn tag<'a>(run: &'a Value, key: &str) -> Option<&'a str> {
    run["data"]["tags"]
        .as_array()?
        .iter()
        .find(|t| t["key"] == key)
        .and_then(|t| t["value"].as_str())
}

#[tokio::test]
async fn create_returns_mlflow_shape() {
    let app = TestApp::new();
    let body = json!({
        "experiment_id": "0", "user_id": "alice", "run_name": "parent", "start_time": 1731999999123i64,
        "tags": [{"key": "mlflow.user", "value": "alice"}, {"key": "mlflow.source.type", "value": "LOCAL"}]
    });
    let v = app.ok("/runs/create", body).await;
    let info = &v["run"]["info"];
    let id = info["run_id"].as_str().unwrap();
    assert_eq!(id.len(), 32);
    assert!(id
        .chars()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert_eq!(info["run_uuid"], id);
    assert_eq!(info["experiment_id"], "0");
    assert_eq!(info["run_name"], "parent");
    assert_eq!(info["user_id"], "alice");
    assert_eq!(info["status"], "RUNNING");
    assert_eq!(info["start_time"], 1731999999123i64);
    assert!(info.get("end_time").is_none());
    assert_eq!(
        info["artifact_uri"],
        format!("mlflow-artifacts:/0/{id}/artifacts")
    );
    assert_eq!(info["lifecycle_stage"], "active");
    assert_eq!(tag(&v["run"], "mlflow.runName"), Some("parent"));
    assert_eq!(tag(&v["run"], "mlflow.user"), Some("alice"));
    assert_eq!(v["run"]["inputs"], json!({}));
    assert!(v["run"]["data"].get("metrics").is_none());
}

#[tokio::test]
async fn run_names_are_generated_and_synced_with_the_tag() {
    let app = TestApp::new();
    let v = app.ok("/runs/create", json!({"experiment_id": "0"})).await;
    let name = v["run"]["info"]["run_name"].as_str().unwrap().to_string();
    assert_eq!(name.split('-').count(), 3, "{name}");
    assert_eq!(tag(&v["run"], "mlflow.runName"), Some(name.as_str()));
    let id = v["run"]["info"]["run_id"].as_str().unwrap().to_string();
    // From the tag alone.
    let v = app
        .ok(
            "/runs/create",
            json!({"experiment_id": "0", "tags": [{"key": "mlflow.runName", "value": "t"}]}),
        )
        .await;
    assert_eq!(v["run"]["info"]["run_name"], "t");
    // Conflicting name and tag.
    let body = json!({"experiment_id": "0", "run_name": "a", "tags": [{"key": "mlflow.runName", "value": "b"}]});
    assert_error(
        &app.post("/runs/create", body).await,
        400,
        "INVALID_PARAMETER_VALUE",
        "mlflow.runName",
    );
    // set-tag renames, update renames and re-tags.
    app.ok(
        "/runs/set-tag",
        json!({"run_id": id, "key": "mlflow.runName", "value": "renamed"}),
    )
    .await;
    let r = app.ok_get(&format!("/runs/get?run_id={id}")).await;
    assert_eq!(r["run"]["info"]["run_name"], "renamed");
    app.ok("/runs/update", json!({"run_id": id, "run_name": "again"}))
        .await;
    let r = app.ok_get(&format!("/runs/get?run_uuid={id}")).await;
    assert_eq!(r["run"]["info"]["run_name"], "again");
    assert_eq!(tag(&r["run"], "mlflow.runName"), Some("again"));
}

#[tokio::test]
async fn update_delete_restore() {
    let app = TestApp::new();
    let id = app.run("0", "r").await;
    let v = app
        .ok("/runs/update", json!({"run_id": id, "run_uuid": id, "status": "FINISHED", "end_time": 1731999999999i64}))
        .await;
    assert_eq!(v["run_info"]["status"], "FINISHED");
    assert_eq!(v["run_info"]["end_time"], 1731999999999i64);
    let v = app
        .ok("/runs/update", json!({"run_id": id, "status": 4}))
        .await;
    assert_eq!(v["run_info"]["status"], "FAILED");
    let r = app
        .post("/runs/update", json!({"run_id": id, "status": "DONE"}))
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "status");
    app.ok("/runs/delete", json!({"run_id": id})).await;
    let r = app.ok_get(&format!("/runs/get?run_id={id}")).await;
    assert_eq!(r["run"]["info"]["lifecycle_stage"], "deleted");
    let r = app
        .post("/runs/update", json!({"run_id": id, "status": "RUNNING"}))
        .await;
    assert_error(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        &format!("The run {id} must be in the 'active' state. Current state is deleted."),
    );
    app.ok("/runs/restore", json!({"run_id": id})).await;
    let r = app.ok_get(&format!("/runs/get?run_id={id}")).await;
    assert_eq!(r["run"]["info"]["lifecycle_stage"], "active");
}

#[tokio::test]
async fn unknown_runs_are_404() {
    let app = TestApp::new();
    let missing = "0123456789abcdef0123456789abcdef";
    assert_error(
        &app.get(&format!("/runs/get?run_id={missing}")).await,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "not found",
    );
    for path in [
        "/runs/update",
        "/runs/delete",
        "/runs/restore",
        "/runs/log-inputs",
    ] {
        let r = app.post(path, json!({"run_id": missing})).await;
        assert_error(&r, 404, "RESOURCE_DOES_NOT_EXIST", "Run with id=");
    }
    assert_error(
        &app.get("/runs/get").await,
        400,
        "INVALID_PARAMETER_VALUE",
        "run_id",
    );
    let r = app
        .post("/runs/create", json!({"experiment_id": "99"}))
        .await;
    assert_error(&r, 404, "RESOURCE_DOES_NOT_EXIST", "99");
}

#[tokio::test]
async fn search_with_filter_order_and_pages() {
    let app = TestApp::new();
    let exp = app.experiment("s").await;
    let mut ids = Vec::new();
    // Names, creation order, the metric and the param each sort differently, so an
    // order_by that is ignored (or applied to the wrong column) cannot pass.
    let names_by_creation = ["run-c", "run-e", "run-b", "run-d", "run-a"];
    let losses = [2.0, 5.0, 0.5, 4.0, 1.0];
    let params = [3, 0, 4, 1, 2];
    for i in 0..5 {
        let id = app.run(&exp, names_by_creation[i]).await;
        let m = json!({"run_id": id, "key": "loss", "value": losses[i], "timestamp": 1, "step": 0});
        app.ok("/runs/log-metric", m).await;
        app.ok(
            "/runs/log-parameter",
            json!({"run_id": id, "key": "i", "value": params[i].to_string()}),
        )
        .await;
        ids.push(id);
    }
    let names = |v: &Value| -> Vec<String> {
        v["runs"].as_array().map_or(vec![], |a| {
            a.iter()
                .map(|r| r["info"]["run_name"].as_str().unwrap().to_string())
                .collect()
        })
    };
    let body = json!({"experiment_ids": [exp], "filter": "metrics.loss < 3", "order_by": ["metrics.loss ASC"]});
    let v = app.ok("/runs/search", body).await;
    assert_eq!(names(&v), ["run-b", "run-a", "run-c"]);
    assert_eq!(v["runs"][0]["data"]["metrics"][0]["value"], 0.5);
    assert_eq!(
        v["runs"][0]["data"]["params"],
        json!([{"key": "i", "value": "4"}])
    );
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut body =
            json!({"experiment_ids": [exp], "max_results": 2, "order_by": ["params.i DESC"]});
        if let Some(t) = &token {
            body["page_token"] = json!(t);
        }
        let v = app.ok("/runs/search", body).await;
        seen.extend(names(&v));
        match v["next_page_token"].as_str() {
            Some(t) => token = Some(t.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, ["run-b", "run-c", "run-a", "run-d", "run-e"]);
    let v = app
        .ok("/runs/search", json!({"experiment_ids": ["12345"]}))
        .await;
    assert_eq!(v, json!({}));
    app.ok("/runs/delete", json!({"run_id": ids[0]})).await;
    let v = app
        .ok(
            "/runs/search",
            json!({"experiment_ids": [exp], "run_view_type": "DELETED_ONLY"}),
        )
        .await;
    assert_eq!(names(&v), ["run-c"]);
}

#[tokio::test]
async fn search_errors() {
    let app = TestApp::new();
    for body in [
        json!({"experiment_ids": ["0"], "filter": "metrics.a = 'x'"}),
        json!({"experiment_ids": ["0"], "filter": "x.y = 1"}),
        json!({"experiment_ids": ["0"], "order_by": ["metrics.a", "metrics.a"]}),
        json!({"experiment_ids": ["0"], "page_token": "eyJvZmZzZXQiOiAtMX0="}),
        json!({"experiment_ids": ["0"], "max_results": 50001}),
        json!({"experiment_ids": "0"}),
    ] {
        let r = app.post("/runs/search", body.clone()).await;
        assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "");
    }
    let r = app
        .post(
            "/runs/search",
            json!({"experiment_ids": ["0"], "page_token": "%%%"}),
        )
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "Invalid page token");
}
