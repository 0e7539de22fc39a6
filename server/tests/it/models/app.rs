//! The app API: `GET /api/v1/runs/{id}/io` and `GET /api/v1/logged-models/{id}`.

use serde_json::json;

use super::{call, create, id};
use crate::helpers::TestApp;

#[tokio::test]
async fn run_io_lists_datasets_inputs_and_produced_models() {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    let run = app.run(&exp, "r").await;
    let produced = id(&create(&app, &exp, json!({"name": "made", "source_run_id": run})).await);
    let output = id(&create(&app, &exp, json!({"name": "out"})).await);
    let consumed = id(&create(&app, &exp, json!({"name": "used"})).await);
    app.ok(
        "/runs/outputs",
        json!({"run_id": run, "models": [{"model_id": output, "step": 0}]}),
    )
    .await;
    let body = json!({"run_id": run, "models": [{"model_id": consumed}], "datasets": [{
        "tags": [{"key": "mlflow.data.context", "value": "training"}],
        "dataset": {"name": "d", "digest": "g", "source_type": "http", "source": "{}"}}]});
    app.ok("/runs/log-inputs", body).await;
    let (s, v) = app
        .call_as(
            &app.admin_token,
            "GET",
            &format!("/api/v1/runs/{run}/io"),
            None,
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        v["datasets"],
        json!([{"name": "d", "digest": "g", "source_type": "http", "source": "{}",
                "schema": null, "profile": null,
                "tags": [{"key": "mlflow.data.context", "value": "training"}]}])
    );
    assert_eq!(v["model_inputs"], json!([consumed]));
    let names: Vec<&str> = v["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["made", "out"]);
    assert_eq!(v["models"][0]["model_id"], produced.as_str());
    assert_eq!(v["models"][0]["status"], "LOGGED_MODEL_PENDING");
    assert_eq!(v["models"][0]["registrations"], json!([]));
    // A deleted model is no longer listed.
    call(&app, "DELETE", &format!("/logged-models/{output}"), None).await;
    let (_, v) = app
        .call_as(
            &app.admin_token,
            "GET",
            &format!("/api/v1/runs/{run}/io"),
            None,
        )
        .await;
    assert_eq!(v["models"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn logged_model_detail() {
    let app = TestApp::new();
    let exp = app.experiment("exp-name").await;
    let run = app.run(&exp, "the-run").await;
    let m = create(
        &app,
        &exp,
        json!({"name": "clf", "source_run_id": run,
               "params": [{"key": "lr", "value": "0.1"}],
               "tags": [{"key": "t", "value": "v"}]}),
    )
    .await;
    let mid = id(&m);
    for (ts, step, value) in [(10, 1, 0.5), (20, 2, 0.75)] {
        let body = json!({"run_id": run, "key": "acc", "value": value, "timestamp": ts,
                          "step": step, "model_id": mid});
        app.ok("/runs/log-metric", body).await;
    }
    let (s, v) = app
        .call_as(
            &app.admin_token,
            "GET",
            &format!("/api/v1/logged-models/{mid}"),
            None,
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["model"]["model_id"], mid.as_str());
    assert_eq!(v["model"]["experiment_id"], exp.as_str());
    assert_eq!(v["model"]["source_run_id"], run.as_str());
    assert_eq!(v["model"]["model_type"], json!(null));
    assert_eq!(v["model"]["artifact_uri"], m["info"]["artifact_uri"]);
    assert_eq!(v["experiment_name"], "exp-name");
    assert_eq!(v["source_run_name"], "the-run");
    assert_eq!(v["params"], json!([{"key": "lr", "value": "0.1"}]));
    assert_eq!(v["tags"], json!([{"key": "t", "value": "v"}]));
    assert_eq!(
        v["metrics"],
        json!([{"key": "acc", "value": 0.75, "step": 2, "timestamp": 20}])
    );
    let (s, v) = app
        .call_as(
            &app.admin_token,
            "GET",
            "/api/v1/logged-models/m-nope",
            None,
        )
        .await;
    assert_eq!((s, v["code"].as_str()), (404, Some("NOT_FOUND")), "{v}");
    call(&app, "DELETE", &format!("/logged-models/{mid}"), None).await;
    let (s, _) = app
        .call_as(
            &app.admin_token,
            "GET",
            &format!("/api/v1/logged-models/{mid}"),
            None,
        )
        .await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn registered_versions_show_on_their_logged_model() {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    let run = app.run(&exp, "r").await;
    let mid = id(&create(&app, &exp, json!({"name": "clf", "source_run_id": run})).await);
    app.ok("/registered-models/create", json!({"name": "Prod"}))
        .await;
    let body = json!({"name": "Prod", "source": format!("models:/{mid}"), "run_id": run,
                      "model_id": mid});
    app.ok("/model-versions/create", body).await;
    let (s, v) = app
        .call_as(
            &app.admin_token,
            "GET",
            &format!("/api/v1/logged-models/{mid}"),
            None,
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        v["model"]["registrations"],
        json!([{"name": "Prod", "version": "1"}])
    );
    // A user who reads the experiment but not the registered model does not see it.
    let reader = app.user_token("reader", false);
    let principal = api_types::Principal {
        kind: api_types::PrincipalKind::User,
        name: "reader".into(),
    };
    let id: i64 = exp.parse().unwrap();
    app.store
        .blocking(|c| {
            server::permissions::set_grant(c, id, &principal, Some(api_types::Level::CanRead))
        })
        .expect("grant");
    let (s, v) = app
        .call_as(&reader, "GET", &format!("/api/v1/runs/{run}/io"), None)
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["models"][0]["registrations"], json!([]));
}
