//! `logged-models` create, get, finalize, delete, tags and params: MLflow's JSON and errors.

use serde_json::json;

use super::{call, create, id};
use crate::helpers::{assert_error, TestApp};

#[tokio::test]
async fn create_answers_mlflow_shape() {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    let run = app.run(&exp, "r").await;
    let m = create(
        &app,
        &exp,
        json!({"name": "clf", "source_run_id": run, "model_type": "agent",
               "params": [{"key": "lr", "value": "0.1"}],
               "tags": [{"key": "team", "value": "a"}]}),
    )
    .await;
    let info = &m["info"];
    let model_id = id(&m);
    assert!(
        model_id.starts_with("m-") && model_id.len() == 34,
        "{model_id}"
    );
    assert!(model_id[2..]
        .chars()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert_eq!(info["experiment_id"], exp.as_str());
    assert_eq!(info["name"], "clf");
    assert_eq!(info["status"], "LOGGED_MODEL_PENDING");
    assert_eq!(info["model_type"], "agent");
    assert_eq!(info["source_run_id"], run.as_str());
    assert_eq!(
        info["artifact_uri"],
        format!("mlflow-artifacts:/{exp}/models/{model_id}/artifacts")
    );
    assert_eq!(
        info["creation_timestamp_ms"],
        info["last_updated_timestamp_ms"]
    );
    assert!(info["creation_timestamp_ms"].as_i64().unwrap() > 1_700_000_000_000);
    assert_eq!(info["tags"], json!([{"key": "team", "value": "a"}]));
    assert_eq!(
        m["data"],
        json!({"params": [{"key": "lr", "value": "0.1"}]})
    );
    // GET answers the same model.
    let got = app.ok_get(&format!("/logged-models/{model_id}")).await;
    assert_eq!(got["model"], m);
}

#[tokio::test]
async fn optional_fields_as_mlflow_writes_them() {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    let m = create(&app, &exp, json!({})).await;
    // A random name; MLflow keeps the request's empty strings, and omits empty lists.
    assert_eq!(
        m["info"]["name"].as_str().unwrap().split('-').count(),
        3,
        "{m}"
    );
    assert_eq!(m["info"]["model_type"], "");
    assert_eq!(m["info"]["source_run_id"], "");
    assert!(m["info"].get("tags").is_none() && m["info"].get("status_message").is_none());
    assert_eq!(m["data"], json!({}));
}

#[tokio::test]
async fn finalize_tags_params_and_delete() {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    let m = create(&app, &exp, json!({"tags": [{"key": "a", "value": "1"}]})).await;
    let mid = id(&m);
    let path = format!("/logged-models/{mid}");
    let body = json!({"model_id": mid, "status": "LOGGED_MODEL_READY"});
    let (s, v) = call(&app, "PATCH", &path, Some(body)).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["model"]["info"]["status"], "LOGGED_MODEL_READY");
    assert!(
        v["model"]["info"]["last_updated_timestamp_ms"].as_i64()
            >= m["info"]["creation_timestamp_ms"].as_i64()
    );
    // By protobuf number too.
    let (s, v) = call(
        &app,
        "PATCH",
        &path,
        Some(json!({"model_id": mid, "status": 3})),
    )
    .await;
    assert_eq!(
        (s, v["model"]["info"]["status"].as_str()),
        (200, Some("LOGGED_MODEL_UPLOAD_FAILED"))
    );

    let tags = json!({"tags": [{"key": "b", "value": "2"}, {"key": "a", "value": "9"}]});
    assert_eq!(
        call(&app, "PATCH", &format!("{path}/tags"), Some(tags)).await,
        (200, json!({}))
    );
    assert_eq!(
        call(&app, "DELETE", &format!("{path}/tags/b"), None).await,
        (200, json!({}))
    );
    let params = json!({"params": [{"key": "p", "value": "v"}]});
    assert_eq!(
        call(&app, "POST", &format!("{path}/params"), Some(params)).await,
        (200, json!({}))
    );
    let got = app.ok_get(&path).await;
    assert_eq!(
        got["model"]["info"]["tags"],
        json!([{"key": "a", "value": "9"}])
    );
    assert_eq!(
        got["model"]["data"]["params"],
        json!([{"key": "p", "value": "v"}])
    );

    let (s, v) = call(&app, "DELETE", &format!("{path}/tags/b"), None).await;
    assert_eq!(s, 404, "{v}");
    assert_eq!(v["error_code"], "RESOURCE_DOES_NOT_EXIST");
    assert_eq!(
        v["message"],
        format!("No tag with key 'b' found for model with ID '{mid}'.")
    );

    assert_eq!(
        call(&app, "DELETE", &path, Some(json!({"model_id": mid}))).await,
        (200, json!({}))
    );
    let (s, v) = call(&app, "GET", &path, None).await;
    assert_eq!(
        (s, v["message"].as_str()),
        (
            404,
            Some(format!("Logged model with ID '{mid}' not found.").as_str())
        )
    );
    // Still there for `allow_deleted=true`, and deleting twice is a 404.
    assert_eq!(
        call(&app, "GET", &format!("{path}?allow_deleted=true"), None)
            .await
            .0,
        200
    );
    assert_eq!(call(&app, "DELETE", &path, None).await.0, 404);
}

