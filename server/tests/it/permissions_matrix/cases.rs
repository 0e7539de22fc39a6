//! The permission matrix: one case per route of `server::routes::table()` (method + path
//! pattern, the `/ajax-api/` twins share the `/api/` entry), what it requires, and a request that succeeds when allowed.
//! `{exp}` and `{run}` in templates become the fixture's ids; `{job}`, `{jobrun}` and
//! `{arun}` its job, job run, and the MLflow run of that job run's attempt 1.

use api_types::{JobLevel, Level};

/// What a route requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Answers without a credential (health, sign-in).
    Public,
    /// Any signed-in user.
    SignedIn,
    /// Administrators only.
    Admin,
    /// At least this level on the fixture experiment.
    Level(Level),
    /// Any signed-in user; the fixture appears in the answer only for its readers.
    Filtered,
    /// No such endpoint: 404 for signed-in users.
    NotFound,
    /// The fixture's GPU node: the users it is granted to (see `fixture::Who::watches`) and
    /// administrators; everyone else gets 404, as for a node that does not exist, even when
    /// they read the experiment whose run names the node.
    Watch,
    /// Any signed-in user; the fixture node appears in the answer only for its watchers.
    FilteredNode,
    /// A node's registration: its own node credential or an administrator.
    NodeAgent,
    /// At least this level on the fixture job.
    Job(JobLevel),
    /// At least this level on the fixture job **and** this level on the fixture experiment
    /// (submitting job runs and attempts; reading logs).
    JobAnd(JobLevel, Level),
    /// Any signed-in user; the fixture job appears in the answer only for its viewers.
    FilteredJob,
}

/// One row of the matrix.
pub struct Case {
    /// Method as in the route table (`GET`, ...), or `ANY` for a catch-all's every method.
    pub method: &'static str,
    /// Path pattern as registered (with `/api/` for both API prefixes).
    pub route: &'static str,
    /// The rule.
    pub rule: Rule,
    /// Method actually sent.
    pub send: &'static str,
    /// URI template (path with query).
    pub uri: &'static str,
    /// JSON body template, if any.
    pub body: Option<&'static str>,
    /// Statuses that mean "allowed and done".
    pub ok: &'static [u16],
    /// For [`Rule::Filtered`]: the text that shows the fixture in the answer.
    pub marker: &'static str,
}

pub const R: Rule = Rule::Level(Level::CanRead);
pub const E: Rule = Rule::Level(Level::CanEdit);
pub const M: Rule = Rule::Level(Level::CanManage);
const JV: Rule = Rule::Job(JobLevel::CanView);
const JMR: Rule = Rule::Job(JobLevel::CanManageRun);
const JM: Rule = Rule::Job(JobLevel::CanManage);
/// Submitting job runs and attempts.
const SUBMIT: Rule = Rule::JobAnd(JobLevel::CanManageRun, Level::CanEdit);
/// Reading a run's logs.
const LOGS: Rule = Rule::JobAnd(JobLevel::CanView, Level::CanRead);
pub const OK: &[u16] = &[200];
pub const CREATED: &[u16] = &[201];
pub const NO_CONTENT: &[u16] = &[204];

pub const fn case(
    method: &'static str,
    route: &'static str,
    rule: Rule,
    uri: &'static str,
    body: Option<&'static str>,
) -> Case {
    let send = if matches!(method.as_bytes(), b"ANY") {
        "GET"
    } else {
        method
    };
    Case {
        method,
        route,
        rule,
        send,
        uri,
        body,
        ok: OK,
        marker: super::fixture::EXPERIMENT,
    }
}

pub const fn with_ok(mut c: Case, ok: &'static [u16]) -> Case {
    c.ok = ok;
    c
}

pub const fn with_marker(mut c: Case, marker: &'static str) -> Case {
    c.marker = marker;
    c
}

/// MLflow dialect paths relative to `/api/2.0/mlflow`.
macro_rules! ml {
    ($p:literal) => {
        concat!("/api/2.0/mlflow", $p)
    };
}

/// Every case of the matrix: [`CASES`] and those of the artifact and model routes.
pub fn all() -> Vec<&'static Case> {
    CASES
        .iter()
        .chain(super::cases_artifacts::CASES)
        .chain(super::cases_models::CASES)
        .chain(super::cases_workspace::CASES)
        .collect()
}

