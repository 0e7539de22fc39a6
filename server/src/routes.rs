//! The route table: every HTTP route of every dialect is a `Route`, and a `Route` cannot
//! be made without its [`Access`] (who may call it) — so a route without a policy does not
//! compile. `mount` turns the table into the router, attaching the authentication layer
//! to every non-public route and each route's `RouteSpec` (access, body limit) to its
//! requests; [`table`] lists every route with its full path for the permission matrix.

use std::convert::Infallible;

use api_types::{JobLevel, Level};
use axum::extract::DefaultBodyLimit;
use axum::handler::Handler;
use axum::http::Method;
use axum::middleware::from_fn_with_state;
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::{Extension, Router};

use crate::AppState;

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone, signed in or not (health, version, sign-in).
    Public,
    /// Any signed-in user; the handler touches no protected resource (or none exists,
    /// e.g. an unknown path's 404).
    SignedIn,
    /// Signed in, and the MLflow dialect's policy, applied when the request message is
    /// decoded (`mlflow::request::Msg`) before the handler runs.
    Mlflow(MlflowPolicy),
    /// Signed in, and the app API's policy for the resource named in the path.
    App(AppPolicy),
    /// Signed in, and this level on the experiment named by the artifact path's first
    /// segment (MLflow's artifact proxy; applied by `artifacts::http::access::ArtifactGuard`).
    Artifact(Level),
}

/// What an MLflow endpoint requires of its caller, applied by `mlflow::request::Msg` (the
/// MLflow dialect calls it `Policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MlflowPolicy {
    /// Any signed-in user; the endpoint touches no experiment.
    SignedIn,
    /// Administrators only.
    Admin,
    /// The user named by `username` themself, or an administrator.
    SelfOrAdmin,
    /// `experiment_id` with at least this level.
    Experiment(Level),
    /// `experiment_name` readable.
    ExperimentByName,
    /// `run_id` (or `run_uuid`) with at least this level on its experiment.
    Run(Level),
    /// Every known run of `run_ids` readable (unknown ones match nothing).
    Runs,
    /// Every known experiment of `experiment_ids` readable (as MLflow's auth app: 403).
    SearchRuns,
    /// `name` not under another user's `/Users/<other>/` folder.
    CreateExperiment,
    /// `experiment_id` renamed to `new_name` (see `permissions::require_rename`).
    RenameExperiment,
    /// The handler itself restricts its results to readable experiments.
    Filtered,
    /// `resource_type` `experiment`, `resource_id` managed by the caller.
    ManageResource,
    /// Admins, the user asked about, or managers of the resource.
    GetUserPermission,
    /// The logged model `model_id` (path or body) with at least this level on its
    /// experiment (404 when unknown).
    LoggedModel(Level),
    /// The registered model `name` with at least this level (its own grants; 404 when
    /// unknown).
    RegisteredModel(Level),
    /// `model-versions/create`: CAN_EDIT on the registered model `name` and CAN_READ on
    /// what `source` / `run_id` / `model_id` name (run or logged model experiment, or the
    /// registered model a `models:/<name>/...` source copies).
    CreateModelVersion,
}

/// What an app API (`/api/v1`) route requires beyond being signed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppPolicy {
    /// This level on the experiment `{id}` of the path.
    Experiment(Level),
    /// This level on the experiment of the run `{id}` of the path.
    Run(Level),
    /// The handler restricts its answer to what the caller may read (lists, searches) or
    /// to the caller's own account.
    Filtered,
    /// Administrators only (handlers take `crate::app_api::guard::AdminGuard`).
    Admin,
    /// This level on the job `{id}` of the path (`/jobs/{id}/...`).
    Job(JobLevel),
    /// This level on the job of the job run `{id}` of the path (`/job-runs/{id}/...`).
    JobRun(JobLevel),
    /// The logs of the run `{id}` of the path: CAN_READ on its experiment **and** CAN_VIEW
    /// on the job that produced it (403 with the job's managers otherwise).
    RunLogs,
    /// This level on the experiment of the logged model `{id}` of the path.
    LoggedModel(Level),
    /// This level on the registered model `{name}` of the path.
    RegisteredModel(Level),
    /// The node `{name}` of the path: its own node credential (the one kind of route a node
    /// credential may call; the auth layer refuses it everywhere else), or an administrator.
    NodeAgent,
}

