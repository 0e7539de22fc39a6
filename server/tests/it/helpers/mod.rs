//! The one test-app helper of the integration tests (after crates.io's `TestApp` and
//! `RequestHelper`): [`TestApp`] is the real router over a store in a temp dir, with users,
//! tokens and one-call requests that return status, headers and parsed body; [`binary`]
//! starts the real `runlens` binary on a free port.

pub mod binary;
pub mod store;

use std::net::SocketAddr;
use std::sync::OnceLock;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{header, HeaderMap, HeaderValue, Method, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::Value;
use server::auth::{tokens, users, AuthSettings};
use server::tracking::model::Point;
use server::tracking::series;
use server::{AppState, StaticConfig, Store};
use tower::ServiceExt;

/// Password of every user made by [`TestApp::user`].
pub const PASSWORD: &str = "correct horse battery";

/// Username of the administrator made by [`TestApp::new`].
pub const ADMIN: &str = "root";

/// An answer: status, headers and body (JSON, or `Value::Null`, and as text).
pub struct Resp {
    /// Status.
    pub status: StatusCode,
    /// Headers.
    pub headers: HeaderMap,
    /// Body parsed as JSON, or `Value::Null`.
    pub body: Value,
    /// Body as (lossy) text.
    pub text: String,
    /// Body as sent.
    pub bytes: Vec<u8>,
}

impl Resp {
    /// A response header as text ("" when absent; repeated headers joined by newlines).
    pub fn header(&self, name: &str) -> String {
        self.headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Sends `req` to `router` in-process and reads the whole answer.
pub async fn oneshot(router: &Router, req: Request<Body>) -> Resp {
    let resp = router.clone().oneshot(req).await.expect("infallible");
    let status = resp.status();
    let headers = resp.headers().clone();
    let bytes = resp.into_body().collect().await.expect("body").to_bytes();
    Resp {
        status,
        headers,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        text: String::from_utf8_lossy(&bytes).to_string(),
        bytes: bytes.to_vec(),
    }
}

/// The demo store [`TestApp::demo`] copies: its folder, its PostgreSQL database (on a
/// PostgreSQL run) and the administrator's token.
struct DemoTemplate {
    dir: std::path::PathBuf,
    db: Option<String>,
    token: String,
}

/// The real router on a fresh database, and its store.
pub struct TestApp {
    /// The store behind the router.
    pub store: Store,
    /// The administrator's API token ("" for [`TestApp::bare`]).
    pub admin_token: String,
    /// `Authorization` value of the administrator, used by the requests that carry none.
    pub admin_auth: String,
    router: Router,
    dir: tempfile::TempDir,
    /// The test's own PostgreSQL database, on a PostgreSQL run.
    db: Option<String>,
}

impl TestApp {
    /// Default settings and an administrator [`ADMIN`] with a token.
    pub fn new() -> Self {
        Self::with(AuthSettings::default(), StaticConfig::default())
    }

    /// Given settings and static config, and an administrator [`ADMIN`] with a token.
    pub fn with(settings: AuthSettings, statics: StaticConfig) -> Self {
        let mut app = Self::build(settings, statics);
        let token =
            server::auth::bootstrap::create_admin_with_token(&app.store, ADMIN).expect("admin");
        app.admin_auth = format!("Bearer {token}");
        app.admin_token = token;
        app
    }

    /// [`TestApp::new`] on embedded SQLite whatever the test run's backend (tests of the
    /// SQLite files themselves).
    pub fn sqlite() -> Self {
        let mut app = Self::build_on(AuthSettings::default(), StaticConfig::default(), true);
        let token =
            server::auth::bootstrap::create_admin_with_token(&app.store, ADMIN).expect("admin");
        app.admin_auth = format!("Bearer {token}");
        app.admin_token = token;
        app
    }

    /// No user at all (tests that make their own administrators).
    pub fn bare() -> Self {
        Self::build(AuthSettings::default(), StaticConfig::default())
    }

    /// [`TestApp::new`] with the demo data loaded: a copy of the demo store this process
    /// loaded once (a debug build loads the demo in about 10 s on SQLite and 35 s on
    /// PostgreSQL; a copy takes well under a second). The copy's data is as old as the
    /// process's first call; the demo's live parts (`server::demo::live`) start later.
    pub fn demo() -> Self {
        static TEMPLATE: OnceLock<DemoTemplate> = OnceLock::new();
        let t = TEMPLATE.get_or_init(|| {
            let dir = store::process_dir("demo-template");
            let (store, db) = store::open_named(&dir);
            let token =
                server::auth::bootstrap::create_admin_with_token(&store, ADMIN).expect("admin");
            server::demo::load(&store).expect("demo");
            // Closed before it is copied: SQLite's files are whole again, and PostgreSQL
            // copies only a database nobody is connected to.
            drop(store);
            DemoTemplate { dir, db, token }
        });
        let dir = tempfile::tempdir().expect("tempdir");
        let (store, db) = match &t.db {
            Some(db) => {
                let (store, copy) = store::copy_store(db, dir.path());
                (store, Some(copy))
            }
            None => {
                store::copy_sqlite_files(&t.dir, dir.path());
                (Store::open(dir.path()).expect("store"), None)
            }
        };
        let state = AppState::new(store.clone());
        TestApp {
            router: server::app(state, &StaticConfig::default()),
            store,
            admin_auth: format!("Bearer {}", t.token),
            admin_token: t.token.clone(),
            dir,
            db,
        }
    }

    fn build(settings: AuthSettings, statics: StaticConfig) -> Self {
        Self::build_on(settings, statics, false)
    }

    fn build_on(settings: AuthSettings, statics: StaticConfig, sqlite: bool) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let (store, db) = match sqlite {
            true => (Store::open(dir.path()).expect("store"), None),
            false => store::open_db(dir.path()),
        };
        let state = AppState::new(store.clone()).with_auth_settings(settings);
        TestApp {
            router: server::app(state, &statics),
            store,
            admin_token: String::new(),
            admin_auth: String::new(),
            dir,
            db,
        }
    }

    /// The data directory.
    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// The same database opened once more, migrating it as a restart would.
    pub fn reopen(&self) -> Result<Store, server::Error> {
        store::reopen(self.dir.path(), self.db.as_deref())
    }

    // ----- users and credentials -----

    /// Creates a user with [`PASSWORD`]; returns the user id.
    pub fn user(&self, name: &str, admin: bool) -> i64 {
        self.store
            .blocking(|c| users::create_user(c, name, Some(PASSWORD), admin))
            .expect("user")
    }

    /// A fresh API token for the existing user `name`.
    pub fn token(&self, name: &str) -> String {
        self.store
            .blocking(|c| {
                let id = users::find_user_id(c, name)?.expect("user exists");
                Ok(tokens::create_token(c, id, "t")?.token)
            })
            .expect("token")
    }

    /// Creates a user with [`PASSWORD`] and returns an API token for them.
    pub fn user_token(&self, name: &str, admin: bool) -> String {
        self.user(name, admin);
        self.token(name)
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

    // ----- requests with full URIs -----

    /// Sends a request exactly as given (no credential added), from no particular address.
    pub async fn request(&self, req: Request<Body>) -> Resp {
        oneshot(&self.router, req).await
    }

    /// Sends `method uri` with `headers` and an optional JSON body (`Content-Type:
    /// application/json`); no credential unless `headers` has one.
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
        self.request(req.body(body).expect("request")).await
    }

    /// Sends a raw body with a content type (none if `ctype` is empty), from `addr` if given.
    pub async fn call_raw(
        &self,
        method: Method,
        uri: &str,
        headers: &[(&str, &str)],
        ctype: &str,
        body: impl Into<Body>,
        addr: Option<SocketAddr>,
    ) -> Resp {
        let mut req = Request::builder().method(method).uri(uri);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        if !ctype.is_empty() {
            req = req.header("content-type", ctype);
        }
        let mut req = req.body(body.into()).expect("request");
        if let Some(a) = addr {
            req.extensions_mut().insert(ConnectInfo(a));
        }
        self.request(req).await
    }

    /// GET with a bearer token.
    pub async fn get_as(&self, token: &str, uri: &str) -> Resp {
        let auth = format!("Bearer {token}");
        self.call(Method::GET, uri, &[("authorization", &auth)], None)
            .await
    }

    /// `method uri` with a bearer token and an optional JSON body; (status, JSON body).
    pub async fn call_as(
        &self,
        token: &str,
        method: &str,
        uri: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let auth = format!("Bearer {token}");
        let method = Method::from_bytes(method.as_bytes()).expect("method");
        let r = self
            .call(method, uri, &[("authorization", &auth)], body)
            .await;
        (r.status.as_u16(), r.body)
    }

    /// GETs `uri` as the administrator; (status, raw body).
    pub async fn get_raw(&self, uri: &str) -> (StatusCode, Vec<u8>) {
        let r = self.get_as(&self.admin_token, uri).await;
        (r.status, r.text.into_bytes())
    }

    /// GETs `uri` as the administrator; (status, JSON body), panicking if it is not JSON.
    pub async fn get_json(&self, uri: &str) -> (StatusCode, Value) {
        let r = self.get_as(&self.admin_token, uri).await;
        assert!(!r.body.is_null(), "{uri}: not JSON: {}", r.text);
        (r.status, r.body)
    }

    // ----- the MLflow dialect, as the administrator unless the request has a credential -----

    /// Sends a request as the administrator (unless it has an `Authorization` header);
    /// returns status and body parsed as JSON (`Value::Null` if not JSON).
    pub async fn send(&self, mut req: Request<Body>) -> (StatusCode, Value) {
        if !req.headers().contains_key(header::AUTHORIZATION) {
            let value = HeaderValue::from_str(&self.admin_auth).expect("header");
            req.headers_mut().insert(header::AUTHORIZATION, value);
        }
        self.send_as_is(req).await
    }

    /// Sends a request exactly as given; (status, JSON body or `Value::Null`).
    pub async fn send_as_is(&self, req: Request<Body>) -> (StatusCode, Value) {
        let r = self.request(req).await;
        (r.status, r.body)
    }

    /// POSTs a JSON body to `/api/2.0/mlflow{path}`.
    pub async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.post_raw(path, "application/json", body.to_string())
            .await
    }

    /// POSTs raw bytes with a content type to `/api/2.0/mlflow{path}`.
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

    /// MLflow POST that must succeed; returns the body.
    pub async fn ok(&self, path: &str, body: Value) -> Value {
        let (status, v) = self.post(path, body).await;
        assert_eq!(status, StatusCode::OK, "{path}: {v}");
        v
    }

    /// MLflow GET that must succeed; returns the body.
    pub async fn ok_get(&self, path_and_query: &str) -> Value {
        let (status, v) = self.get(path_and_query).await;
        assert_eq!(status, StatusCode::OK, "{path_and_query}: {v}");
        v
    }

    /// Creates an experiment as the administrator; returns its id.
    pub async fn experiment(&self, name: &str) -> String {
        let v = self
            .ok("/experiments/create", serde_json::json!({ "name": name }))
            .await;
        v["experiment_id"].as_str().expect("id").to_string()
    }

    /// Creates a run as the administrator; returns its id.
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

    /// Creates an experiment as the token's user; (status, JSON body).
    pub async fn create_as(&self, token: &str, name: &str) -> (u16, Value) {
        self.call_as(
            token,
            "POST",
            "/api/2.0/mlflow/experiments/create",
            Some(serde_json::json!({"name": name})),
        )
        .await
    }

    // ----- the database -----

    /// One integer from SQL.
    pub fn scalar(&self, sql: &str) -> i64 {
        self.store
            .blocking(|c| Ok(c.query_row(sql, [], |r| r.get(0))?))
            .expect("scalar")
    }

    /// One string from SQL with one string parameter.
    pub fn text(&self, sql: &str, arg: &str) -> String {
        let arg = arg.to_string();
        self.store
            .blocking(|c| Ok(c.query_row(sql, [arg], |r| r.get(0))?))
            .expect("text")
    }

    /// (experiments, runs, metric points, latest metrics).
    pub fn counts(&self) -> [i64; 4] {
        ["experiments", "runs", "metric_points", "latest_metrics"]
            .map(|t| self.scalar(&format!("SELECT count(*) FROM {t}")))
    }

    /// Id of the experiment named `name`.
    pub fn experiment_id(&self, name: &str) -> i64 {
        self.text(
            "SELECT CAST(experiment_id AS TEXT) FROM experiments WHERE name = ?1",
            name,
        )
        .parse()
        .expect("id")
    }

    /// Id of the run named `name`.
    pub fn run_id(&self, name: &str) -> String {
        self.text("SELECT run_uuid FROM runs WHERE name = ?1", name)
    }

    /// Inserts a run in experiment 0 with one metric `key` of `(step, timestamp, value)`
    /// points (NaN kept as `is_nan`), without maintaining `latest_metrics`.
    pub fn insert_series(
        &self,
        run_id: &str,
        key: &str,
        points: impl Iterator<Item = (i64, i64, f64)>,
    ) {
        let (run_id, key) = (run_id.to_string(), key.to_string());
        self.store
            .blocking(move |c| {
                let tx = c.transaction(server::db::Behavior::Immediate)?;
                tx.execute(
                    "INSERT INTO runs (run_uuid, experiment_id, name, user_id, status,
                       start_time, lifecycle_stage, artifact_uri)
                     VALUES (?1, 0, 'synthetic', 'tester', 'RUNNING', 1000, 'active', '')
                     ON CONFLICT DO NOTHING",
                    [&run_id],
                )?;
                let sid: i64 = tx.query_row(
                    "INSERT INTO metric_series (run_uuid, key) VALUES (?1, ?2) RETURNING series_id",
                    [&run_id, &key],
                    |r| r.get(0),
                )?;
                // Through the store's one writer of points, so block summaries and the count
                // are kept as on ingest.
                let points: Vec<Point> = points
                    .map(|(step, timestamp, value)| Point {
                        step,
                        timestamp,
                        value,
                    })
                    .collect();
                for chunk in points.chunks(1000) {
                    series::insert_points(&tx, sid, chunk)?;
                }
                tx.commit()?;
                Ok(())
            })
            .expect("insert series");
    }
}

/// Asserts an MLflow error answer: status and `error_code`, and a message containing `part`.
pub fn assert_error(got: &(StatusCode, Value), status: u16, code: &str, part: &str) {
    assert_eq!(got.0.as_u16(), status, "{}", got.1);
    assert_eq!(got.1["error_code"], code, "{}", got.1);
    let msg = got.1["message"].as_str().unwrap_or("");
    assert!(msg.contains(part), "message {msg:?} lacks {part:?}");
}
