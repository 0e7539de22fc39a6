//! Authenticated API answers are never cached, MLflow's length limits on
//! `run_name` and `user_id` (a disabled account's answer is in `auth_api::credentials`).

use axum::http::Method;
use serde_json::json;

use crate::helpers::{assert_error, TestApp};

#[tokio::test]
async fn authenticated_api_answers_are_not_stored() {
    let app = TestApp::new();
    let run = app.run("0", "r").await;
    let bearer = format!("Bearer {}", app.admin_token);
    let auth = [("authorization", bearer.as_str())];
    for uri in [
        "/api/2.0/mlflow/experiments/search?max_results=5".to_string(),
        "/ajax-api/2.0/mlflow/experiments/search?max_results=5".to_string(),
        format!("/api/2.0/mlflow/runs/get?run_id={run}"),
        "/api/2.0/mlflow/users/current".to_string(),
        "/api/v1/experiments".to_string(),
        "/api/v1/session".to_string(),
        "/api/v1/tokens".to_string(),
        "/api/v1/experiments/424242".to_string(),
    ] {
        let r = app.call(Method::GET, &uri, &auth, None).await;
        assert!(r.status.as_u16() < 500, "{uri}: {}", r.status);
        let cc = r.header("cache-control");
        assert!(
            cc.contains("no-store"),
            "{uri} ({}): cache-control {cc:?}",
            r.status
        );
    }
    let r = app
        .call(
            Method::POST,
            "/api/2.0/mlflow/runs/search",
            &auth,
            Some(json!({"experiment_ids": ["0"]})),
        )
        .await;
    assert!(r.header("cache-control").contains("no-store"));
}

#[tokio::test]
async fn run_name_and_user_id_follow_mlflows_limits() {
    let app = TestApp::new();
    let create = |name: String, user: String| json!({"experiment_id": "0", "run_name": name, "user_id": user, "start_time": 1});
    let ok = app
        .post("/runs/create", create("n".repeat(250), "u".repeat(256)))
        .await;
    assert_eq!(ok.0, 200, "{}", ok.1);
    let r = app
        .post("/runs/create", create("n".repeat(251), "u".to_string()))
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "250");
    let r = app
        .post("/runs/create", create("n".to_string(), "u".repeat(257)))
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "256");
    let r = app
        .post(
            "/runs/create",
            create("n".repeat(1_000_000), "u".to_string()),
        )
        .await;
    assert_eq!(
        r.0,
        400,
        "{}",
        r.1.to_string().chars().take(200).collect::<String>()
    );
    // Renaming a run is bound the same way.
    let id = ok.1["run"]["info"]["run_id"]
        .as_str()
        .expect("id")
        .to_string();
    let r = app
        .post(
            "/runs/update",
            json!({"run_id": id, "run_name": "n".repeat(251)}),
        )
        .await;
    assert_error(&r, 400, "INVALID_PARAMETER_VALUE", "250");
}