/// What every request of a route carries in its extensions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RouteSpec {
    /// Who may call it.
    pub access: Access,
    /// Largest request body accepted, in bytes.
    pub body_limit: usize,
}

/// Default body limit of a route: enough for any JSON request of the app API.
pub(crate) const DEFAULT_BODY_LIMIT: usize = 64 * 1024;

/// One route: method, path (relative to its dialect's prefix), access and handler.
pub(crate) struct Route {
    methods: &'static [Method],
    path: &'static str,
    access: Access,
    body_limit: Option<usize>,
    handler: MethodRouter<AppState>,
}

/// Every method a catch-all route answers.
const ANY: &[Method] = &[
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
];

macro_rules! constructor {
    ($name:ident, $filter:ident, $method:ident) => {
        /// A route for this method.
        pub(crate) fn $name<H, T>(path: &'static str, access: Access, handler: H) -> Route
        where
            H: Handler<T, AppState>,
            T: 'static,
        {
            Route::on(
                &[Method::$method],
                MethodFilter::$filter,
                path,
                access,
                handler,
            )
        }
    };
}

impl Route {
    fn on<H, T>(
        methods: &'static [Method],
        filter: MethodFilter,
        path: &'static str,
        access: Access,
        handler: H,
    ) -> Route
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        Route {
            methods,
            path,
            access,
            body_limit: None,
            handler: on(filter, handler),
        }
    }

    constructor!(get, GET, GET);
    constructor!(post, POST, POST);
    constructor!(put, PUT, PUT);
    constructor!(patch, PATCH, PATCH);
    constructor!(delete, DELETE, DELETE);

    /// A route answering every method (catch-alls).
    pub(crate) fn any<H, T>(path: &'static str, access: Access, handler: H) -> Route
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let filter = MethodFilter::GET
            .or(MethodFilter::POST)
            .or(MethodFilter::PUT)
            .or(MethodFilter::PATCH)
            .or(MethodFilter::DELETE);
        Route::on(ANY, filter, path, access, handler)
    }

    /// The same route with its own body limit (bytes) instead of its dialect's.
    pub(crate) fn body_limit(mut self, bytes: usize) -> Route {
        self.body_limit = Some(bytes);
        self
    }
}

/// The routes of one dialect and the prefixes they are served under.
pub(crate) struct Dialect {
    /// Path prefixes, e.g. `/api/2.0/mlflow` and its `/ajax-api/` mirror.
    pub prefixes: &'static [&'static str],
    /// The routes, relative to each prefix.
    pub routes: Vec<Route>,
    /// Body limit of routes that set none.
    pub body_limit: usize,
    /// Applied to each path's merged method router (e.g. the dialect's 405 answer).
    pub finish: fn(MethodRouter<AppState>) -> MethodRouter<AppState>,
}

/// A route as the permission matrix sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteInfo {
    /// The HTTP method.
    pub method: Method,
    /// Full path including the prefix, with axum-style parameters (`{id}`, `{*rest}`).
    pub path: String,
    /// Who may call it.
    pub access: Access,
}

impl RouteInfo {
    /// Whether it answers without a credential.
    pub fn public(&self) -> bool {
        self.access == Access::Public
    }
}

/// Every route of the server (`crate::dialects()`) with its full path, method and access:
/// the permission matrix's input.
pub fn table() -> Vec<RouteInfo> {
    table_of(&crate::dialects())
}

/// Every route of `dialects` with its full path, method and access.
pub(crate) fn table_of(dialects: &[Dialect]) -> Vec<RouteInfo> {
    let mut out = Vec::new();
    for d in dialects {
        for prefix in d.prefixes {
            for r in &d.routes {
                for m in r.methods {
                    out.push(RouteInfo {
                        method: m.clone(),
                        path: format!("{prefix}{}", r.path),
                        access: r.access,
                    });
                }
            }
        }
    }
    out
}

