//! Sharing and permission behaviour end to end on the real router: grantors in refusals,
//! filtered lists and page tokens, the sharing API, MLflow 3's permission endpoints, the
//! creation rules, level-0 grants, and the demo's users and grants.

use serde_json::{json, Value};

use crate::helpers::TestApp;

#[tokio::test]
async fn refusals_name_grantors_and_creation_respects_user_folders() {
    let app = TestApp::bare();
    let root = app.user_token("root", true);
    let alice = app.user_token("alice", false);
    let bob = app.user_token("bob", false);
    let (s, v) = app.create_as(&alice, "/Users/alice/private").await;
    assert_eq!(s, 200, "{v}");
    let id = v["experiment_id"].as_str().expect("id").to_string();
    let (s, v) = app.create_as(&bob, "/Users/alice/squat").await;
    assert_eq!(
        (s, v["error_code"].as_str()),
        (403, Some("PERMISSION_DENIED")),
        "{v}"
    );
    assert_eq!(app.create_as(&root, "/Users/alice/by-admin").await.0, 200);
    assert_eq!(app.create_as(&bob, "/Workspace/Shared/team").await.0, 200);
    let (s, v) = app
        .call_as(&bob, "GET", &format!("/api/v1/experiments/{id}"), None)
        .await;
    assert_eq!(s, 403);
    assert_eq!(v["code"], "PERMISSION_DENIED");
    assert_eq!(v["message"], "You don't have access to this experiment.");
    assert_eq!(v["grantors"], json!(["alice", "root"]));
    let (s, v) = app
        .call_as(&bob, "GET", "/api/v1/experiments/424242", None)
        .await;
    assert_eq!((s, v["code"].as_str()), (404, Some("NOT_FOUND")));
    let search = json!({"experiment_ids": [id.clone()]});
    let (s, v) = app
        .call_as(&bob, "POST", "/api/2.0/mlflow/runs/search", Some(search))
        .await;
    assert_eq!(
        (s, v["error_code"].as_str()),
        (403, Some("PERMISSION_DENIED")),
        "{v}"
    );
    // The MLflow dialect has no `grantors` field, so its message names them.
    let (s, v) = app
        .call_as(
            &bob,
            "GET",
            &format!("/api/2.0/mlflow/experiments/get?experiment_id={id}"),
            None,
        )
        .await;
    assert_eq!(s, 403);
    assert_eq!(
        v["message"],
        "You don't have access to this experiment. Ask alice or root for access."
    );
}

#[tokio::test]
async fn lists_count_and_page_only_readable_experiments() {
    let app = TestApp::bare();
    let alice = app.user_token("alice", false);
    let bob = app.user_token("bob", false);
    for i in 0..5 {
        assert_eq!(
            app.create_as(&alice, &format!("/Users/alice/e{i}")).await.0,
            200
        );
    }
    assert_eq!(app.create_as(&alice, "/Workspace/Shared/s").await.0, 200);
    let (_, v) = app.call_as(&bob, "GET", "/api/v1/experiments", None).await;
    let names: Vec<&str> = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(v["total"], 2, "{v}");
    assert_eq!(names, ["/Workspace/Shared/s", "Default"]);
    let uri = "/api/2.0/mlflow/experiments/search?max_results=1";
    let (_, page1) = app.call_as(&bob, "GET", uri, None).await;
    let token = page1["next_page_token"]
        .as_str()
        .expect("a second page")
        .to_string();
    let (_, page2) = app
        .call_as(&bob, "GET", &format!("{uri}&page_token={token}"), None)
        .await;
    assert_eq!(page2["experiments"].as_array().map(Vec::len), Some(1));
    assert!(
        page2.get("next_page_token").is_none(),
        "no third page for bob: {page2}"
    );
    let (_, all) = app
        .call_as(&alice, "GET", "/api/2.0/mlflow/experiments/search", None)
        .await;
    assert_eq!(all["experiments"].as_array().map(Vec::len), Some(7));
}

#[tokio::test]
async fn sharing_api_grants_lists_and_revokes() {
    let app = TestApp::bare();
    let alice = app.user_token("alice", false);
    let bob = app.user_token("bob", false);
    app.store
        .blocking(|c| server::auth::groups::create_group(c, "vision").map(drop))
        .expect("group");
    let (_, v) = app.create_as(&alice, "/Users/alice/sft").await;
    let id = v["experiment_id"].as_str().expect("id").to_string();
    let access = format!("/api/v1/experiments/{id}/access");
    let grant = |name: &str, kind: &str, level: &str| {
        Some(json!({"principal": {"kind": kind, "name": name}, "level": level}))
    };
    assert_eq!(
        app.call_as(&bob, "PUT", &access, grant("bob", "user", "CAN_MANAGE"))
            .await
            .0,
        403
    );
    let (s, v) = app
        .call_as(&alice, "PUT", &access, grant("ghost", "user", "CAN_READ"))
        .await;
    assert_eq!(s, 404);
    assert!(v["message"].as_str().unwrap_or("").contains("ghost"), "{v}");
    assert_eq!(
        app.call_as(&alice, "PUT", &access, grant("bob", "user", "CAN_READ"))
            .await
            .0,
        204
    );
    assert_eq!(
        app.call_as(&alice, "PUT", &access, grant("vision", "group", "CAN_EDIT"))
            .await
            .0,
        204
    );
    let (s, v) = app.call_as(&bob, "GET", &access, None).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["your_level"], "CAN_READ");
    let grants = v["grants"].as_array().expect("grants");
    assert_eq!(grants.len(), 3, "alice (creator), bob, vision: {v}");
    // The owner is named, so the Share dialog offers no revoke on her row; the server
    // refuses it as well.
    assert_eq!(v["owner"], "alice", "{v}");
    let own = format!("{access}?kind=user&name=alice");
    let (s, refused) = app.call_as(&alice, "DELETE", &own, None).await;
    assert_eq!(s, 400, "{refused}");
    let why = refused["message"].as_str().unwrap_or("");
    assert!(why.contains("owner"), "{refused}");
    assert!(
        v["implicit"][0]
            .as_str()
            .unwrap_or("")
            .contains("alice owns"),
        "{v}"
    );
    let log = json!({"experiment_id": id});
    assert_eq!(
        app.call_as(&bob, "POST", "/api/2.0/mlflow/runs/create", Some(log))
            .await
            .0,
        403
    );
    let del = format!("{access}?kind=user&name=bob");
    assert_eq!(app.call_as(&alice, "DELETE", &del, None).await.0, 204);
    assert_eq!(app.call_as(&alice, "DELETE", &del, None).await.0, 404);
    assert_eq!(app.call_as(&bob, "GET", &access, None).await.0, 403);
    let (s, v) = app
        .call_as(&bob, "GET", "/api/v1/principals?q=VIS", None)
        .await;
    assert_eq!((s, v), (200, json!([{"kind": "group", "name": "vision"}])));
}

