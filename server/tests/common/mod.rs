//! Test helpers shared by the MLflow-dialect integration tests: the real router over a
//! temporary data directory, and one-call JSON requests sent as an administrator (an API
//! token in `Authorization: Bearer`) unless the request carries its own credential.

#![allow(dead_code)]

use axum::body::Body;
use axum::http::{header, HeaderValue, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::Value;
use server::{AppState, StaticConfig, Store};
use tower::ServiceExt;

/// The real router on a fresh database.
pub struct TestApp {
    _dir: tempfile::TempDir,
    router: Router,
    /// The store behind the router.
    pub store: Store,
    /// `Authorization` value of the administrator `admin` every request is sent as.
    pub admin_auth: String,
}

impl TestApp {
    /// Opens a fresh store in a temp dir and builds the router.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("store");
        let token =
            server::auth::bootstrap::create_admin_with_token(&store, "admin").expect("admin");
        let router = server::app(AppState::new(store.clone()), &StaticConfig::default());
        TestApp {
            _dir: dir,
            router,
            store,
            admin_auth: format!("Bearer {token}"),
        }
    }

    /// Sends a request as the administrator (unless it has an `Authorization` header);
    /// returns status and body parsed as JSON (`Value::Null` if not JSON).
    pub async fn send(&self, mut req: Request<Body>) -> (StatusCode, Value) {
        if !req.headers().contains_key(header::AUTHORIZATION) {
            let value = HeaderValue::from_str(&self.admin_auth).expect("header");
            req.headers_mut().insert(header::AUTHORIZATION, value);
        }
        self.send_as_is(req).await
    }

    /// Sends a request exactly as given (no credential added).
    pub async fn send_as_is(&self, req: Request<Body>) -> (StatusCode, Value) {
        let resp = self.router.clone().oneshot(req).await.expect("infallible");
        let status = resp.status();
        let bytes = resp.into_body().collect().await.expect("body").to_bytes();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// POSTs a JSON body to `/api/2.0/mlflow{path}`.
    pub async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.post_raw(path, "application/json", body.to_string())
            .await
    }

    /// POSTs raw bytes with a content type.
    pub async fn post_raw(&self, path: &str, ctype: &str, body: String) -> (StatusCode, Value) {
        let req = Request::post(format!("/api/2.0/mlflow{path}"))
            .header("content-type", ctype)
            .body(Body::from(body))
            .expect("request");
        self.send(req).await
    }

    /// GETs `/api/2.0/mlflow{path_and_query}`.
    pub async fn get(&self, path_and_query: &str) -> (StatusCode, Value) {
        let req = Request::get(format!("/api/2.0/mlflow{path_and_query}"))
            .body(Body::empty())
            .expect("request");
        self.send(req).await
    }

    /// POST that must succeed; returns the body.
    pub async fn ok(&self, path: &str, body: Value) -> Value {
        let (status, v) = self.post(path, body).await;
        assert_eq!(status, StatusCode::OK, "{path}: {v}");
        v
    }

    /// GET that must succeed; returns the body.
    pub async fn ok_get(&self, path_and_query: &str) -> Value {
        let (status, v) = self.get(path_and_query).await;
        assert_eq!(status, StatusCode::OK, "{path_and_query}: {v}");
        v
    }

    /// Creates an experiment; returns its id.
    pub async fn experiment(&self, name: &str) -> String {
        let v = self
            .ok("/experiments/create", serde_json::json!({ "name": name }))
            .await;
        v["experiment_id"].as_str().expect("id").to_string()
    }

    /// Creates a run; returns its id.
    pub async fn run(&self, experiment_id: &str, name: &str) -> String {
        let body = serde_json::json!({
            "experiment_id": experiment_id, "run_name": name, "user_id": "alice",
            "start_time": 1_700_000_000_000i64
        });
        let v = self.ok("/runs/create", body).await;
        v["run"]["info"]["run_id"]
            .as_str()
            .expect("run id")
            .to_string()
    }
}

/// Asserts an MLflow error answer: status and `error_code`, and a message containing `part`.
pub fn assert_error(got: &(StatusCode, Value), status: u16, code: &str, part: &str) {
    assert_eq!(got.0.as_u16(), status, "{}", got.1);
    assert_eq!(got.1["error_code"], code, "{}", got.1);
    let msg = got.1["message"].as_str().unwrap_or("");
    assert!(msg.contains(part), "message {msg:?} lacks {part:?}");
}
