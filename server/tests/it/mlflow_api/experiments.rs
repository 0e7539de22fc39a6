//! experiments/*

use serde_json::json;

use crate::helpers::{assert_error, TestApp};

#[tokio::test]
async fn default_experiment_exists() {
    let app = TestApp::new();
    let v = app.ok_get("/experiments/get?experiment_id=0").await;
    assert_eq!(v["experiment"]["name"], "Default");
    assert_eq!(v["experiment"]["artifact_location"], "mlflow-artifacts:/0");
    assert_eq!(v["experiment"]["lifecycle_stage"], "active");
    assert!(v["experiment"]["creation_time"].is_i64());
}

#[tokio::test]
async fn create_get_and_get_by_name() {
    let app = TestApp::new();
    let body =
        json!({"name": "/Users/alice@example.com/sft ü", "tags": [{"key": "k", "value": "v"}]});
    let v = app.ok("/experiments/create", body).await;
    assert_eq!(v, json!({"experiment_id": "1"}));
    let e = app.ok_get("/experiments/get?experiment_id=1").await["experiment"].clone();
    assert_eq!(e["experiment_id"], "1");
    assert_eq!(e["artifact_location"], "mlflow-artifacts:/1");
    assert_eq!(e["tags"], json!([{"key": "k", "value": "v"}]));
    let by_name = app
        .ok_get(
            "/experiments/get-by-name?experiment_name=%2FUsers%2Falice%40example.com%2Fsft+%C3%BC",
        )
        .await;
    assert_eq!(by_name["experiment"], e);
    let custom = json!({"name": "c", "artifact_location": "s3://bucket/x"});
    let id = app.ok("/experiments/create", custom).await["experiment_id"].clone();
    let e = app
        .ok_get(&format!(
            "/experiments/get?experiment_id={}",
            id.as_str().unwrap()
        ))
        .await;
    assert_eq!(e["experiment"]["artifact_location"], "s3://bucket/x");
}

#[tokio::test]
async fn create_errors() {
    let app = TestApp::new();
    app.experiment("dup").await;
    let r = app
        .post("/experiments/create", json!({"name": "dup"}))
        .await;
    assert_error(&r, 400, "RESOURCE_ALREADY_EXISTS", "dup");
    let r = app.post("/experiments/create", json!({})).await;
    assert_error(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Missing value for required parameter 'name'.",
    );
    let r = app.post("/experiments/create", json!({"name": 123})).await;
    assert_error(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Invalid value 123 for parameter 'name'",
    );
    let r = app.post("/experiments/create", json!({"name": ""})).await;
    assert_error(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Invalid experiment name",
    );
    let r = app
        .post("/experiments/create", json!({"name": "x".repeat(501)}))
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "");
    let r = app
        .post(
            "/experiments/create",
            json!({"name": "r", "artifact_location": "runs:/x"}),
        )
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "runs:/");
}

#[tokio::test]
async fn missing_experiments_are_404() {
    let app = TestApp::new();
    assert_error(
        &app.get("/experiments/get?experiment_id=42").await,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "42",
    );
    assert_error(
        &app.get("/experiments/get?experiment_id=abc").await,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "",
    );
    assert_error(
        &app.get("/experiments/get-by-name?experiment_name=nope")
            .await,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "nope",
    );
    assert_error(
        &app.get("/experiments/get").await,
        400,
        "INVALID_PARAMETER_VALUE",
        "experiment_id",
    );
}

