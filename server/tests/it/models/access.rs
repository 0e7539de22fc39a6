//! Logged models follow their experiment's grants; searches need every experiment
//! readable; a run's outputs, model inputs and model metrics need CAN_EDIT on the models'
//! experiments too.

use api_types::{Level, Principal, PrincipalKind};
use serde_json::json;

use crate::helpers::TestApp;

fn grant(app: &TestApp, exp: &str, user: &str, level: Level) {
    let principal = Principal {
        kind: PrincipalKind::User,
        name: user.into(),
    };
    let id: i64 = exp.parse().unwrap();
    app.store
        .blocking(|c| server::permissions::set_grant(c, id, &principal, Some(level)))
        .expect("grant");
}

#[tokio::test]
async fn models_follow_their_experiment() {
    let app = TestApp::new();
    let reader = app.user_token("reader", false);
    let editor = app.user_token("editor", false);
    let exp = app.experiment("/Users/root/models").await;
    grant(&app, &exp, "reader", Level::CanRead);
    grant(&app, &exp, "editor", Level::CanEdit);
    let ml = |p: &str| format!("/api/2.0/mlflow{p}");
    let body = json!({"experiment_id": exp, "name": "m"});
    let (s, v) = app
        .call_as(&reader, "POST", &ml("/logged-models"), Some(body.clone()))
        .await;
    assert_eq!(
        (s, v["error_code"].as_str()),
        (403, Some("PERMISSION_DENIED")),
        "{v}"
    );
    let (s, v) = app
        .call_as(&editor, "POST", &ml("/logged-models"), Some(body))
        .await;
    assert_eq!(s, 200, "{v}");
    let mid = v["model"]["info"]["model_id"].as_str().unwrap().to_string();
    let one = ml(&format!("/logged-models/{mid}"));
    assert_eq!(app.call_as(&reader, "GET", &one, None).await.0, 200);
    let (s, _) = app
        .call_as(
            &reader,
            "PATCH",
            &one,
            Some(json!({"status": "LOGGED_MODEL_READY"})),
        )
        .await;
    assert_eq!(s, 403);
    assert_eq!(app.call_as(&reader, "DELETE", &one, None).await.0, 403);
    let tags = json!({"tags": [{"key": "k", "value": "v"}]});
    assert_eq!(
        app.call_as(&reader, "PATCH", &format!("{one}/tags"), Some(tags.clone()))
            .await
            .0,
        403
    );
    assert_eq!(
        app.call_as(&editor, "PATCH", &format!("{one}/tags"), Some(tags))
            .await
            .0,
        200
    );

    // A stranger: 403 without a word about the model; an unknown id is a 404 for anyone.
    let stranger = app.user_token("stranger", false);
    let (s, v) = app.call_as(&stranger, "GET", &one, None).await;
    assert_eq!(s, 403);
    assert!(!v.to_string().contains(&mid), "{v}");
    let (s, _) = app
        .call_as(
            &stranger,
            "GET",
            &ml("/logged-models/m-00000000000000000000000000000000"),
            None,
        )
        .await;
    assert_eq!(s, 404);
    let search = json!({"experiment_ids": [exp]});
    let (s, _) = app
        .call_as(
            &stranger,
            "POST",
            &ml("/logged-models/search"),
            Some(search.clone()),
        )
        .await;
    assert_eq!(s, 403);
    let (s, v) = app
        .call_as(&reader, "POST", &ml("/logged-models/search"), Some(search))
        .await;
    assert_eq!(
        (s, v["models"].as_array().map(Vec::len)),
        (200, Some(1)),
        "{v}"
    );
    let (s, _) = app
        .call_as(
            &stranger,
            "GET",
            &format!("/api/v1/logged-models/{mid}"),
            None,
        )
        .await;
    assert_eq!(s, 403);
    let (s, _) = app
        .call_as(
            &reader,
            "GET",
            &format!("/api/v1/logged-models/{mid}"),
            None,
        )
        .await;
    assert_eq!(s, 200);

    // The stranger's own run cannot claim the model as its output or input (edit on the
    // model's experiment, as MLflow's auth app requires).
    let (_, v) = app.create_as(&stranger, "/Users/stranger/own").await;
    let own = v["experiment_id"].as_str().unwrap().to_string();
    let (s, v) = app
        .call_as(
            &stranger,
            "POST",
            &ml("/runs/create"),
            Some(json!({"experiment_id": own})),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let run = v["run"]["info"]["run_id"].as_str().unwrap().to_string();
    let out = json!({"run_id": run, "models": [{"model_id": mid, "step": 0}]});
    assert_eq!(
        app.call_as(&stranger, "POST", &ml("/runs/outputs"), Some(out))
            .await
            .0,
        403
    );
    let inp = json!({"run_id": run, "models": [{"model_id": mid}]});
    assert_eq!(
        app.call_as(&stranger, "POST", &ml("/runs/log-inputs"), Some(inp))
            .await
            .0,
        403
    );
    // Nor put metrics on it.
    let metric = json!({"run_id": run, "key": "fake", "value": 1, "timestamp": 1, "model_id": mid});
    let (s, _) = app
        .call_as(
            &stranger,
            "POST",
            &ml("/runs/log-metric"),
            Some(metric.clone()),
        )
        .await;
    assert_eq!(s, 403);
    let batch = json!({"run_id": run, "metrics": [metric]});
    let (s, _) = app
        .call_as(&stranger, "POST", &ml("/runs/log-batch"), Some(batch))
        .await;
    assert_eq!(s, 403);
    let (_, v) = app.call_as(&reader, "GET", &one, None).await;
    assert!(v["model"]["data"].get("metrics").is_none(), "{v}");
    // Nor name a run it cannot read as a model's source.
    let their_run = app.run(&exp, "theirs").await;
    let body = json!({"experiment_id": own, "source_run_id": their_run});
    assert_eq!(
        app.call_as(&stranger, "POST", &ml("/logged-models"), Some(body))
            .await
            .0,
        403
    );
}
