//! `AuthApp`: the real router over a temp store with an administrator, and a request
//! helper that returns status, headers and JSON.

#![allow(dead_code)]

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use server::auth::{users, AuthSettings};
use server::{AppState, StaticConfig, Store};
use tower::ServiceExt;

/// Password of users made by [`AuthApp::user`].
pub const PASSWORD: &str = "correct horse battery";

/// An answer: status, headers and body (JSON, or `Value::Null`).
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Resp {
    /// A response header as text ("" when absent).
    pub fn header(&self, name: &str) -> String {
        self.headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The router, its store and the admin's token.
pub struct AuthApp {
    pub store: Store,
    pub router: axum::Router,
    pub admin_token: String,
    _dir: tempfile::TempDir,
}

impl AuthApp {
    /// Default settings.
    pub fn new() -> Self {
        Self::with(AuthSettings::default(), StaticConfig::default())
    }

    /// Given settings and static config.
    pub fn with(settings: AuthSettings, statics: StaticConfig) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let admin_token = server::auth::bootstrap::create_admin_with_token(&store, "root").unwrap();
        let state = AppState::new(store.clone()).with_auth_settings(settings);
        let router = server::app(state, &statics);
        AuthApp {
            store,
            router,
            admin_token,
            _dir: dir,
        }
    }

    /// Creates a user with [`PASSWORD`].
    pub fn user(&self, name: &str, admin: bool) -> i64 {
        self.store
            .blocking(|c| users::create_user(c, name, Some(PASSWORD), admin))
            .unwrap()
    }

    /// A fresh API token for user `name`.
    pub fn token(&self, name: &str) -> String {
        self.store
            .blocking(|c| {
                let id = users::find_user_id(c, name)?.unwrap();
                Ok(server::auth::tokens::create_token(c, id, "t")?.token)
            })
            .unwrap()
    }

    /// Sends a request with `headers` and an optional JSON body.
    pub async fn call(
        &self,
        method: Method,
        uri: &str,
        headers: &[(&str, &str)],
        body: Option<Value>,
    ) -> Resp {
        let mut req = Request::builder().method(method).uri(uri);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let body = match body {
            Some(v) => {
                req = req.header("content-type", "application/json");
                Body::from(v.to_string())
            }
            None => Body::empty(),
        };
        let resp = self
            .router
            .clone()
            .oneshot(req.body(body).unwrap())
            .await
            .unwrap();
        let status = resp.status();
        let headers = resp.headers().clone();
        let bytes = resp.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8_lossy(&bytes).to_string();
        Resp {
            status,
            headers,
            body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            text,
        }
    }

    /// GET with a bearer token.
    pub async fn get_as(&self, token: &str, uri: &str) -> Resp {
        let auth = format!("Bearer {token}");
        self.call(Method::GET, uri, &[("authorization", &auth)], None)
            .await
    }

    /// Signs in; returns (cookie pair "runlens_session=...", csrf token, response).
    pub async fn login(&self, user: &str, password: &str) -> (String, String, Resp) {
        let body = serde_json::json!({ "username": user, "password": password });
        let r = self
            .call(Method::POST, "/api/v1/session", &[], Some(body))
            .await;
        let cookie = r
            .header("set-cookie")
            .split(';')
            .next()
            .unwrap_or("")
            .to_string();
        let csrf = r.body["csrf_token"].as_str().unwrap_or("").to_string();
        (cookie, csrf, r)
    }
}
