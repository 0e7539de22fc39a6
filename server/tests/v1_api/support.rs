//! A `TestApp`: the real router over a store in a temp dir, plus fixtures and helpers.

#![allow(dead_code)] // each test binary uses a different subset

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use server::{AppState, StaticConfig, Store};
use tower::ServiceExt;

/// The router and its store; the temp dir lives as long as the app.
pub struct TestApp {
    pub store: Store,
    /// `Authorization` value of the administrator every request is sent as.
    pub admin_auth: String,
    router: axum::Router,
    _dir: tempfile::TempDir,
}

impl TestApp {
    /// An empty store.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let token = server::auth::bootstrap::create_admin_with_token(&store, "admin").unwrap();
        let router = server::app(AppState::new(store.clone()), &StaticConfig::default());
        TestApp {
            store,
            admin_auth: format!("Bearer {token}"),
            router,
            _dir: dir,
        }
    }

    /// A store with the demo data.
    pub fn demo() -> Self {
        let app = Self::new();
        server::demo::load(&app.store).unwrap();
        app
    }

    /// GETs `uri`; returns the status and the JSON body.
    pub async fn get(&self, uri: &str) -> (StatusCode, Value) {
        let (status, bytes) = self.get_raw(uri).await;
        let body = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            panic!("{uri}: not JSON ({e}): {}", String::from_utf8_lossy(&bytes))
        });
        (status, body)
    }

    /// GETs `uri`; returns the status and the raw body.
    pub async fn get_raw(&self, uri: &str) -> (StatusCode, Vec<u8>) {
        let req = Request::get(uri)
            .header("authorization", &self.admin_auth)
            .body(Body::empty())
            .unwrap();
        let res = self.router.clone().oneshot(req).await.unwrap();
        let status = res.status();
        let bytes = res.into_body().collect().await.unwrap().to_bytes().to_vec();
        (status, bytes)
    }

    /// One integer from SQL.
    pub fn scalar(&self, sql: &str) -> i64 {
        self.store
            .blocking(|c| Ok(c.query_row(sql, [], |r| r.get(0))?))
            .unwrap()
    }

    /// One string from SQL with one string parameter.
    pub fn text(&self, sql: &str, arg: &str) -> String {
        let arg = arg.to_string();
        self.store
            .blocking(|c| Ok(c.query_row(sql, [arg], |r| r.get(0))?))
            .unwrap()
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
        .unwrap()
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
                let tx = c.transaction()?;
                tx.execute(
                    "INSERT OR IGNORE INTO runs (run_uuid, experiment_id, name, user_id, status,
                       start_time, lifecycle_stage, artifact_uri)
                     VALUES (?1, 0, 'synthetic', 'tester', 'RUNNING', 1000, 'active', '')",
                    [&run_id],
                )?;
                tx.execute(
                    "INSERT INTO metric_series (run_uuid, key) VALUES (?1, ?2)",
                    [&run_id, &key],
                )?;
                let sid = tx.last_insert_rowid();
                {
                    let mut stmt = tx.prepare(
                        "INSERT INTO metric_points (series_id, step, timestamp, is_nan, value)
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                    )?;
                    for (s, t, v) in points {
                        let stored = if v.is_nan() { 0.0 } else { v };
                        stmt.execute(rusqlite::params![sid, s, t, v.is_nan(), stored])?;
                    }
                }
                tx.commit()?;
                Ok(())
            })
            .unwrap();
    }
}
