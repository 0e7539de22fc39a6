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
    let grant = json!({"name": "secret", "username": "bob", "permission": "EDIT"});
    ok(
        &app,
        "PATCH",
        "/registered-models/permissions/update",
        grant,
    )
    .await;
    let r = app.get_as(&bob, "/api/v1/registered-models/secret").await;
    assert_eq!(r.body["can_edit"], true, "EDIT may edit: {}", r.text);
}
