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

/// A logged model's `mlflow.modelVersions` tag names registered models, which have their
/// own grants: a reader of the logged model's experiment sees only the entries of the
/// registered models they may read, on every route that shows the model, and cannot
/// search by that tag; the owner of the private model sees it whole.
#[tokio::test]
async fn private_registered_model_names_stay_out_of_a_logged_models_tag() {
    let app = TestApp::new();
    let alice = app.user_token("alice", false);
    let bob = app.user_token("bob", false);
    let ml = |p: &str| format!("/api/2.0/mlflow{p}");
    let ok = |(s, v): (u16, serde_json::Value)| {
        assert_eq!(s, 200, "{v}");
        v
    };
    let exp = ok(app
        .call_as(
            &alice,
            "POST",
            &ml("/experiments/create"),
            Some(json!({"name": "shared-models"})),
        )
        .await)["experiment_id"]
        .as_str()
        .expect("experiment")
        .to_owned();
    grant(&app, &exp, "bob", Level::CanRead);
    let model = ok(app
        .call_as(
            &alice,
            "POST",
            &ml("/logged-models"),
            Some(json!({"experiment_id": exp, "name": "net"})),
        )
        .await)["model"]["info"]["model_id"]
        .as_str()
        .expect("model id")
        .to_owned();
    // Two registered models: one private to alice, one she shares with bob.
    for name in ["alice-secret", "team-shared"] {
        let create = json!({"name": name});
        ok(app
            .call_as(
                &alice,
                "POST",
                &ml("/registered-models/create"),
                Some(create),
            )
            .await);
        let version = json!({"name": name, "source": format!("models:/{model}"),
                             "model_id": model});
        ok(app
            .call_as(&alice, "POST", &ml("/model-versions/create"), Some(version))
            .await);
    }
    let share = json!({"name": "team-shared", "username": "bob", "permission": "READ"});
    ok(app
        .call_as(
            &alice,
            "POST",
            &ml("/registered-models/permissions/create"),
            Some(share),
        )
        .await);

    let search = json!({"experiment_ids": [exp]});
    let reads = [
        ("GET", format!("/api/v1/logged-models/{model}"), None),
        ("GET", ml(&format!("/logged-models/{model}")), None),
        ("POST", ml("/logged-models/search"), Some(search)),
        (
            "PATCH",
            ml(&format!("/logged-models/{model}")),
            Some(json!({"status": "LOGGED_MODEL_READY"})),
        ),
    ];
    for (method, uri, body) in &reads {
        // The PATCH needs CAN_EDIT: alice only.
        if *method != "PATCH" {
            let text = ok(app.call_as(&bob, method, uri, body.clone()).await).to_string();
            assert!(!text.contains("alice-secret"), "{method} {uri}: {text}");
            assert!(text.contains("team-shared"), "{method} {uri}: {text}");
        }
        let text = ok(app.call_as(&alice, method, uri, body.clone()).await).to_string();
        assert!(text.contains("alice-secret"), "{method} {uri}: {text}");
        assert!(text.contains("team-shared"), "{method} {uri}: {text}");
    }
    // Bob's view of the tag: only the shared model's entry.
    let v = ok(app
        .call_as(&bob, "GET", &format!("/api/v1/logged-models/{model}"), None)
        .await);
    let tag = v["tags"]
        .as_array()
        .and_then(|tags| tags.iter().find(|t| t["key"] == "mlflow.modelVersions"))
        .expect("tag");
    let listed: serde_json::Value =
        serde_json::from_str(tag["value"].as_str().expect("value")).expect("json");
    assert_eq!(listed, json!([{"name": "team-shared", "version": 1}]));

    // Searching by the tag would spell the name out: refused to all but administrators.
    let by_tag = json!({"experiment_ids": [exp],
                        "filter": "tags.`mlflow.modelVersions` LIKE '%alice-s%'"});
    let (s, v) = app
        .call_as(
            &bob,
            "POST",
            &ml("/logged-models/search"),
            Some(by_tag.clone()),
        )
        .await;
    assert_eq!(
        (s, v["error_code"].as_str()),
        (400, Some("INVALID_PARAMETER_VALUE")),
        "{v}"
    );
    let (s, v) = app
        .call_as(
            &app.admin_token,
            "POST",
            &ml("/logged-models/search"),
            Some(by_tag),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["models"].as_array().map(Vec::len), Some(1), "{v}");

    // With no readable entry left, the tag itself is gone.
    let unshare = json!({"name": "team-shared", "username": "bob"});
    ok(app
        .call_as(
            &alice,
            "DELETE",
            &ml("/registered-models/permissions/delete"),
            Some(unshare),
        )
        .await);
    let text = ok(app
        .call_as(&bob, "GET", &ml(&format!("/logged-models/{model}")), None)
        .await)
    .to_string();
    assert!(!text.contains("modelVersions"), "{text}");
}
