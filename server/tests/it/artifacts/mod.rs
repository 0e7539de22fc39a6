//! Artifacts: the MLflow artifact proxy (upload, download, list, delete, the
//! multipart endpoints' 501), `artifacts/list`, the app API's Artifacts tab routes, and
//! what must never happen: writes outside the root, half files after a failed or killed
//! upload, reads or writes without the experiment's grant.

mod app_routes;
mod crash;
mod path_limits;
mod proxy;
mod s3;

use api_types::{Level, Principal, PrincipalKind};
use axum::body::Body;
use axum::http::{Method, Request};
use axum::Router;
use server::auth::{tokens, users};
use server::{AppState, StaticConfig};

use crate::helpers::{oneshot, Resp};

/// Upload cap of the fixture's server (small, so the 413 test stays quick).
pub const LIMIT: u64 = 1024 * 1024;

/// A server over a temp dir with one experiment and run, and callers with each level.
pub struct Fx {
    pub dir: tempfile::TempDir,
    pub router: Router,
    pub exp: String,
    pub run: String,
    /// Tokens: admin, reader (CAN_READ), editor (CAN_EDIT), stranger (no grant).
    pub admin: String,
    pub reader: String,
    pub editor: String,
    pub stranger: String,
}

impl Fx {
    pub async fn new() -> Fx {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = crate::helpers::store::open_store(dir.path());
        let admin =
            server::auth::bootstrap::create_admin_with_token(&store, "root").expect("admin");
        let token = |name: &str| {
            store
                .blocking(|c| {
                    let id = users::create_user(c, name, None, false)?;
                    Ok(tokens::create_token(c, id, "t")?.token)
                })
                .expect("user")
        };
        let (reader, editor, stranger) = (token("reader"), token("editor"), token("stranger"));
        let state = AppState::new(store.clone());
        let artifacts = state.artifacts.clone();
        let router = server::app(
            state.with_artifacts(artifacts, LIMIT),
            &StaticConfig::default(),
        );
        let mut fx = Fx {
            dir,
            router,
            exp: String::new(),
            run: String::new(),
            admin,
            reader,
            editor,
            stranger,
        };
        let v = fx
            .json(
                "POST",
                "/api/2.0/mlflow/experiments/create",
                r#"{"name": "arts"}"#,
            )
            .await;
        fx.exp = v["experiment_id"].as_str().expect("exp").to_owned();
        let body = format!(r#"{{"experiment_id": "{}"}}"#, fx.exp);
        let v = fx.json("POST", "/api/2.0/mlflow/runs/create", &body).await;
        fx.run = v["run"]["info"]["run_id"].as_str().expect("run").to_owned();
        assert_eq!(
            v["run"]["info"]["artifact_uri"],
            format!("mlflow-artifacts:/{}/{}/artifacts", fx.exp, fx.run)
        );
        let id: i64 = fx.exp.parse().expect("id");
        store
            .blocking(|c| {
                let user = |n: &str| Principal {
                    kind: PrincipalKind::User,
                    name: n.into(),
                };
                server::permissions::set_grant(c, id, &user("reader"), Some(Level::CanRead))?;
                server::permissions::set_grant(c, id, &user("editor"), Some(Level::CanEdit))
            })
            .expect("grants");
        fx
    }

    /// The artifact root folder on disk.
    pub fn root(&self) -> std::path::PathBuf {
        self.dir.path().join("artifacts")
    }

    /// The proxy URI of a path under the run's artifact folder.
    pub fn run_uri(&self, rel: &str) -> String {
        format!(
            "/api/2.0/mlflow-artifacts/artifacts/{}/{}/artifacts/{rel}",
            self.exp, self.run
        )
    }

    /// Sends `method uri` with a body as `token`.
    pub async fn send(&self, token: &str, method: &str, uri: &str, body: Body) -> Resp {
        self.send_with(token, method, uri, &[], body).await
    }

    /// [`Fx::send`] with extra headers.
    pub async fn send_with(
        &self,
        token: &str,
        method: &str,
        uri: &str,
        headers: &[(&str, &str)],
        body: Body,
    ) -> Resp {
        let mut req = Request::builder()
            .method(Method::from_bytes(method.as_bytes()).expect("method"))
            .uri(uri)
            .header("authorization", format!("Bearer {token}"));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        oneshot(&self.router, req.body(body).expect("request")).await
    }

    /// A JSON request as the admin that must answer 200.
    pub async fn json(&self, method: &str, uri: &str, body: &str) -> serde_json::Value {
        let r = self
            .send_with(
                &self.admin,
                method,
                uri,
                &[("content-type", "application/json")],
                Body::from(body.to_owned()),
            )
            .await;
        assert_eq!(r.status, 200, "{method} {uri}: {}", r.text);
        r.body
    }

    /// Uploads `bytes` to the run's `rel` as the admin (must succeed).
    pub async fn put(&self, rel: &str, bytes: impl Into<Body>) {
        let r = self
            .send(&self.admin, "PUT", &self.run_uri(rel), bytes.into())
            .await;
        assert_eq!(r.status, 200, "PUT {rel}: {}", r.text);
        assert_eq!(r.body, serde_json::json!({}));
    }
}

/// Every file under `dir`, recursively (relative paths).
pub fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).expect("prefix").display().to_string());
            }
        }
    }
    out.sort();
    out
}
