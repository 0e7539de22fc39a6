//! The matrix fixture: an experiment under `/Users/owner/` with one run, tags, a param and a
//! metric (all named `secret...`), a job `matrix-job` owned by `owner` with a RUNNING job
//! run whose attempt 1 is a run of that experiment, and one API token per caller. Built once as a template
//! database, then copied for every (route, caller) cell so writes never leak between cells.

use api_types::{JobLevel, Level, Principal, PrincipalKind};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use server::{AppState, StaticConfig, Store};
use tower::ServiceExt;

/// Who calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    /// No credential.
    Anonymous,
    /// Signed in, no grant.
    NoGrant,
    /// CAN_READ grant.
    Reader,
    /// CAN_EDIT grant.
    Editor,
    /// CAN_MANAGE grant.
    Manager,
    /// Administrator.
    Admin,
    /// Member of a group with a CAN_EDIT grant.
    GroupMember,
    /// The agent of the fixture node, with that node's credential (no user).
    NodeAgent,
}

impl Who {
    /// Every caller of the route matrix: the users and the node agent.
    pub const MATRIX: [Who; 8] = [
        Who::Anonymous,
        Who::NoGrant,
        Who::Reader,
        Who::Editor,
        Who::Manager,
        Who::Admin,
        Who::GroupMember,
        Who::NodeAgent,
    ];

    /// Every user caller (and the anonymous one).
    pub const ALL: [Who; 7] = [
        Who::Anonymous,
        Who::NoGrant,
        Who::Reader,
        Who::Editor,
        Who::Manager,
        Who::Admin,
        Who::GroupMember,
    ];

    /// Username (none for anonymous).
    pub fn username(self) -> Option<&'static str> {
        Some(match self {
            Who::Anonymous | Who::NodeAgent => return None,
            Who::NoGrant => "stranger",
            Who::Reader => "reader",
            Who::Editor => "editor",
            Who::Manager => "manager",
            Who::Admin => "root",
            Who::GroupMember => "member",
        })
    }

    /// Effective level on the fixture job (chosen so that the job's rules and the
    /// experiment's differ: `stranger` views the job without reading the experiment,
    /// `reader` reads the experiment without viewing the job, `manager` manages the
    /// experiment but only views the job).
    pub fn job_level(self) -> Option<JobLevel> {
        match self {
            Who::Anonymous | Who::Reader | Who::NodeAgent => None,
            Who::NoGrant | Who::Manager => Some(JobLevel::CanView),
            Who::Editor => Some(JobLevel::CanManageRun),
            Who::GroupMember => Some(JobLevel::CanManage),
            Who::Admin => Some(JobLevel::IsOwner),
        }
    }

    /// Effective level on the fixture experiment.
    pub fn level(self) -> Option<Level> {
        match self {
            Who::Anonymous | Who::NoGrant | Who::NodeAgent => None,
            Who::Reader => Some(Level::CanRead),
            Who::Editor | Who::GroupMember => Some(Level::CanEdit),
            Who::Manager | Who::Admin => Some(Level::CanManage),
        }
    }
}

impl Who {
    /// Whether the caller may watch the fixture node: its grants (the reader, the group of
    /// the member) and administrators. Managers and editors read the experiment whose run
    /// names the node, which gives no access.
    pub fn watches(self) -> bool {
        matches!(self, Who::Reader | Who::GroupMember | Who::Admin)
    }
}

/// Experiment name of the fixture.
pub const EXPERIMENT: &str = "/Users/owner/secret-exp";

/// The GPU node of the fixture: registered (its agent unreachable), named in the fixture
/// run's `runlens.nodes` tag (which gives nobody access), and granted to `reader` and the
/// group `team` (see [`Who::watches`]); [`Who::NodeAgent`] holds its node credential.
pub const NODE: &str = "matrix-node";

/// Name of the fixture job.
pub const JOB: &str = "matrix-job";

