//! Registered-model grants: the creator manages, readers read, editors edit, managers
//! delete and share; groups count; NO_PERMISSIONS gives nothing; searches only list what
//! the caller reads; registering a version also needs read on its source run.

use serde_json::{json, Value};

use super::err;
use crate::helpers::TestApp;

/// `method /api/2.0/mlflow{path}` (or a full `/api/3.0/...` path) as `token`.
async fn as_(app: &TestApp, token: &str, method: &str, path: &str, body: Value) -> (u16, Value) {
    let uri = match path.starts_with("/api/") {
        true => path.to_string(),
        false => format!("/api/2.0/mlflow{path}"),
    };
    let body = (method != "GET").then_some(body);
    app.call_as(token, method, &uri, body).await
}

fn listed(v: &Value) -> Vec<String> {
    v["registered_models"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| m["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn readers_read_editors_edit_managers_manage() {
    let app = TestApp::new();
    let alice = app.user_token("alice", false);
    let bob = app.user_token("bob", false);
    let (status, v) = as_(
        &app,
        &alice,
        "POST",
        "/registered-models/create",
        json!({"name": "m"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let perm = as_(
        &app,
        &alice,
        "GET",
        "/registered-models/permissions/get?name=m&username=alice",
        json!({}),
    )
    .await;
    assert_eq!(
        perm.1["registered_model_permission"]["permission"], "MANAGE",
        "{}",
        perm.1
    );

    // No grant: 403 on the model, and it is not listed.
    let r = as_(
        &app,
        &bob,
        "GET",
        "/registered-models/get?name=m",
        json!({}),
    )
    .await;
    err(
        &r,
        403,
        "PERMISSION_DENIED",
        "You don't have access to this registered model.",
    );
    assert!(
        r.1["message"].as_str().unwrap().contains("alice"),
        "names a manager: {}",
        r.1
    );
    let s = as_(&app, &bob, "GET", "/registered-models/search", json!({})).await;
    assert_eq!(s, (200, json!({})));
    // Unknown models are 404 for everyone.
    let r = as_(
        &app,
        &bob,
        "GET",
        "/registered-models/get?name=nope",
        json!({}),
    )
    .await;
    err(&r, 404, "RESOURCE_DOES_NOT_EXIST", "name=nope");

    // READ: reads, cannot edit.
    let grant = json!({"name": "m", "username": "bob", "permission": "READ"});
    let created = as_(
        &app,
        &alice,
        "POST",
        "/registered-models/permissions/create",
        grant.clone(),
    )
    .await;
    assert_eq!(created.0, 200, "{}", created.1);
    assert_eq!(created.1["registered_model_permission"]["name"], "m");
    assert_eq!(
        created.1["registered_model_permission"]["permission"],
        "READ"
    );
    assert!(created.1["registered_model_permission"]["user_id"].is_i64());
    let again = as_(
        &app,
        &alice,
        "POST",
        "/registered-models/permissions/create",
        grant,
    )
    .await;
    err(&again, 400, "RESOURCE_ALREADY_EXISTS", "already exists");
    assert_eq!(
        as_(
            &app,
            &bob,
            "GET",
            "/registered-models/get?name=m",
            json!({})
        )
        .await
        .0,
        200
    );
    assert_eq!(
        listed(
            &as_(&app, &bob, "GET", "/registered-models/search", json!({}))
                .await
                .1
        ),
        ["m"]
    );
    let tag = json!({"name": "m", "key": "k", "value": "v"});
    let r = as_(
        &app,
        &bob,
        "POST",
        "/registered-models/set-tag",
        tag.clone(),
    )
    .await;
    err(
        &r,
        403,
        "PERMISSION_DENIED",
        "You need CAN_EDIT on this registered model",
    );
    // Only managers change grants.
    let r = as_(
        &app,
        &bob,
        "PATCH",
        "/registered-models/permissions/update",
        json!({"name": "m", "username": "bob", "permission": "MANAGE"}),
    )
    .await;
    err(&r, 403, "PERMISSION_DENIED", "CAN_MANAGE");

    // EDIT: edits, cannot delete.
    let upd = json!({"name": "m", "username": "bob", "permission": "EDIT"});
    assert_eq!(
        as_(
            &app,
            &alice,
            "PATCH",
            "/registered-models/permissions/update",
            upd
        )
        .await
        .0,
        200
    );
    assert_eq!(
        as_(&app, &bob, "POST", "/registered-models/set-tag", tag)
            .await
            .0,
        200
    );
    let r = as_(
        &app,
        &bob,
        "DELETE",
        "/registered-models/delete",
        json!({"name": "m"}),
    )
    .await;
    err(&r, 403, "PERMISSION_DENIED", "CAN_MANAGE");
    let r = as_(
        &app,
        &bob,
        "POST",
        "/registered-models/permissions/create",
        json!({"name": "m", "username": "root", "permission": "READ"}),
    )
    .await;
    err(&r, 403, "PERMISSION_DENIED", "CAN_MANAGE");

    // NO_PERMISSIONS: nothing.
    let none = json!({"name": "m", "username": "bob", "permission": "NO_PERMISSIONS"});
    assert_eq!(
        as_(
            &app,
            &alice,
            "PATCH",
            "/registered-models/permissions/update",
            none
        )
        .await
        .0,
        200
    );
    let r = as_(
        &app,
        &bob,
        "GET",
        "/registered-models/get?name=m",
        json!({}),
    )
    .await;
    assert_eq!(r.0, 403, "{}", r.1);

    // Deleting the grant; then there is none to get.
    let del = json!({"name": "m", "username": "bob"});
    assert_eq!(
        as_(
            &app,
            &alice,
            "DELETE",
            "/registered-models/permissions/delete",
            del.clone()
        )
        .await
        .0,
        200
    );
    let r = as_(
        &app,
        &alice,
        "DELETE",
        "/registered-models/permissions/delete",
        del,
    )
    .await;
    err(
        &r,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "Registered model permission with name=m and username=bob not found",
    );
    let r = as_(
        &app,
        &alice,
        "POST",
        "/registered-models/permissions/create",
        json!({"name": "m", "username": "ghost", "permission": "READ"}),
    )
    .await;
    err(&r, 404, "RESOURCE_DOES_NOT_EXIST", "ghost");
    let r = as_(
        &app,
        &alice,
        "POST",
        "/registered-models/permissions/create",
        json!({"name": "m", "username": "bob", "permission": "OWNER"}),
    )
    .await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Invalid permission 'OWNER'",
    );

    // Admins see and manage everything.
    let admin = app.admin_token.clone();
    assert_eq!(
        listed(
            &as_(&app, &admin, "GET", "/registered-models/search", json!({}))
                .await
                .1
        ),
        ["m"]
    );
    assert_eq!(
        as_(
            &app,
            &admin,
            "DELETE",
            "/registered-models/delete",
            json!({"name": "m"})
        )
        .await
        .0,
        200
    );
}

#[tokio::test]
async fn group_grants_count() {
    let app = TestApp::new();
    app.user("carol", false);
    let carol = app.token("carol");
    app.store
        .blocking(|c| {
            server::auth::groups::create_group(c, "team")?;
            server::auth::groups::add_member(c, "team", "carol")?;
            Ok(())
        })
        .expect("group");
    super::model(&app, "g").await;
    let id = app.scalar("SELECT registered_model_id FROM registered_models WHERE name = 'g'");
    app.store
        .blocking(move |c| {
            let team = api_types::Principal {
                kind: api_types::PrincipalKind::Group,
                name: "team".into(),
            };
            server::registry::grants::set_grant(c, id, &team, Some(api_types::Level::CanEdit))
        })
        .expect("grant");
    let tag = json!({"name": "g", "key": "k", "value": "v"});
    assert_eq!(
        as_(&app, &carol, "POST", "/registered-models/set-tag", tag)
            .await
            .0,
        200
    );
    let r = as_(
        &app,
        &carol,
        "DELETE",
        "/registered-models/delete",
        json!({"name": "g"}),
    )
    .await;
    assert_eq!(r.0, 403, "{}", r.1);
    // Deleting the group takes its grants along.
    app.store
        .blocking(|c| Ok(c.execute("DELETE FROM groups WHERE name = 'team'", [])?))
        .expect("delete group");
    assert_eq!(
        app.scalar("SELECT count(*) FROM registered_model_grants WHERE principal_kind = 'group'"),
        0
    );
    let r = as_(
        &app,
        &carol,
        "GET",
        "/registered-models/get?name=g",
        json!({}),
    )
    .await;
    assert_eq!(r.0, 403, "{}", r.1);
}

#[tokio::test]
async fn registering_needs_read_on_the_source_run() {
    let app = TestApp::new();
    let alice = app.user_token("alice", false);
    let bob = app.user_token("bob", false);
    let (_, v) = app.create_as(&alice, "/Users/alice/private").await;
    let exp = v["experiment_id"].as_str().unwrap().to_string();
    let (_, v) = as_(
        &app,
        &alice,
        "POST",
        "/runs/create",
        json!({"experiment_id": exp}),
    )
    .await;
    let run = v["run"]["info"]["run_id"].as_str().unwrap().to_string();
    as_(
        &app,
        &bob,
        "POST",
        "/registered-models/create",
        json!({"name": "bobs"}),
    )
    .await;
    let body = json!({"name": "bobs", "source": format!("runs:/{run}/model"), "run_id": run});
    let r = as_(&app, &bob, "POST", "/model-versions/create", body.clone()).await;
    err(&r, 403, "PERMISSION_DENIED", "this experiment");
    let grant = json!({"username": "bob", "resource_type": "experiment", "resource_id": exp, "permission": "READ"});
    let g = as_(
        &app,
        &alice,
        "POST",
        "/api/3.0/mlflow/users/permissions/grant",
        grant,
    )
    .await;
    assert_eq!(g.0, 200, "{}", g.1);
    let r = as_(&app, &bob, "POST", "/model-versions/create", body).await;
    assert_eq!(r.0, 200, "{}", r.1);
    // Alice reads the run, but not bob's model.
    let r = as_(
        &app,
        &alice,
        "GET",
        "/model-versions/get?name=bobs&version=1",
        json!({}),
    )
    .await;
    assert_eq!(r.0, 403, "{}", r.1);
    let s = as_(&app, &alice, "GET", "/model-versions/search", json!({})).await;
    assert_eq!(s, (200, json!({})));
}

#[tokio::test]
async fn mlflow_3_user_permissions_for_registered_models() {
    let app = TestApp::new();
    let alice = app.user_token("alice", false);
    let bob = app.user_token("bob", false);
    as_(
        &app,
        &alice,
        "POST",
        "/registered-models/create",
        json!({"name": "v3"}),
    )
    .await;
    let base = "/api/3.0/mlflow/users/permissions";
    let get = format!("{base}/get?username=bob&resource_type=registered_model&resource_id=v3");
    let r = as_(&app, &alice, "GET", &get, json!({})).await;
    assert_eq!(
        r,
        (
            200,
            json!({"allowed": false, "permission": "NO_PERMISSIONS"})
        )
    );
    let grant = json!({"username": "bob", "resource_type": "registered_model", "resource_id": "v3", "permission": "EDIT"});
    // Bob cannot grant himself anything.
    let r = as_(&app, &bob, "POST", &format!("{base}/grant"), grant.clone()).await;
    assert_eq!(r.0, 403, "{}", r.1);
    assert_eq!(
        as_(&app, &alice, "POST", &format!("{base}/grant"), grant)
            .await
            .0,
        200
    );
    // Bob may ask about himself.
    let r = as_(&app, &bob, "GET", &get, json!({})).await;
    assert_eq!(r, (200, json!({"allowed": true, "permission": "EDIT"})));
    let tag = json!({"name": "v3", "key": "k", "value": "v"});
    assert_eq!(
        as_(&app, &bob, "POST", "/registered-models/set-tag", tag)
            .await
            .0,
        200
    );
    let revoke =
        json!({"username": "bob", "resource_type": "registered_model", "resource_id": "v3"});
    assert_eq!(
        as_(&app, &alice, "POST", &format!("{base}/revoke"), revoke)
            .await
            .0,
        200
    );
    let r = as_(
        &app,
        &bob,
        "GET",
        "/registered-models/get?name=v3",
        json!({}),
    )
    .await;
    assert_eq!(r.0, 403, "{}", r.1);
    let other = json!({"username": "bob", "resource_type": "scorer", "resource_id": "x", "permission": "READ"});
    let r = as_(&app, &alice, "POST", &format!("{base}/grant"), other).await;
    err(&r, 400, "INVALID_PARAMETER_VALUE", "'registered_model'");
}
