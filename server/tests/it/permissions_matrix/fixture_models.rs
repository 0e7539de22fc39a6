//! Logged models, registered models and datasets of the matrix fixture.

use axum::http::StatusCode;
use axum::Router;
use serde_json::json;

use super::fixture::{send, Template};

/// Creates the fixture's models as `admin` and records their ids in `t.extra`: `{lmodel}`,
/// a logged model of the fixture experiment with a param, the tag `secret_model_tag` and a
/// linked metric, output of the fixture run; the run also gets a dataset input.
pub async fn seed(t: &mut Template, app: &Router, admin: &str) {
    let post = |path: &'static str, body: serde_json::Value| {
        let app = app.clone();
        async move {
            let uri = format!("/api/2.0/mlflow{path}");
            let (status, v) = send(&app, "POST", &uri, Some(body.to_string()), Some(admin)).await;
            assert_eq!(status, StatusCode::OK, "POST {uri}: {v}");
            v
        }
    };
    let v = post(
        "/logged-models",
        json!({"experiment_id": t.exp, "name": "secret-lmodel", "source_run_id": t.run,
               "params": [{"key": "secret_model_param", "value": "1"}],
               "tags": [{"key": "secret_model_tag", "value": "x"}]}),
    )
    .await;
    let model = v["model"]["info"]["model_id"]
        .as_str()
        .expect("model id")
        .to_owned();
    post(
        "/runs/outputs",
        json!({"run_id": t.run, "models": [{"model_id": model, "step": 0}]}),
    )
    .await;
    post(
        "/runs/log-metric",
        json!({"run_id": t.run, "key": "secret_model_metric", "value": 0.5, "timestamp": 1,
               "model_id": model}),
    )
    .await;
    post(
        "/runs/log-inputs",
        json!({"run_id": t.run, "datasets": [{
            "tags": [{"key": "mlflow.data.context", "value": "training"}],
            "dataset": {"name": "secret-data", "digest": "d1", "source_type": "local",
                        "source": "{}"}}]}),
    )
    .await;
    t.extra.push(("lmodel", model));
    // The registry: `secret-rmodel` (tag `secret_rm_tag`) with version 1 from the fixture
    // run (tag `secret_mv_tag`, alias `champion`) and version 2 from `{lmodel}`; each
    // caller holds on it the level it holds on the fixture experiment (`member` by a user
    // grant: the MLflow endpoints grant users only).
    let lmodel = t
        .extra
        .iter()
        .find(|(k, _)| *k == "lmodel")
        .expect("lmodel")
        .1
        .clone();
    let rm = "secret-rmodel";
    post(
        "/registered-models/create",
        json!({"name": rm, "tags": [{"key": "secret_rm_tag", "value": "x"}]}),
    )
    .await;
    let source = format!("runs:/{}/model", t.run);
    let v1 = json!({"name": rm, "source": source, "run_id": t.run,
                    "tags": [{"key": "secret_mv_tag", "value": "x"}]});
    post("/model-versions/create", v1).await;
    let v2 = json!({"name": rm, "source": format!("models:/{lmodel}"), "model_id": lmodel});
    post("/model-versions/create", v2).await;
    post(
        "/registered-models/alias",
        json!({"name": rm, "alias": "champion", "version": "1"}),
    )
    .await;
    for (user, level) in [
        ("reader", "READ"),
        ("editor", "EDIT"),
        ("manager", "MANAGE"),
        ("member", "EDIT"),
    ] {
        let grant = json!({"name": rm, "username": user, "permission": level});
        post("/registered-models/permissions/create", grant).await;
    }
}