/// The router of `dialects`, each non-public route behind the authentication layer.
pub(crate) fn mount(dialects: Vec<Dialect>, state: &AppState) -> Router<AppState> {
    let mut router = Router::new();
    for d in dialects {
        // Merge the routes of one path (several methods) into one method router.
        let mut paths: Vec<(&'static str, MethodRouter<AppState>)> = Vec::new();
        for r in d.routes {
            let spec = RouteSpec {
                access: r.access,
                body_limit: r.body_limit.unwrap_or(d.body_limit),
            };
            let mut handler: MethodRouter<AppState> = r
                .handler
                .layer::<_, Infallible>(DefaultBodyLimit::max(spec.body_limit))
                .layer::<_, Infallible>(Extension(spec));
            if spec.access != Access::Public {
                handler = handler.layer(from_fn_with_state(
                    state.clone(),
                    crate::auth::middleware::authenticate,
                ));
            }
            if spec.access == Access::App(AppPolicy::NodeAgent) {
                // Outside the auth layer, which lets a node credential through only here.
                handler = handler.layer::<_, Infallible>(Extension(
                    crate::auth::node_credentials::AcceptsNodeCredential,
                ));
            }
            match paths.iter_mut().find(|(p, _)| *p == r.path) {
                Some((_, existing)) => *existing = std::mem::take(existing).merge(handler),
                None => paths.push((r.path, handler)),
            }
        }
        for prefix in d.prefixes {
            for (path, handler) in &paths {
                router = router.route(&format!("{prefix}{path}"), (d.finish)(handler.clone()));
            }
        }
    }
    router
}

/// Health, version, and the 404 of unknown API paths.
pub(crate) fn root_dialect() -> Dialect {
    use axum::http::StatusCode;
    async fn not_found() -> (StatusCode, &'static str) {
        (StatusCode::NOT_FOUND, "no such API route")
    }
    Dialect {
        prefixes: &[""],
        routes: vec![
            Route::get("/health", Access::Public, || async { "OK" }),
            Route::get("/version", Access::Public, || async {
                env!("CARGO_PKG_VERSION")
            }),
            Route::any("/api/{*rest}", Access::SignedIn, not_found),
            Route::any("/ajax-api/{*rest}", Access::SignedIn, not_found),
        ],
        body_limit: DEFAULT_BODY_LIMIT,
        finish: no_finish,
    }
}

/// `finish` for dialects that need nothing more.
pub(crate) fn no_finish(m: MethodRouter<AppState>) -> MethodRouter<AppState> {
    m
}

/// `finish` of the MLflow dialects (tracking and the artifact proxy): MLflow's 405 body for
/// a known endpoint called with another method.
pub(crate) fn mlflow_method_not_allowed(m: MethodRouter<AppState>) -> MethodRouter<AppState> {
    use axum::http::StatusCode;
    m.fallback(|| async {
        let body = serde_json::json!({"error_code": "BAD_REQUEST", "message": "Method not allowed for this endpoint."});
        (StatusCode::METHOD_NOT_ALLOWED, axum::Json(body))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_dialect_with_unique_method_paths() {
        let t = table();
        let mut seen = std::collections::HashSet::new();
        for r in &t {
            assert!(
                seen.insert((r.method.clone(), r.path.clone())),
                "duplicate {r:?}"
            );
        }
        let public: Vec<_> = t
            .iter()
            .filter(|r| r.public())
            .map(|r| r.path.as_str())
            .collect();
        assert!(public.contains(&"/health") && public.contains(&"/api/v1/session"));
        assert!(t
            .iter()
            .any(|r| r.path == "/ajax-api/2.0/mlflow/runs/log-batch"));
        assert!(t
            .iter()
            .any(|r| r.path == "/api/3.0/mlflow/users/permissions/grant"));
    }
}
