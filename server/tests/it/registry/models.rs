//! registered-models/*: create, get, update, rename, delete, tags, and MLflow's errors.

use serde_json::json;

use super::{admin, err, model, ok, run_in, version_of_run};
use crate::helpers::TestApp;

#[tokio::test]
async fn create_get_update_and_delete() {
    let app = TestApp::new();
    let body = json!({"name": "clf", "description": "d", "tags": [{"key": "team", "value": "cv"}]});
    let v = ok(&app, "POST", "/registered-models/create", body).await;
    let rm = &v["registered_model"];
    assert_eq!(rm["name"], "clf");
    assert_eq!(rm["description"], "d");
    assert_eq!(rm["tags"], json!([{"key": "team", "value": "cv"}]));
    assert!(rm["creation_timestamp"].is_i64());
    assert_eq!(rm["creation_timestamp"], rm["last_updated_timestamp"]);
    assert!(rm.get("latest_versions").is_none() && rm.get("aliases").is_none());
    let got = ok(&app, "GET", "/registered-models/get?name=clf", json!({})).await;
    assert_eq!(got["registered_model"], *rm);

    let v = ok(
        &app,
        "PATCH",
        "/registered-models/update",
        json!({"name": "clf", "description": "new"}),
    )
    .await;
    assert_eq!(v["registered_model"]["description"], "new");
    // Without a description, MLflow clears it.
    let v = ok(
        &app,
        "PATCH",
        "/registered-models/update",
        json!({"name": "clf"}),
    )
    .await;
    assert!(v["registered_model"].get("description").is_none(), "{v}");

    ok(
        &app,
        "DELETE",
        "/registered-models/delete",
        json!({"name": "clf"}),
    )
    .await;
    let r = admin(&app, "GET", "/registered-models/get?name=clf", json!({})).await;
    err(
        &r,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "Registered Model with name=clf not found",
    );
    let r = admin(
        &app,
        "DELETE",
        "/registered-models/delete",
        json!({"name": "clf"}),
    )
    .await;
    err(&r, 404, "RESOURCE_DOES_NOT_EXIST", "name=clf");
}

#[tokio::test]
async fn mlflow_error_codes() {
    let app = TestApp::new();
    model(&app, "dup").await;
    let r = admin(
        &app,
        "POST",
        "/registered-models/create",
        json!({"name": "dup"}),
    )
    .await;
    err(
        &r,
        400,
        "RESOURCE_ALREADY_EXISTS",
        "Registered Model (name=dup) already exists.",
    );
    let r = admin(&app, "POST", "/registered-models/create", json!({})).await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Missing value for required parameter 'name'",
    );
    let r = admin(
        &app,
        "POST",
        "/registered-models/create",
        json!({"name": "a/b"}),
    )
    .await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Names cannot contain '/' or ':'",
    );
    let r = admin(
        &app,
        "POST",
        "/registered-models/create",
        json!({"name": "  "}),
    )
    .await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Missing value for required parameter 'name'",
    );
    let r = admin(
        &app,
        "POST",
        "/registered-models/create",
        json!({"name": 5}),
    )
    .await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Invalid value 5 for parameter 'name'",
    );
    let tag = json!({"name": "dup", "key": "bad key!", "value": "v"});
    let r = admin(&app, "POST", "/registered-models/set-tag", tag).await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Names may only contain alphanumerics",
    );
    let r = admin(
        &app,
        "POST",
        "/registered-models/rename",
        json!({"name": "dup", "new_name": ""}),
    )
    .await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Missing value for required parameter 'new_name'",
    );
    let r = admin(
        &app,
        "GET",
        "/model-versions/get?name=dup&version=x",
        json!({}),
    )
    .await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Parameter 'version' must be an integer, got 'x'.",
    );
    let r = admin(
        &app,
        "GET",
        "/model-versions/get?name=dup&version=9",
        json!({}),
    )
    .await;
    err(
        &r,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "Model Version (name=dup, version=9) not found",
    );
    // A known endpoint with the wrong method: MLflow's 405.
    let r = admin(
        &app,
        "POST",
        "/registered-models/get",
        json!({"name": "dup"}),
    )
    .await;
    assert_eq!(r.0, 405, "{}", r.1);
}