#[tokio::test]
async fn delete_restore_cascades_to_runs_and_names_stay_reserved() {
    let app = TestApp::new();
    let id = app.experiment("gone").await;
    let run = app.run(&id, "r").await;
    app.ok("/experiments/delete", json!({"experiment_id": id}))
        .await;
    let e = app
        .ok_get(&format!("/experiments/get?experiment_id={id}"))
        .await;
    assert_eq!(e["experiment"]["lifecycle_stage"], "deleted");
    let r = app.ok_get(&format!("/runs/get?run_id={run}")).await;
    assert_eq!(r["run"]["info"]["lifecycle_stage"], "deleted");
    let r = app
        .post("/experiments/create", json!({"name": "gone"}))
        .await;
    assert_error(&r, 400, "RESOURCE_ALREADY_EXISTS", "gone");
    let r = app.post("/runs/create", json!({"experiment_id": id})).await;
    assert_error(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "must be in the 'active' state",
    );
    let by_name = app
        .ok_get("/experiments/get-by-name?experiment_name=gone")
        .await;
    assert_eq!(by_name["experiment"]["lifecycle_stage"], "deleted");
    app.ok("/experiments/restore", json!({"experiment_id": id}))
        .await;
    let r = app.ok_get(&format!("/runs/get?run_id={run}")).await;
    assert_eq!(r["run"]["info"]["lifecycle_stage"], "active");
    let r = app
        .post("/experiments/delete", json!({"experiment_id": "0"}))
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "default experiment");
}

#[tokio::test]
async fn rename_and_tags() {
    let app = TestApp::new();
    let id = app.experiment("a").await;
    app.experiment("b").await;
    app.ok(
        "/experiments/update",
        json!({"experiment_id": id, "new_name": "a2"}),
    )
    .await;
    let e = app
        .ok_get(&format!("/experiments/get?experiment_id={id}"))
        .await;
    assert_eq!(e["experiment"]["name"], "a2");
    let r = app
        .post(
            "/experiments/update",
            json!({"experiment_id": id, "new_name": "b"}),
        )
        .await;
    assert_error(&r, 400, "RESOURCE_ALREADY_EXISTS", "b");
    let tag = json!({"experiment_id": id, "key": "note", "value": "v1"});
    app.ok("/experiments/set-experiment-tag", tag).await;
    let tag = json!({"experiment_id": id, "key": "note", "value": "v2"});
    app.ok("/experiments/set-experiment-tag", tag).await;
    let e = app
        .ok_get(&format!("/experiments/get?experiment_id={id}"))
        .await;
    assert_eq!(
        e["experiment"]["tags"],
        json!([{"key": "note", "value": "v2"}])
    );
    app.ok(
        "/experiments/delete-experiment-tag",
        json!({"experiment_id": id, "key": "note"}),
    )
    .await;
    let e = app
        .ok_get(&format!("/experiments/get?experiment_id={id}"))
        .await;
    assert!(e["experiment"].get("tags").is_none());
    let r = app
        .post(
            "/experiments/delete-experiment-tag",
            json!({"experiment_id": id, "key": "note"}),
        )
        .await;
    assert_error(&r, 404, "RESOURCE_DOES_NOT_EXIST", "No tag with name: note");
    let r = app
        .post(
            "/experiments/set-experiment-tag",
            json!({"experiment_id": id, "key": "a//b", "value": "x"}),
        )
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "a//b");
    app.ok("/experiments/delete", json!({"experiment_id": id}))
        .await;
    let r = app
        .post(
            "/experiments/update",
            json!({"experiment_id": id, "new_name": "z"}),
        )
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "non-active");
}

