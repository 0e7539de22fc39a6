//! MLflow's user endpoints as `AuthServiceClient` calls them.

use axum::http::{Method, StatusCode};
use serde_json::json;
use server::auth::basic_header;

use crate::helpers::{TestApp, PASSWORD};

const BASE: &str = "/api/2.0/mlflow/users";

#[tokio::test]
async fn admin_manages_users_like_mlflow() {
    let app = TestApp::new();
    let auth = format!("Bearer {}", app.admin_token);
    let h = [("authorization", auth.as_str())];
    let body = json!({ "username": "newuser", "password": "newpassword" });
    let r = app
        .call(
            Method::POST,
            &format!("{BASE}/create"),
            &h,
            Some(body.clone()),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["user"]["username"], "newuser");
    assert_eq!(r.body["user"]["is_admin"], false);
    assert!(r.body["user"]["id"].is_i64());
    assert!(!r.text.contains("newpassword"));
    let r = app
        .call(Method::POST, &format!("{BASE}/create"), &h, Some(body))
        .await;
    assert_eq!(r.body["error_code"], "RESOURCE_ALREADY_EXISTS");

    let r = app
        .call(
            Method::GET,
            &format!("{BASE}/get?username=newuser"),
            &h,
            None,
        )
        .await;
    assert_eq!(r.body["user"]["username"], "newuser");
    let r = app
        .call(Method::GET, &format!("{BASE}/get?username=ghost"), &h, None)
        .await;
    assert_eq!(
        (r.status, r.body["error_code"].as_str()),
        (StatusCode::NOT_FOUND, Some("RESOURCE_DOES_NOT_EXIST"))
    );
    let r = app
        .call(Method::GET, &format!("{BASE}/list"), &h, None)
        .await;
    let names: Vec<&str> = r.body["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["newuser", "root"]);

    let pw = json!({ "username": "newuser", "password": "anotherpassword" });
    let r = app
        .call(
            Method::PATCH,
            &format!("{BASE}/update-password"),
            &h,
            Some(pw),
        )
        .await;
    assert_eq!((r.status, r.body.clone()), (StatusCode::OK, json!({})));
    let basic = basic_header("newuser", "anotherpassword");
    let me = app
        .call(
            Method::GET,
            "/api/v1/session",
            &[("authorization", &basic)],
            None,
        )
        .await;
    assert_eq!(me.status, StatusCode::OK);

    let adm = json!({ "username": "newuser", "is_admin": true });
    let r = app
        .call(
            Method::PATCH,
            &format!("{BASE}/update-admin"),
            &h,
            Some(adm),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    let me = app
        .call(
            Method::GET,
            "/api/v1/session",
            &[("authorization", &basic)],
            None,
        )
        .await;
    assert_eq!(me.body["is_admin"], true);

    let del = json!({ "username": "root" });
    let r = app
        .call(Method::DELETE, &format!("{BASE}/delete"), &h, Some(del))
        .await;
    assert_eq!(r.body["error_code"], "BAD_REQUEST", "no deleting oneself");
    let del = json!({ "username": "newuser" });
    let r = app
        .call(Method::DELETE, &format!("{BASE}/delete"), &h, Some(del))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let me = app
        .call(
            Method::GET,
            "/api/v1/session",
            &[("authorization", &basic)],
            None,
        )
        .await;
    assert_eq!(me.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn non_admins_are_refused_but_may_change_their_own_password() {
    let app = TestApp::new();
    app.user("alice", false);
    let auth = basic_header("alice", PASSWORD);
    let h = [("authorization", auth.as_str())];
    for (m, path, body) in [
        (
            Method::POST,
            "create",
            Some(json!({ "username": "x", "password": "yyyyyyyy" })),
        ),
        (Method::GET, "list", None),
        (Method::GET, "get?username=root", None),
        (
            Method::PATCH,
            "update-admin",
            Some(json!({ "username": "alice", "is_admin": true })),
        ),
        (
            Method::DELETE,
            "delete",
            Some(json!({ "username": "root" })),
        ),
        (
            Method::PATCH,
            "update-password",
            Some(json!({ "username": "root", "password": "pwned-pwned" })),
        ),
    ] {
        let r = app.call(m, &format!("{BASE}/{path}"), &h, body).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{path}: {}", r.text);
        assert_eq!(r.body["error_code"], "PERMISSION_DENIED");
    }
    let r = app
        .call(Method::GET, &format!("{BASE}/current"), &h, None)
        .await;
    assert_eq!(r.body["user"]["username"], "alice");
    let r = app
        .call(Method::GET, &format!("{BASE}/get?username=alice"), &h, None)
        .await;
    assert_eq!(r.status, StatusCode::OK);

    let uri = format!("{BASE}/update-password");
    let no_current = json!({ "username": "alice", "password": "new password 1" });
    let r = app.call(Method::PATCH, &uri, &h, Some(no_current)).await;
    assert_eq!(r.body["error_code"], "INVALID_PARAMETER_VALUE");
    let wrong = json!({ "username": "alice", "password": "new password 1", "current_password": "nope-nope" });
    let r = app.call(Method::PATCH, &uri, &h, Some(wrong)).await;
    assert_eq!(r.body["message"], "Current password does not match.");
    let ok =
        json!({ "username": "alice", "password": "new password 1", "current_password": PASSWORD });
    let r = app.call(Method::PATCH, &uri, &h, Some(ok)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let new = basic_header("alice", "new password 1");
    assert_eq!(
        app.call(
            Method::GET,
            "/api/v1/session",
            &[("authorization", &new)],
            None
        )
        .await
        .status,
        StatusCode::OK
    );
}
