//! A: renames cannot move an experiment into someone else's private folder or out of its
//! owner's, the Default experiment never becomes private, and an owner cannot be locked out
//! of their experiment.

use serde_json::{json, Value};

use crate::helpers::TestApp;

const UPDATE: &str = "/api/2.0/mlflow/experiments/update";
const GRANT: &str = "/api/3.0/mlflow/users/permissions/grant";
const REVOKE: &str = "/api/3.0/mlflow/users/permissions/revoke";

async fn name_of(app: &TestApp, id: &str) -> String {
    let v = app
        .ok_get(&format!("/experiments/get?experiment_id={id}"))
        .await;
    v["experiment"]["name"].as_str().expect("name").to_string()
}

fn assert_refused(got: &(u16, Value), status: u16, code: &str, ctx: &str) {
    assert_eq!(got.0, status, "{ctx}: {}", got.1);
    assert_eq!(got.1["error_code"], code, "{ctx}: {}", got.1);
}

#[tokio::test]
async fn nobody_renames_the_default_experiment_into_a_private_folder() {
    let app = TestApp::new();
    let dave = app.user_token("dave", false);
    let alice = app.user_token("alice", false);
    let body = json!({"experiment_id": "0", "new_name": "/Users/alice/new-project"});
    let r = app.call_as(&dave, "POST", UPDATE, Some(body)).await;
    assert!(
        (400..500).contains(&r.0),
        "dave renamed 0 into alice's folder: {}",
        r.1
    );
    assert_eq!(name_of(&app, "0").await, "Default");

    // Alice's `set_experiment("/Users/alice/new-project")`: get-by-name, then create.
    let (s, v) = app
        .call_as(
            &alice,
            "GET",
            "/api/2.0/mlflow/experiments/get-by-name?experiment_name=/Users/alice/new-project",
            None,
        )
        .await;
    assert_eq!(s, 404, "the name resolves to an experiment: {v}");
    let (s, v) = app.create_as(&alice, "/Users/alice/new-project").await;
    assert_eq!(s, 200, "{v}");
    assert_ne!(v["experiment_id"], "0");

    // Not into the renamer's own folder, and not even by an administrator.
    for (who, token, name) in [
        ("dave", &dave, "/Users/dave/mine"),
        ("admin", &app.admin_token, "/Users/alice/by-admin"),
        ("admin", &app.admin_token, "/Users/root/own"),
    ] {
        let body = json!({"experiment_id": "0", "new_name": name});
        let r = app.call_as(token, "POST", UPDATE, Some(body)).await;
        assert_refused(
            &r,
            400,
            "INVALID_PARAMETER_VALUE",
            &format!("{who} -> {name}"),
        );
        assert_eq!(name_of(&app, "0").await, "Default");
    }
    // Renaming 0 within Shared stays allowed (CAN_EDIT, anyone may create there).
    let body = json!({"experiment_id": "0", "new_name": "/Workspace/Shared/default"});
    assert_eq!(app.call_as(&dave, "POST", UPDATE, Some(body)).await.0, 200);
}

#[tokio::test]
async fn a_rename_needs_the_right_to_create_at_the_new_name() {
    let app = TestApp::new();
    let alice = app.user_token("alice", false);
    let bob = app.user_token("bob", false);
    app.user("carol", false);
    let (_, v) = app.create_as(&alice, "/Workspace/Shared/team-x").await;
    let id = v["experiment_id"].as_str().expect("id").to_string();
    // Shared -> someone else's folder: bob may edit it, but may not create in carol's folder.
    let body = json!({"experiment_id": id, "new_name": "/Users/carol/squat"});
    let r = app.call_as(&bob, "POST", UPDATE, Some(body)).await;
    assert_refused(&r, 403, "PERMISSION_DENIED", "bob -> /Users/carol/");
    assert_eq!(name_of(&app, &id).await, "/Workspace/Shared/team-x");
    // Alice's private experiment, managed by bob through a grant, into carol's folder.
    let (_, v) = app.create_as(&alice, "/Users/alice/private").await;
    let private = v["experiment_id"].as_str().expect("id").to_string();
    let grant = json!({"username": "bob", "resource_type": "experiment",
                       "resource_id": private, "permission": "MANAGE"});
    assert_eq!(app.call_as(&alice, "POST", GRANT, Some(grant)).await.0, 200);
    let body = json!({"experiment_id": private, "new_name": "/Users/carol/private"});
    let r = app.call_as(&bob, "POST", UPDATE, Some(body)).await;
    assert_refused(&r, 403, "PERMISSION_DENIED", "manager -> /Users/carol/");
    assert_eq!(name_of(&app, &private).await, "/Users/alice/private");
}

#[tokio::test]
async fn a_manage_grantee_cannot_lock_the_owner_out() {
    let app = TestApp::new();
    let alice = app.user_token("alice", false);
    let bob = app.user_token("bob", false);
    let (_, v) = app.create_as(&alice, "/Users/alice/x").await;
    let id = v["experiment_id"].as_str().expect("id").to_string();
    let grant = json!({"username": "bob", "resource_type": "experiment",
                       "resource_id": id, "permission": "MANAGE"});
    assert_eq!(app.call_as(&alice, "POST", GRANT, Some(grant)).await.0, 200);

    // Bob may not move it out of alice's folder, not even into his own.
    for new_name in ["/Users/bob/x", "/Workspace/Shared/x", "x-plain"] {
        let body = json!({"experiment_id": id, "new_name": new_name});
        let r = app.call_as(&bob, "POST", UPDATE, Some(body)).await;
        assert_refused(
            &r,
            403,
            "PERMISSION_DENIED",
            &format!("manager -> {new_name}"),
        );
        assert_eq!(name_of(&app, &id).await, "/Users/alice/x");
    }
    // Within her folder he may rename it.
    let body = json!({"experiment_id": id, "new_name": "/Users/alice/y"});
    let r = app.call_as(&bob, "POST", UPDATE, Some(body)).await;
    assert_eq!(r.0, 200, "{}", r.1);

    // Then tries every way to remove alice.
    let none = json!({"username": "alice", "resource_type": "experiment",
                      "resource_id": id, "permission": "NO_PERMISSIONS"});
    let r = app.call_as(&bob, "POST", GRANT, Some(none)).await;
    assert_refused(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "grant NO_PERMISSIONS to the owner",
    );
    let revoke = json!({"username": "alice", "resource_type": "experiment", "resource_id": id});
    let r = app.call_as(&bob, "POST", REVOKE, Some(revoke)).await;
    assert_refused(&r, 400, "INVALID_PARAMETER_VALUE", "revoke the owner");
    let uri = format!("/api/v1/experiments/{id}/access?kind=user&name=alice");
    let (s, v) = app.call_as(&bob, "DELETE", &uri, None).await;
    assert_eq!(s, 400, "app API revoke of the owner: {v}");

    // Alice still reads and manages it.
    let (s, v) = app
        .call_as(
            &alice,
            "GET",
            &format!("/api/2.0/mlflow/experiments/get?experiment_id={id}"),
            None,
        )
        .await;
    assert_eq!(s, 200, "the owner lost read access: {v}");
    let (s, v) = app
        .call_as(
            &alice,
            "GET",
            &format!("/api/v1/experiments/{id}/access"),
            None,
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["your_level"], "CAN_MANAGE", "{v}");
    // A manage-only action by alice works.
    let grant = json!({"username": "bob", "resource_type": "experiment",
                       "resource_id": id, "permission": "READ"});
    let r = app.call_as(&alice, "POST", GRANT, Some(grant)).await;
    assert_eq!(r.0, 200, "{}", r.1);
}