#[tokio::test]
async fn mlflow_permission_endpoints_and_level_zero() {
    let app = TestApp::bare();
    let root = app.user_token("root", true);
    let alice = app.user_token("alice", false);
    let _bob = app.user_token("bob", false);
    let (_, v) = app.create_as(&alice, "/Workspace/Shared/team").await;
    let id = v["experiment_id"].as_str().expect("id").to_string();
    let base = "/api/3.0/mlflow/users/permissions";
    let get = format!("{base}/get?username=bob&resource_type=experiment&resource_id={id}");
    let (_, v) = app.call_as(&root, "GET", &get, None).await;
    assert_eq!(
        v,
        json!({"allowed": true, "permission": "EDIT"}),
        "Shared gives EDIT"
    );
    let body = |perm: &str| {
        Some(
            json!({"username": "bob", "resource_type": "experiment", "resource_id": id, "permission": perm}),
        )
    };
    assert_eq!(
        app.call_as(
            &alice,
            "POST",
            &format!("{base}/grant"),
            body("NO_PERMISSIONS")
        )
        .await
        .0,
        200
    );
    let (_, v) = app.call_as(&root, "GET", &get, None).await;
    assert_eq!(v, json!({"allowed": false, "permission": "NO_PERMISSIONS"}));
    let (s, v) = app
        .call_as(&alice, "POST", &format!("{base}/grant"), body("OWNER"))
        .await;
    assert_eq!(
        (s, v["error_code"].as_str()),
        (400, Some("INVALID_PARAMETER_VALUE"))
    );
    let mut other = body("READ").expect("body");
    other["resource_type"] = json!("no_such_type");
    let (s, _) = app
        .call_as(&alice, "POST", &format!("{base}/grant"), Some(other))
        .await;
    assert_eq!(s, 400);
    let revoke = json!({"username": "bob", "resource_type": "experiment", "resource_id": id});
    assert_eq!(
        app.call_as(&alice, "POST", &format!("{base}/revoke"), Some(revoke))
            .await
            .0,
        200
    );
    let (_, v) = app.call_as(&root, "GET", &get, None).await;
    assert_eq!(v["permission"], "EDIT");
    let ghost = json!({"username": "ghost", "resource_type": "experiment", "resource_id": id, "permission": "READ"});
    let (s, v) = app
        .call_as(&root, "POST", &format!("{base}/grant"), Some(ghost))
        .await;
    assert_eq!(
        (s, v["error_code"].as_str()),
        (404, Some("RESOURCE_DOES_NOT_EXIST"))
    );
}

#[tokio::test]
async fn demo_users_see_what_the_demo_shares() {
    let app = TestApp::demo();
    server::demo::load(&app.store).expect("demo again (idempotent)");
    let token = |name: &str| {
        app.store
            .blocking(|c| {
                let id = server::auth::users::find_user_id(c, name)?.expect("demo user");
                Ok(server::auth::tokens::create_token(c, id, "t")?.token)
            })
            .expect("token")
    };
    let names = |v: &Value| -> Vec<String> {
        let items = v["items"].as_array().cloned().unwrap_or_default();
        items
            .iter()
            .filter_map(|e| e["name"].as_str().map(str::to_string))
            .collect()
    };
    let (_, v) = app
        .call_as(&token("bob"), "GET", "/api/v1/experiments", None)
        .await;
    let bob = names(&v);
    assert!(bob.contains(&"/Users/alice/llm-sft".to_string()), "{bob:?}");
    assert!(
        bob.contains(&"/Users/bob/resnet-ablation".to_string()),
        "{bob:?}"
    );
    let (_, v) = app
        .call_as(&token("carol"), "GET", "/api/v1/experiments", None)
        .await;
    let carol = names(&v);
    assert!(carol.iter().all(|n| !n.starts_with("/Users/")), "{carol:?}");
    assert!(
        carol.iter().any(|n| n.starts_with("/Workspace/Shared/")),
        "{carol:?}"
    );
    assert!(server::demo::sign_in_hint().contains("sign in as alice / alice-demo-pw"));
}