/// The template: a database file with the fixture, its ids and tokens.
pub struct Template {
    dir: tempfile::TempDir,
    /// Fixture experiment id.
    pub exp: String,
    /// Fixture run id.
    pub run: String,
    /// Fixture job id.
    pub job: String,
    /// Its job run's id.
    pub job_run: String,
    /// The MLflow run of the job run's attempt 1 (in the fixture experiment).
    pub attempt_run: String,
    tokens: Vec<(&'static str, String)>,
    /// The fixture node's credential (for [`Who::NodeAgent`]).
    node_credential: String,
    /// The fixture's PostgreSQL database (copied per case), on a PostgreSQL test run.
    db: Option<String>,
    /// Each caller's own private experiment `/Users/<name>/own`: (username, id).
    own: Vec<(&'static str, String)>,
    /// More ids that case templates name as `{name}` (artifact and model fixtures).
    pub extra: Vec<(&'static str, String)>,
    /// One copy shared by the cells that only read (see [`Template::shared`]).
    shared: std::sync::OnceLock<(tempfile::TempDir, Router, Store)>,
}

impl Template {
    /// Builds the fixture database.
    pub async fn build() -> Template {
        let dir = tempfile::tempdir().expect("tempdir");
        let (store, db) = crate::helpers::store::open_named(dir.path());
        let tokens = store.blocking(people).expect("people");
        let mut t = Template {
            dir,
            db,
            exp: String::new(),
            run: String::new(),
            job: String::new(),
            job_run: String::new(),
            attempt_run: String::new(),
            tokens,
            node_credential: String::new(),
            own: Vec::new(),
            extra: Vec::new(),
            shared: std::sync::OnceLock::new(),
        };
        let app = server::app(AppState::new(store.clone()), &StaticConfig::default());
        t.exp = t.seed(&app).await;
        let admin = t.token(Who::Admin).expect("admin token");
        super::fixture_artifacts::seed(&mut t, &app, &admin).await;
        super::fixture_models::seed(&mut t, &app, &admin).await;
        store
            .blocking(|c| {
                let user = |n: &str| Principal {
                    kind: PrincipalKind::User,
                    name: n.into(),
                };
                let id: i64 = t.exp.parse().expect("id");
                server::permissions::set_grant(c, id, &user("reader"), Some(Level::CanRead))?;
                server::permissions::set_grant(c, id, &user("editor"), Some(Level::CanEdit))?;
                server::permissions::set_grant(c, id, &user("manager"), Some(Level::CanManage))?;
                let group = Principal {
                    kind: PrincipalKind::Group,
                    name: "team".into(),
                };
                server::permissions::set_grant(c, id, &group, Some(Level::CanEdit))?;
                let (job, job_run, attempt_run) = job_fixture(c, id)?;
                (t.job, t.job_run, t.attempt_run) = (job, job_run, attempt_run);
                if c.engine() == server::db::Engine::Sqlite {
                    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
                }
                Ok(())
            })
            .expect("grants");
        t
    }

    async fn seed(&mut self, app: &Router) -> String {
        let admin = self.token(Who::Admin).expect("admin token");
        let call = |path: &str, body: serde_json::Value| {
            let uri = format!("/api/2.0/mlflow{path}");
            let admin = admin.clone();
            let app = app.clone();
            async move { send(&app, "POST", &uri, Some(body.to_string()), Some(&admin)).await }
        };
        let (_, v) = call(
            "/experiments/create",
            serde_json::json!({"name": EXPERIMENT}),
        )
        .await;
        let exp = v["experiment_id"]
            .as_str()
            .expect("experiment id")
            .to_string();
        let tag =
            serde_json::json!({"experiment_id": exp, "key": "secret_exp_tag", "value": "secret-x"});
        call("/experiments/set-experiment-tag", tag).await;
        let (_, v) = call(
            "/runs/create",
            serde_json::json!({"experiment_id": exp, "run_name": "secret-run"}),
        )
        .await;
        self.run = v["run"]["info"]["run_id"]
            .as_str()
            .expect("run id")
            .to_string();
        let batch = serde_json::json!({"run_id": self.run,
            "params": [{"key": "secret_param", "value": "secret-value-42"}],
            "tags": [{"key": "secret_run_tag", "value": "secret-y"},
                     {"key": api_types::nodes::RUN_NODES_TAG, "value": NODE}],
            "metrics": [{"key": "secret_metric", "value": 1.2345, "timestamp": 1, "step": 0},
                        {"key": "secret_metric", "value": 2.5, "timestamp": 2, "step": 1}]});
        let (status, v) = call("/runs/log-batch", batch).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        // Nothing listens on port 1: polling the node is quick and answers "unreachable".
        let node = serde_json::json!({"url": "http://127.0.0.1:1", "token": "agent-token"});
        let uri = format!("/api/v1/nodes/{NODE}");
        let (status, v) = send(app, "PUT", &uri, Some(node.to_string()), Some(&admin)).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        for (kind, name) in [("user", "reader"), ("group", "team")] {
            let grant = serde_json::json!({"principal": {"kind": kind, "name": name}});
            let uri = format!("/api/v1/nodes/{NODE}/access");
            let (status, v) = send(app, "PUT", &uri, Some(grant.to_string()), Some(&admin)).await;
            assert_eq!(status, StatusCode::NO_CONTENT, "{v}");
        }
        let made = serde_json::json!({"node": NODE});
        let (status, v) = send(
            app,
            "POST",
            "/api/v1/node-credentials",
            Some(made.to_string()),
            Some(&admin),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{v}");
        self.node_credential = v["credential"].as_str().expect("credential").to_string();
        for who in Who::ALL {
            let Some(name) = who.username() else { continue };
            let own = serde_json::json!({"name": format!("/Users/{name}/own")});
            let (status, v) = call("/experiments/create", own).await;
            assert_eq!(status, StatusCode::OK, "{v}");
            let id = v["experiment_id"].as_str().expect("id").to_string();
            self.own.push((name, id));
        }
        exp
    }

    /// The bearer token of a caller.
    pub fn token(&self, who: Who) -> Option<String> {
        if who == Who::NodeAgent {
            return Some(self.node_credential.clone());
        }
        let name = who.username()?;
        self.tokens
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.clone())
    }

    /// A fresh copy of the fixture as a router (its temp dir lives as long as the value).
    pub fn copy(&self) -> (tempfile::TempDir, Router) {
        let (dir, app, _) = self.copy_with_store();
        (dir, app)
    }

    /// One copy of the fixture for the cells that change nothing (reads, refused writes):
    /// copying per cell costs a database per cell on PostgreSQL.
    pub fn shared(&self) -> Router {
        self.shared_with_store().0
    }

    /// [`Template::shared`] with its store.
    pub fn shared_with_store(&self) -> (Router, Store) {
        let (_, app, store) = self.shared.get_or_init(|| self.copy_with_store());
        (app.clone(), store.clone())
    }

    /// [`Template::copy`] with the copy's store.
    pub fn copy_with_store(&self) -> (tempfile::TempDir, Router, Store) {
        let dir = tempfile::tempdir().expect("tempdir");
        if self.db.is_none() {
            std::fs::copy(
                self.dir.path().join("runlens.db"),
                dir.path().join("runlens.db"),
            )
            .expect("copy db");
        }
        copy_tree(
            &self.dir.path().join("artifacts"),
            &dir.path().join("artifacts"),
        );
        let store = match &self.db {
            Some(db) => crate::helpers::store::copy_store(db, dir.path()).0,
            None => Store::open(dir.path()).expect("store"),
        };
        let app = server::app(AppState::new(store.clone()), &StaticConfig::default());
        (dir, app, store)
    }

    /// Id of the experiment `/Users/<name>/own` that the template made for each caller.
    pub fn own(&self, who: Who) -> Option<&str> {
        let name = who.username()?;
        self.own
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, id)| id.as_str())
    }
}

/// The job `matrix-job` of `owner`, with the grants of [`Who::job_level`], and its job run
/// (nodes `node-0`, RUNNING) with attempt 1 in experiment `exp`: (job, job run, run) ids.
fn job_fixture(
    c: &mut server::db::Conn,
    exp: i64,
) -> Result<(String, String, String), server::Error> {
    use server::jobs;
    let owner = server::permissions::caller_for(c, "owner")?;
    server::tracking::write(c, |tx| {
        let job = jobs::get_or_create_job(tx, &owner, JOB)?.job.job_id;
        for who in Who::ALL {
            let (Some(name), Some(level)) = (who.username(), who.job_level()) else {
                continue;
            };
            if level == JobLevel::IsOwner || who == Who::GroupMember {
                continue; // the admin; the member holds it through the group
            }
            let user = Principal {
                kind: PrincipalKind::User,
                name: name.into(),
            };
            jobs::set_grant(tx, job, &user, level)?;
        }
        let team = Principal {
            kind: PrincipalKind::Group,
            name: "team".into(),
        };
        let member = Who::GroupMember.job_level().expect("member's level");
        jobs::set_grant(tx, job, &team, member)?;
        let new = jobs::NewJobRun {
            job_id: job,
            experiment_id: exp,
            nodes: vec!["node-0".into()],
            max_retries: 1,
        };
        let job_run = jobs::create_job_run(tx, &owner, &new)?;
        let attempt = jobs::create_attempt(tx, &owner, job_run, None)?;
        Ok((job.to_string(), job_run.to_string(), attempt.run_id))
    })
}

/// Users (owner, callers, a target user), the `team` group and one token per caller.
fn people(c: &mut server::db::Conn) -> Result<Vec<(&'static str, String)>, server::Error> {
    use server::auth::{groups, tokens, users};
    users::create_user(c, "owner", None, false)?;
    users::create_user(c, "target", None, false)?;
    groups::create_group(c, "team")?;
    let mut out = Vec::new();
    for who in Who::ALL {
        let Some(name) = who.username() else { continue };
        let id = users::create_user(c, name, None, who == Who::Admin)?;
        out.push((name, tokens::create_token(c, id, "matrix")?.token));
    }
    groups::add_member(c, "team", "member")?;
    Ok(out)
}

/// Sends one request; returns status and body (JSON, or the text as a JSON string).
pub async fn send(
    app: &Router,
    method: &str,
    uri: &str,
    body: Option<String>,
    token: Option<&str>,
) -> (StatusCode, serde_json::Value) {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    if body.is_some() {
        req = req.header("content-type", "application/json");
    }
    let req = req
        .body(body.map(Body::from).unwrap_or_else(Body::empty))
        .expect("request");
    // An event stream never ends: its status and headers are the answer.
    let resp = app.clone().oneshot(req).await.expect("infallible");
    let stream = resp
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    if stream {
        return (resp.status(), serde_json::Value::Null);
    }
    let status = resp.status();
    let bytes = resp.into_body().collect().await.expect("body").to_bytes();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| serde_json::Value::String(String::from_utf8_lossy(&bytes).to_string()));
    (status, body)
}

/// Copies the folder `from` (if it exists) to `to`, recursively.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    std::fs::create_dir_all(to).expect("mkdir");
    for e in entries {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).expect("copy");
        }
    }
}