#[tokio::test]
async fn search_filters_orders_and_pages() {
    let app = TestApp::new();
    for name in ["ab", "a", "Abc"] {
        app.experiment(name).await;
    }
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["experiments"].as_array().map_or(vec![], |a| {
            a.iter()
                .map(|e| e["name"].as_str().unwrap().to_string())
                .collect()
        })
    };
    let v = app
        .ok("/experiments/search", json!({"order_by": ["name DESC"]}))
        .await;
    assert_eq!(names(&v), ["ab", "a", "Default", "Abc"]);
    let v = app
        .ok(
            "/experiments/search",
            json!({"filter": "name LIKE 'a%'", "order_by": ["name"]}),
        )
        .await;
    assert_eq!(names(&v), ["a", "ab"]);
    let v = app
        .ok(
            "/experiments/search",
            json!({"filter": "name ILIKE 'a%'", "order_by": ["name"]}),
        )
        .await;
    assert_eq!(names(&v), ["Abc", "a", "ab"]);
    let v = app
        .ok_get("/experiments/search?filter=name+%3D+%27a%27&max_results=5")
        .await;
    assert_eq!(names(&v), ["a"]);
    // Default order: newest first, then id.
    let v = app
        .ok("/experiments/search", json!({"max_results": 2}))
        .await;
    assert_eq!(v["experiments"].as_array().unwrap().len(), 2);
    let token = v["next_page_token"].as_str().unwrap().to_string();
    let v2 = app
        .ok(
            "/experiments/search",
            json!({"max_results": 2, "page_token": token}),
        )
        .await;
    assert_eq!(v2["experiments"].as_array().unwrap().len(), 2);
    assert!(v2.get("next_page_token").is_none());
    let mut all = names(&v);
    all.extend(names(&v2));
    all.sort();
    assert_eq!(all, ["Abc", "Default", "a", "ab"]);
    let id = app.experiment("tagged").await;
    let tag = json!({"experiment_id": id, "key": "team", "value": "vision"});
    app.ok("/experiments/set-experiment-tag", tag).await;
    let v = app
        .ok(
            "/experiments/search",
            json!({"filter": "tags.team = 'vision'"}),
        )
        .await;
    assert_eq!(names(&v), ["tagged"]);
    app.ok("/experiments/delete", json!({"experiment_id": id}))
        .await;
    let v = app
        .ok("/experiments/search", json!({"view_type": "DELETED_ONLY"}))
        .await;
    assert_eq!(names(&v), ["tagged"]);
    let v = app
        .ok("/experiments/search", json!({"view_type": "ALL"}))
        .await;
    assert_eq!(names(&v).len(), 5);
}

#[tokio::test]
async fn search_errors() {
    let app = TestApp::new();
    for body in [
        json!({"filter": "nope = 'x'"}),
        json!({"filter": "name < 'x'"}),
        json!({"filter": "creation_time = 'x'"}),
        json!({"order_by": ["tags.x"]}),
        json!({"page_token": "garbage!"}),
        json!({"max_results": 123456789}),
        json!({"view_type": "SOME"}),
    ] {
        let r = app.post("/experiments/search", body.clone()).await;
        assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "");
    }
    let r = app
        .post("/experiments/search", json!({"max_results": 123456789}))
        .await;
    assert_error(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Invalid value 123456789 for parameter 'max_results' supplied",
    );
}

/// As `mlflow server`: a relative local `artifact_location` is stored absolute (against the
/// server's working directory), and a run under a location with a query string gets
/// `/<run_id>/artifacts` before the query.
#[tokio::test]
async fn artifact_locations_resolve_like_mlflow() {
    let app = TestApp::new();
    let cwd = std::env::current_dir().unwrap();
    let cwd = cwd.to_str().unwrap();
    for (loc, want) in [
        ("rel/dir", format!("{cwd}/rel/dir")),
        ("./x//y/", format!("{cwd}/x/y")),
        ("file:rel", format!("file://{cwd}/rel")),
        ("/abs/q", "/abs/q".to_string()),
        (
            "scheme://host/db?driver=x",
            "scheme://host/db?driver=x".into(),
        ),
    ] {
        let body = json!({"name": format!("loc {loc}"), "artifact_location": loc});
        let id = app.ok("/experiments/create", body).await["experiment_id"]
            .as_str()
            .unwrap()
            .to_string();
        let e = app
            .ok_get(&format!("/experiments/get?experiment_id={id}"))
            .await;
        assert_eq!(e["experiment"]["artifact_location"], want.as_str(), "{loc}");
        let run = app.run(&id, "r").await;
        let info = app.ok_get(&format!("/runs/get?run_id={run}")).await["run"]["info"].clone();
        let uri = match want.split_once('?') {
            Some((path, query)) if want.contains("://") => {
                format!("{path}/{run}/artifacts?{query}")
            }
            _ => format!("{want}/{run}/artifacts"),
        };
        assert_eq!(info["artifact_uri"], uri.as_str(), "{loc}");
    }
    let r = app
        .post(
            "/experiments/create",
            json!({"name": "dots", "artifact_location": "s3://b/p?x=%2e%2e"}),
        )
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "Invalid query string");
}
