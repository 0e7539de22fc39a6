//! The app API's Models routes: `GET /api/v1/registered-models` (filtered, paged) and
//! `GET /api/v1/registered-models/{name}` (read on the model).

use serde_json::json;

use super::{model, ok, run_in, version_of_run};
use crate::helpers::TestApp;

#[tokio::test]
async fn list_and_detail() {
    let app = TestApp::new();
    let (_, run) = run_in(&app, "app-exp").await;
    model(&app, "Sentiment Clf").await;
    model(&app, "other").await;
    version_of_run(&app, "Sentiment Clf", &run).await;
    version_of_run(&app, "Sentiment Clf", &run).await;
    let alias = json!({"name": "Sentiment Clf", "alias": "champion", "version": "1"});
    ok(&app, "POST", "/registered-models/alias", alias).await;

    let (status, v) = app.get_json("/api/v1/registered-models?q=sentiment").await;
    assert_eq!(status, 200, "{v}");
    let list: api_types::models::RegisteredModelList = serde_json::from_value(v).expect("shape");
    assert_eq!(list.models.len(), 1);
    let m = &list.models[0];
    assert_eq!(m.name, "Sentiment Clf");
    assert_eq!(m.version_count, 2);
    assert_eq!(m.latest_version.as_deref(), Some("2"));
    assert_eq!(m.aliases[0].key, "champion");
    assert_eq!(m.aliases[0].value, "1");
    assert!(list.next_page_token.is_none());

    let (status, v) = app
        .get_json("/api/v1/registered-models/Sentiment%20Clf")
        .await;
    assert_eq!(status, 200, "{v}");
    let d: api_types::models::RegisteredModelDetail = serde_json::from_value(v).expect("shape");
    let versions: Vec<&str> = d.versions.iter().map(|v| v.version.as_str()).collect();
    assert_eq!(versions, ["2", "1"], "newest first");
    assert_eq!(d.versions[1].aliases, ["champion"]);
    assert_eq!(d.versions[0].run_id.as_deref(), Some(run.as_str()));
    assert_eq!(d.versions[0].stage, "None");
    assert!(d.can_edit, "the creator may edit");

    let (status, v) = app.get_json("/api/v1/registered-models/nope").await;
    assert_eq!(status, 404, "{v}");
}

#[tokio::test]
async fn only_readable_models_are_listed() {
    let app = TestApp::new();
    let bob = app.user_token("bob", false);
    model(&app, "secret").await;
    let r = app.get_as(&bob, "/api/v1/registered-models").await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["models"], json!([]));
    let r = app.get_as(&bob, "/api/v1/registered-models/secret").await;
    assert_eq!(r.status, 403, "{}", r.text);
    assert_eq!(r.body["code"], "PERMISSION_DENIED");
    let grant = json!({"name": "secret", "username": "bob", "permission": "READ"});
    ok(&app, "POST", "/registered-models/permissions/create", grant).await;
    let r = app.get_as(&bob, "/api/v1/registered-models").await;
    assert_eq!(r.body["models"][0]["name"], "secret", "{}", r.text);
    let r = app.get_as(&bob, "/api/v1/registered-models/secret").await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["can_edit"], false, "READ may not edit");
    assert_eq!(r.body["can_manage"], false, "READ may not manage");
}

/// `can_edit` and `can_manage` follow the grants the MLflow routes enforce: EDIT may set
/// an alias but not delete one (MANAGE), the creator and MANAGE may do both.
#[tokio::test]
async fn rights_follow_the_grants() {
    let app = TestApp::new();
    let (carol, bob) = (app.user_token("carol", false), app.user_token("bob", false));
    let (_, run) = run_in(&app, "rights-exp").await;
    let create = json!({"name": "shared"});
    let uri = |p: &str| format!("/api/2.0/mlflow{p}");
    let (status, v) = app
        .call_as(
            &carol,
            "POST",
            &uri("/registered-models/create"),
            Some(create),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    version_of_run(&app, "shared", &run).await;
    let rights =
        |r: &crate::helpers::Resp| (r.body["can_edit"].clone(), r.body["can_manage"].clone());

    let r = app.get_as(&carol, "/api/v1/registered-models/shared").await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        rights(&r),
        (json!(true), json!(true)),
        "the creator manages"
    );

    let grant = json!({"name": "shared", "username": "bob", "permission": "EDIT"});
    ok(&app, "POST", "/registered-models/permissions/create", grant).await;
    let r = app.get_as(&bob, "/api/v1/registered-models/shared").await;
    assert_eq!(rights(&r), (json!(true), json!(false)), "EDIT: {}", r.text);
    let alias = json!({"name": "shared", "alias": "champion", "version": "1"});
    let set = app
        .call_as(&bob, "POST", &uri("/registered-models/alias"), Some(alias))
        .await;
    assert_eq!(set.0, 200, "EDIT sets an alias: {}", set.1);
    let gone = json!({"name": "shared", "alias": "champion"});
    let refused = app
        .call_as(
            &bob,
            "DELETE",
            &uri("/registered-models/alias"),
            Some(gone.clone()),
        )
        .await;
    assert_eq!(
        refused.0, 403,
        "EDIT may not delete an alias: {}",
        refused.1
    );
    for (kind, target) in [
        ("registered-models", json!({"name": "shared"})),
        ("model-versions", json!({"name": "shared", "version": "1"})),
    ] {
        let mut tag = target.clone();
        tag["key"] = json!("team");
        tag["value"] = json!("nlp");
        let set = app
            .call_as(&bob, "POST", &uri(&format!("/{kind}/set-tag")), Some(tag))
            .await;
        assert_eq!(set.0, 200, "EDIT sets a {kind} tag: {}", set.1);
        let mut key = target;
        key["key"] = json!("team");
        let delete = app
            .call_as(
                &bob,
                "DELETE",
                &uri(&format!("/{kind}/delete-tag")),
                Some(key),
            )
            .await;
        // MLflow's auth: a model's tag needs EDIT to delete, a version's tag MANAGE.
        let want = if kind == "registered-models" {
            200
        } else {
            403
        };
        assert_eq!(delete.0, want, "EDIT deletes a {kind} tag: {}", delete.1);
    }

    let grant = json!({"name": "shared", "username": "bob", "permission": "MANAGE"});
    ok(
        &app,
        "PATCH",
        "/registered-models/permissions/update",
        grant,
    )
    .await;
    let r = app.get_as(&bob, "/api/v1/registered-models/shared").await;
    assert_eq!(rights(&r), (json!(true), json!(true)), "MANAGE: {}", r.text);
    let deleted = app
        .call_as(&bob, "DELETE", &uri("/registered-models/alias"), Some(gone))
        .await;
    assert_eq!(deleted.0, 200, "MANAGE deletes an alias: {}", deleted.1);
}