#[tokio::test]
async fn tags_set_replace_and_delete() {
    let app = TestApp::new();
    model(&app, "m").await;
    for value in ["1", "2"] {
        let tag = json!({"name": "m", "key": "k", "value": value});
        ok(&app, "POST", "/registered-models/set-tag", tag).await;
    }
    let v = ok(&app, "GET", "/registered-models/get?name=m", json!({})).await;
    assert_eq!(
        v["registered_model"]["tags"],
        json!([{"key": "k", "value": "2"}])
    );
    // Deleting a missing tag is no error (MLflow).
    ok(
        &app,
        "DELETE",
        "/registered-models/delete-tag",
        json!({"name": "m", "key": "nope"}),
    )
    .await;
    ok(
        &app,
        "DELETE",
        "/registered-models/delete-tag",
        json!({"name": "m", "key": "k"}),
    )
    .await;
    let v = ok(&app, "GET", "/registered-models/get?name=m", json!({})).await;
    assert!(v["registered_model"].get("tags").is_none(), "{v}");
    let r = admin(
        &app,
        "DELETE",
        "/registered-models/delete-tag",
        json!({"name": "x", "key": "k"}),
    )
    .await;
    err(&r, 404, "RESOURCE_DOES_NOT_EXIST", "name=x");
}

#[tokio::test]
async fn rename_carries_versions_aliases_and_tags() {
    let app = TestApp::new();
    let (_, run) = run_in(&app, "rename-exp").await;
    model(&app, "old").await;
    model(&app, "taken").await;
    version_of_run(&app, "old", &run).await;
    version_of_run(&app, "old", &run).await;
    let alias = json!({"name": "old", "alias": "champion", "version": "1"});
    ok(&app, "POST", "/registered-models/alias", alias).await;
    let tag = json!({"name": "old", "version": "2", "key": "k", "value": "v"});
    ok(&app, "POST", "/model-versions/set-tag", tag).await;

    let r = admin(
        &app,
        "POST",
        "/registered-models/rename",
        json!({"name": "old", "new_name": "taken"}),
    )
    .await;
    err(
        &r,
        400,
        "RESOURCE_ALREADY_EXISTS",
        "Registered Model (name=taken) already exists",
    );
    let v = ok(
        &app,
        "POST",
        "/registered-models/rename",
        json!({"name": "old", "new_name": "new"}),
    )
    .await;
    let rm = &v["registered_model"];
    assert_eq!(rm["name"], "new");
    assert_eq!(
        rm["aliases"],
        json!([{"alias": "champion", "version": "1"}])
    );
    assert_eq!(rm["latest_versions"][0]["name"], "new");

    let mv = ok(
        &app,
        "GET",
        "/registered-models/alias?name=new&alias=champion",
        json!({}),
    )
    .await;
    assert_eq!(mv["model_version"]["name"], "new");
    assert_eq!(mv["model_version"]["version"], "1");
    assert_eq!(mv["model_version"]["aliases"], json!(["champion"]));
    let mv = ok(
        &app,
        "GET",
        "/model-versions/get?name=new&version=2",
        json!({}),
    )
    .await;
    assert_eq!(
        mv["model_version"]["tags"],
        json!([{"key": "k", "value": "v"}])
    );
    let r = admin(
        &app,
        "GET",
        "/model-versions/get?name=old&version=1",
        json!({}),
    )
    .await;
    err(
        &r,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "Registered Model with name=old not found",
    );
    // The next version continues the numbering under the new name.
    assert_eq!(version_of_run(&app, "new", &run).await, "3");
}

#[tokio::test]
async fn delete_removes_versions_aliases_and_grants() {
    let app = TestApp::new();
    let (_, run) = run_in(&app, "delete-exp").await;
    model(&app, "gone").await;
    version_of_run(&app, "gone", &run).await;
    let alias = json!({"name": "gone", "alias": "a", "version": "1"});
    ok(&app, "POST", "/registered-models/alias", alias).await;
    ok(
        &app,
        "DELETE",
        "/registered-models/delete",
        json!({"name": "gone"}),
    )
    .await;
    for table in [
        "registered_models",
        "model_versions",
        "registered_model_aliases",
        "registered_model_grants",
    ] {
        assert_eq!(
            app.scalar(&format!("SELECT count(*) FROM {table}")),
            0,
            "{table}"
        );
    }
    // A new model of the same name starts afresh.
    model(&app, "gone").await;
    assert_eq!(version_of_run(&app, "gone", &run).await, "1");
}