#[tokio::test]
async fn bad_requests_get_mlflow_errors() {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    assert_error(
        &app.post("/logged-models", json!({})).await,
        400,
        "INVALID_PARAMETER_VALUE",
        "Missing value for required parameter 'experiment_id'",
    );
    assert_error(
        &app.post("/logged-models", json!({"experiment_id": "999"}))
            .await,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "No Experiment with id=999 exists",
    );
    for bad in ["a/b", "x:y", "v1.0", "50%", "it's"] {
        assert_error(
            &app.post("/logged-models", json!({"experiment_id": exp, "name": bad}))
                .await,
            400,
            "INVALID_PARAMETER_VALUE",
            &format!("Invalid model name ('{bad}') provided."),
        );
    }
    assert_error(
        &app.post(
            "/logged-models",
            json!({"experiment_id": exp, "params": [{"key": "k"}]}),
        )
        .await,
        400,
        "INVALID_PARAMETER_VALUE",
        "params[0].value",
    );
    let unknown = "/logged-models/m-00000000000000000000000000000000";
    for (method, path) in [
        ("GET", unknown.to_string()),
        ("DELETE", unknown.to_string()),
        ("PATCH", unknown.to_string()),
        ("POST", format!("{unknown}/params")),
        ("PATCH", format!("{unknown}/tags")),
        ("DELETE", format!("{unknown}/tags/k")),
        ("GET", format!("{unknown}/artifacts/directories")),
    ] {
        let (s, v) = call(&app, method, &path, Some(json!({"status": 2}))).await;
        assert_eq!(s, 404, "{method} {path}: {v}");
        assert_eq!(v["error_code"], "RESOURCE_DOES_NOT_EXIST");
    }
    let m = id(&create(&app, &exp, json!({})).await);
    let (s, v) = call(
        &app,
        "PATCH",
        &format!("/logged-models/{m}"),
        Some(json!({})),
    )
    .await;
    assert_eq!(
        (s, v["error_code"].as_str()),
        (400, Some("INVALID_PARAMETER_VALUE")),
        "{v}"
    );
    assert!(v["message"].as_str().unwrap().contains("'status'"), "{v}");
    let body = json!({"status": "LOGGED_MODEL_SHINY"});
    let (s, v) = call(&app, "PATCH", &format!("/logged-models/{m}"), Some(body)).await;
    assert_eq!(
        (s, v["error_code"].as_str()),
        (400, Some("INVALID_PARAMETER_VALUE")),
        "{v}"
    );
    // A deleted experiment takes no new model.
    app.ok("/experiments/delete", json!({"experiment_id": exp}))
        .await;
    assert_error(
        &app.post("/logged-models", json!({"experiment_id": exp}))
            .await,
        400,
        "INVALID_PARAMETER_VALUE",
        "must be in the 'active' state",
    );
}

#[tokio::test]
async fn artifacts_directories_lists_the_model_folder() {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    let m = create(&app, &exp, json!({})).await;
    let mid = id(&m);
    let root = m["info"]["artifact_uri"].as_str().unwrap().to_string();
    let path = root.strip_prefix("mlflow-artifacts:/").unwrap();
    for (file, body) in [("MLmodel", "flavors: {}\n"), ("sub/x.txt", "hello")] {
        let uri = format!("/api/2.0/mlflow-artifacts/artifacts/{path}/{file}");
        let auth = format!("Bearer {}", app.admin_token);
        let r = app
            .call_raw(
                axum::http::Method::PUT,
                &uri,
                &[("authorization", &auth)],
                "text/plain",
                body.to_string(),
                None,
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let v = app
        .ok_get(&format!("/logged-models/{mid}/artifacts/directories"))
        .await;
    assert_eq!(
        v,
        json!({"root_uri": root, "files": [
            {"path": "sub", "is_dir": true},
            {"path": "MLmodel", "is_dir": false, "file_size": 12}
        ]})
    );
    let v = app
        .ok_get(&format!(
            "/logged-models/{mid}/artifacts/directories?artifact_directory_path=sub"
        ))
        .await;
    assert_eq!(
        v["files"],
        json!([{"path": "sub/x.txt", "is_dir": false, "file_size": 5}])
    );
    let v = app
        .ok_get(&format!(
            "/logged-models/{mid}/artifacts/directories?artifact_directory_path=none"
        ))
        .await;
    assert_eq!(v, json!({"root_uri": root}));
    let (s, v) = app
        .get(&format!(
            "/logged-models/{mid}/artifacts/directories?artifact_directory_path=../x"
        ))
        .await;
    assert_eq!(
        (s.as_u16(), v["error_code"].as_str()),
        (400, Some("INVALID_PARAMETER_VALUE"))
    );
}

#[tokio::test]
async fn artifact_uri_goes_before_a_query_string() {
    let app = TestApp::new();
    let body = json!({"name": "q", "artifact_location": "scheme://host/db?driver=x"});
    let exp = app.ok("/experiments/create", body).await["experiment_id"]
        .as_str()
        .unwrap()
        .to_string();
    let m = create(&app, &exp, json!({})).await;
    assert_eq!(
        m["info"]["artifact_uri"],
        format!("scheme://host/db/models/{}/artifacts?driver=x", id(&m))
    );
}