/// The matrix of the tracking, identity, node and job routes.
pub const CASES: &[Case] = &[
    with_ok(case("GET", "/health", Rule::Public, "/health", None), OK),
    case("GET", "/version", Rule::Public, "/version", None),
    // Unknown API paths outside every dialect (and their `/ajax-api/` twin).
    with_ok(case("ANY", "/api/{*rest}", Rule::NotFound, "/api/no-such-api", None), &[404]),
    // MLflow tracking.
    case("POST", ml!("/experiments/create"), Rule::Admin, ml!("/experiments/create"), Some(r#"{"name": "/Users/owner/another"}"#)),
    case("GET", ml!("/experiments/get"), R, ml!("/experiments/get?experiment_id={exp}"), None),
    case("GET", ml!("/experiments/get-by-name"), R, ml!("/experiments/get-by-name?experiment_name=/Users/owner/secret-exp"), None),
    case("GET", ml!("/experiments/search"), Rule::Filtered, ml!("/experiments/search"), None),
    case("POST", ml!("/experiments/search"), Rule::Filtered, ml!("/experiments/search"), Some("{}")),
    // Within the owner's folder: CAN_EDIT (every other kind of rename is in `renames`).
    case("POST", ml!("/experiments/update"), E, ml!("/experiments/update"), Some(r#"{"experiment_id": "{exp}", "new_name": "/Users/owner/renamed"}"#)),
    case("POST", ml!("/experiments/delete"), M, ml!("/experiments/delete"), Some(r#"{"experiment_id": "{exp}"}"#)),
    // The experiment is active, so an allowed restore is MLflow's 400 INVALID_PARAMETER_VALUE.
    with_ok(case("POST", ml!("/experiments/restore"), M, ml!("/experiments/restore"), Some(r#"{"experiment_id": "{exp}"}"#)), &[400]),
    case("POST", ml!("/experiments/set-experiment-tag"), E, ml!("/experiments/set-experiment-tag"), Some(r#"{"experiment_id": "{exp}", "key": "k", "value": "v"}"#)),
    case("POST", ml!("/experiments/delete-experiment-tag"), E, ml!("/experiments/delete-experiment-tag"), Some(r#"{"experiment_id": "{exp}", "key": "secret_exp_tag"}"#)),
    case("POST", ml!("/runs/create"), E, ml!("/runs/create"), Some(r#"{"experiment_id": "{exp}"}"#)),
    case("GET", ml!("/runs/get"), R, ml!("/runs/get?run_id={run}"), None),
    case("POST", ml!("/runs/update"), E, ml!("/runs/update"), Some(r#"{"run_id": "{run}", "status": "FINISHED"}"#)),
    case("POST", ml!("/runs/delete"), E, ml!("/runs/delete"), Some(r#"{"run_id": "{run}"}"#)),
    case("POST", ml!("/runs/restore"), E, ml!("/runs/restore"), Some(r#"{"run_id": "{run}"}"#)),
    case("POST", ml!("/runs/search"), R, ml!("/runs/search"), Some(r#"{"experiment_ids": ["{exp}"]}"#)),
    case("POST", ml!("/runs/log-metric"), E, ml!("/runs/log-metric"), Some(r#"{"run_id": "{run}", "key": "m", "value": 1, "timestamp": 1}"#)),
    case("POST", ml!("/runs/log-parameter"), E, ml!("/runs/log-parameter"), Some(r#"{"run_id": "{run}", "key": "p2", "value": "v"}"#)),
    case("POST", ml!("/runs/set-tag"), E, ml!("/runs/set-tag"), Some(r#"{"run_id": "{run}", "key": "t2", "value": "v"}"#)),
    case("POST", ml!("/runs/delete-tag"), E, ml!("/runs/delete-tag"), Some(r#"{"run_id": "{run}", "key": "secret_run_tag"}"#)),
    case("POST", ml!("/runs/log-batch"), E, ml!("/runs/log-batch"), Some(r#"{"run_id": "{run}", "params": [{"key": "p3", "value": "v"}]}"#)),
    case("POST", ml!("/runs/log-inputs"), E, ml!("/runs/log-inputs"), Some(r#"{"run_id": "{run}"}"#)),
    case("GET", ml!("/metrics/get-history"), R, ml!("/metrics/get-history?run_id={run}&metric_key=secret_metric"), None),
    case("GET", ml!("/metrics/get-history-bulk-interval"), R, ml!("/metrics/get-history-bulk-interval?run_ids={run}&metric_key=secret_metric"), None),
    with_ok(case("ANY", ml!("/{*rest}"), Rule::NotFound, ml!("/no-such-endpoint"), None), &[404]),
    // MLflow basic-auth users (another user, `target`, is the subject: admins only).
    case("POST", ml!("/users/create"), Rule::Admin, ml!("/users/create"), Some(r#"{"username": "newbie", "password": "newbie-password-1"}"#)),
    case("GET", ml!("/users/get"), Rule::Admin, ml!("/users/get?username=target"), None),
    case("GET", ml!("/users/list"), Rule::Admin, ml!("/users/list"), None),
    case("GET", ml!("/users/current"), Rule::SignedIn, ml!("/users/current"), None),
    case("PATCH", ml!("/users/update-password"), Rule::Admin, ml!("/users/update-password"), Some(r#"{"username": "target", "password": "target-password-2"}"#)),
    case("PATCH", ml!("/users/update-admin"), Rule::Admin, ml!("/users/update-admin"), Some(r#"{"username": "target", "is_admin": true}"#)),
    case("DELETE", ml!("/users/delete"), Rule::Admin, ml!("/users/delete"), Some(r#"{"username": "target"}"#)),
    // MLflow 3 per-user permissions.
    case("POST", "/api/3.0/mlflow/users/permissions/grant", M, "/api/3.0/mlflow/users/permissions/grant", Some(r#"{"username": "target", "resource_type": "experiment", "resource_id": "{exp}", "permission": "READ"}"#)),
    case("POST", "/api/3.0/mlflow/users/permissions/revoke", M, "/api/3.0/mlflow/users/permissions/revoke", Some(r#"{"username": "reader", "resource_type": "experiment", "resource_id": "{exp}"}"#)),
    case("GET", "/api/3.0/mlflow/users/permissions/get", M, "/api/3.0/mlflow/users/permissions/get?username=target&resource_type=experiment&resource_id={exp}", None),
    // The app API.
    case("GET", "/api/v1/experiments", Rule::Filtered, "/api/v1/experiments", None),
    case("GET", "/api/v1/experiments/{id}", R, "/api/v1/experiments/{exp}", None),
    case("GET", "/api/v1/experiments/{id}/runs", R, "/api/v1/experiments/{exp}/runs?params=secret_param&limit=1", None),
    case("GET", "/api/v1/experiments/{id}/access", R, "/api/v1/experiments/{exp}/access", None),
    with_ok(case("PUT", "/api/v1/experiments/{id}/access", M, "/api/v1/experiments/{exp}/access", Some(r#"{"principal": {"kind": "user", "name": "target"}, "level": "CAN_READ"}"#)), NO_CONTENT),
    with_ok(case("DELETE", "/api/v1/experiments/{id}/access", M, "/api/v1/experiments/{exp}/access?kind=user&name=reader", None), NO_CONTENT),
    case("GET", "/api/v1/principals", Rule::SignedIn, "/api/v1/principals?q=e", None),
    case("GET", "/api/v1/runs/{id}", R, "/api/v1/runs/{run}", None),
    // GPU nodes: the fixture node `matrix-node` is named by the fixture run.
    with_marker(case("GET", "/api/v1/nodes", Rule::FilteredNode, "/api/v1/nodes", None), super::fixture::NODE),
    case("GET", "/api/v1/nodes/gpus", Rule::Watch, "/api/v1/nodes/gpus?nodes=matrix-node", None),
    case("POST", "/api/v1/nodes/embed-links", Rule::Watch, "/api/v1/nodes/embed-links", Some(r#"{"nodes": ["matrix-node"]}"#)),
    case("PUT", "/api/v1/nodes/{name}", Rule::NodeAgent, "/api/v1/nodes/matrix-node", Some(r#"{"url": "http://127.0.0.1:1", "token": "t"}"#)),
    case("GET", "/api/v1/nodes/{name}/access", Rule::Admin, "/api/v1/nodes/matrix-node/access", None),
    with_ok(case("PUT", "/api/v1/nodes/{name}/access", Rule::Admin, "/api/v1/nodes/matrix-node/access", Some(r#"{"principal": {"kind": "user", "name": "stranger"}}"#)), NO_CONTENT),
    with_ok(case("DELETE", "/api/v1/nodes/{name}/access", Rule::Admin, "/api/v1/nodes/matrix-node/access?kind=user&name=reader", None), NO_CONTENT),
    case("GET", "/api/v1/node-credentials", Rule::Admin, "/api/v1/node-credentials", None),
    with_ok(case("POST", "/api/v1/node-credentials", Rule::Admin, "/api/v1/node-credentials", Some(r#"{"node": "matrix-node"}"#)), CREATED),
    with_ok(case("DELETE", "/api/v1/node-credentials/{id}", Rule::Admin, "/api/v1/node-credentials/1", None), NO_CONTENT),
    with_ok(case("DELETE", "/api/v1/nodes/{name}", Rule::Admin, "/api/v1/nodes/matrix-node", None), NO_CONTENT),
    // Public: the signature is the credential; a link not signed by the server is a 403 for anyone.
    with_ok(case("GET", "/api/v1/embed/gpus", Rule::Public, "/api/v1/embed/gpus?nodes=matrix-node&exp=4102444800&sig=00", None), &[403]),
    case("GET", "/api/v1/runs/{id}/series", R, "/api/v1/runs/{run}/series?key=secret_metric", None),
    with_ok(case("ANY", "/api/v1/{*rest}", Rule::NotFound, "/api/v1/no-such-route", None), &[404]),
    // Jobs. The fixture job `matrix-job` is owned by `owner`; see `fixture::Who::job_level`.
    // Get-or-create of the existing fixture job: CAN_MANAGE_RUN (checked by the handler).
    case("POST", "/api/v1/jobs", JMR, "/api/v1/jobs", Some(r#"{"name": "matrix-job"}"#)),
    case("GET", "/api/v1/jobs/{id}", JV, "/api/v1/jobs/{job}", None),
    case("GET", "/api/v1/jobs/{id}/access", JV, "/api/v1/jobs/{job}/access", None),
    with_ok(case("PUT", "/api/v1/jobs/{id}/access", JM, "/api/v1/jobs/{job}/access", Some(r#"{"principal": {"kind": "user", "name": "target"}, "level": "CAN_VIEW"}"#)), NO_CONTENT),
    with_ok(case("DELETE", "/api/v1/jobs/{id}/access", JM, "/api/v1/jobs/{job}/access?kind=user&name=stranger", None), NO_CONTENT),
    with_ok(case("POST", "/api/v1/jobs/{id}/runs", SUBMIT, "/api/v1/jobs/{job}/runs", Some(r#"{"experiment_id": "{exp}", "nodes": ["node-0", "node-1"], "max_retries": 1}"#)), CREATED),
    with_marker(case("GET", "/api/v1/job-runs", Rule::FilteredJob, "/api/v1/job-runs", None), super::fixture::JOB),
    case("GET", "/api/v1/job-runs/{id}", JV, "/api/v1/job-runs/{jobrun}", None),
    with_ok(case("POST", "/api/v1/job-runs/{id}/attempts", SUBMIT, "/api/v1/job-runs/{jobrun}/attempts", Some("{}")), CREATED),
    case("POST", "/api/v1/job-runs/{id}/nodes", JMR, "/api/v1/job-runs/{jobrun}/nodes", Some(r#"{"node": "node-1"}"#)),
    case("POST", "/api/v1/job-runs/{id}/status", JMR, "/api/v1/job-runs/{jobrun}/status", Some(r#"{"status": "SUCCEEDED"}"#)),
    case("GET", "/api/v1/runs/{id}/job", R, "/api/v1/runs/{arun}/job", None),
    // Logs: shipping needs CAN_MANAGE_RUN on the job; reading, CAN_READ on the
    // experiment and CAN_VIEW on the job.
    case("POST", "/api/v1/job-runs/{id}/attempts/{n}/logs", JMR, "/api/v1/job-runs/{jobrun}/attempts/1/logs", Some(r#"{"node": "node-0", "first_seq": 0, "lines": [{"ts_ms": 1700000000000, "stream": "stdout", "text": "hello"}]}"#)),
    case("GET", "/api/v1/runs/{id}/logs", LOGS, "/api/v1/runs/{arun}/logs", None),
    case("GET", "/api/v1/runs/{id}/logs/stream", LOGS, "/api/v1/runs/{arun}/logs/stream", None),
    case("GET", "/api/v1/runs/{id}/logs/download", LOGS, "/api/v1/runs/{arun}/logs/download", None),
    // Identity (the app API).
    case("GET", "/api/v1/session", Rule::SignedIn, "/api/v1/session", None),
    // A malformed sign-in is a 400 for anyone: the route itself is public.
    with_ok(case("POST", "/api/v1/session", Rule::Public, "/api/v1/session", Some("{}")), &[400]),
    with_ok(case("DELETE", "/api/v1/session", Rule::Public, "/api/v1/session", None), &[200, 204]),
    case("GET", "/api/v1/tokens", Rule::SignedIn, "/api/v1/tokens", None),
    with_ok(case("POST", "/api/v1/tokens", Rule::SignedIn, "/api/v1/tokens", Some(r#"{"name": "another"}"#)), &[200, 201]),
    // Nobody's token has this id: the route answers 404 to every signed-in caller.
    with_ok(case("DELETE", "/api/v1/tokens/{id}", Rule::SignedIn, "/api/v1/tokens/999999", None), &[404]),
];
