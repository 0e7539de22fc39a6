//! The app API (`/api/v1/...`), the web app's backend-for-frontend: pages' data in one
//! round trip, downsampled series, sharing. HTTP only, thin handlers: each parses the
//! request ([`query`]: query strings and JSON bodies), takes ids through the permission
//! guards ([`guard`]), calls one domain function of its feature module (`tracking`,
//! `jobs`, `logs`, `nodes`, `registry`, `artifacts`, `permissions` ...) and renders its
//! answer (no SQL or domain rules here). Every failure is an `ApiError` body: 404
//! `NOT_FOUND` for unknown ids and routes, 400 `INVALID_PARAMETER`/`BAD_REQUEST` for bad
//! input.
//!
//! Offers the crate [`dialect`], the app API's part of the route table; everything else
//! (handlers, [`guard`], [`query`], [`stream_end`]) is its own.

pub(crate) mod access;
pub(crate) mod artifacts;
pub(crate) mod experiments;
pub(crate) mod guard;
pub(crate) mod jobs;
pub(crate) mod jobs_access;
pub(crate) mod live;
pub(crate) mod logs;
pub(crate) mod logs_download;
pub(crate) mod logs_stream;
pub(crate) mod models_io;
pub(crate) mod node_access;
pub(crate) mod nodes;
pub(crate) mod principals;
pub(crate) mod query;
pub(crate) mod registry;
pub(crate) mod run_page;
pub(crate) mod run_table;
pub(crate) mod runs_csv;
pub(crate) mod series;
pub(crate) mod series_batch;
pub(crate) mod stream_end;

use api_types::{JobLevel, Level};

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;

use crate::routes::{Access, AppPolicy, Dialect, Route};
use crate::{AppState, Error};

/// The app API under `/api/v1`: every route with its access. Routes with an
/// [`AppPolicy::Experiment`] or [`AppPolicy::Run`] policy take their id through
/// [`guard::ExperimentGuard`] / [`guard::RunGuard`], which apply it.
pub(crate) fn dialect() -> Dialect {
    use crate::auth::{session_routes as session, token_routes as tokens};
    use AppPolicy::{Admin, Experiment, Filtered, Run};
    use AppPolicy::{Job, JobRun};
    use JobLevel::{CanManage as JobManage, CanManageRun as ManageRun, CanView as View};
    use Level::{CanManage as Manage, CanRead as Read};
    let app = Access::App;
    Dialect {
        prefixes: &["/api/v1"],
        routes: vec![
            Route::get("/experiments", app(Filtered), experiments::list_experiments),
            Route::get(
                "/experiments/{id}",
                app(Experiment(Read)),
                experiments::get_experiment,
            ),
            Route::get(
                "/experiments/{id}/runs",
                app(Experiment(Read)),
                run_table::list_runs,
            ),
            // Workspace: charts of several runs, the live stream, CSV export.
            Route::get(
                "/experiments/{id}/series",
                app(Experiment(Read)),
                series_batch::get_series_batch,
            ),
            Route::get(
                "/experiments/{id}/live",
                app(Experiment(Read)),
                live::stream_live,
            ),
            Route::get(
                "/experiments/{id}/runs/csv",
                app(Experiment(Read)),
                runs_csv::export_runs_csv,
            ),
            // End of Workspace.
            Route::get(
                "/experiments/{id}/access",
                app(Experiment(Read)),
                access::get_experiment_access,
            ),
            Route::put(
                "/experiments/{id}/access",
                app(Experiment(Manage)),
                access::put_experiment_access,
            ),
            Route::delete(
                "/experiments/{id}/access",
                app(Experiment(Manage)),
                access::delete_experiment_access,
            ),
            Route::get("/principals", app(Filtered), principals::list_principals),
            // GPU nodes: a node's agent (its node credential) or an admin registers it;
            // admins remove nodes, grant who may watch them and make node credentials; the
            // rest answer only for nodes the caller may watch (404 otherwise).
            Route::get("/nodes", app(Filtered), nodes::list_nodes),
            Route::get("/nodes/gpus", app(Filtered), nodes::node_gpus),
            Route::post(
                "/nodes/embed-links",
                app(Filtered),
                nodes::create_embed_link,
            ),
            Route::put("/nodes/{name}", app(AppPolicy::NodeAgent), nodes::put_node),
            Route::delete("/nodes/{name}", app(Admin), nodes::delete_node),
            Route::get(
                "/nodes/{name}/access",
                app(Admin),
                node_access::get_node_access,
            ),
            Route::put(
                "/nodes/{name}/access",
                app(Admin),
                node_access::put_node_access,
            ),
            Route::delete(
                "/nodes/{name}/access",
                app(Admin),
                node_access::delete_node_access,
            ),
            Route::get(
                "/node-credentials",
                app(Admin),
                node_access::list_node_credentials,
            ),
            Route::post(
                "/node-credentials",
                app(Admin),
                node_access::create_node_credential,
            ),
            Route::delete(
                "/node-credentials/{id}",
                app(Admin),
                node_access::delete_node_credential,
            ),
            Route::get("/embed/gpus", Access::Public, nodes::embed_gpus),
            // Jobs: jobs and their grants, job runs, attempts, a run's job.
            Route::post("/jobs", app(Filtered), jobs::create_job),
            Route::get("/jobs/{id}", app(Job(View)), jobs::get_job),
            Route::get(
                "/jobs/{id}/access",
                app(Job(View)),
                jobs_access::get_job_access,
            ),
            Route::put(
                "/jobs/{id}/access",
                app(Job(JobManage)),
                jobs_access::put_job_access,
            ),
            Route::delete(
                "/jobs/{id}/access",
                app(Job(JobManage)),
                jobs_access::delete_job_access,
            ),
            Route::post("/jobs/{id}/runs", app(Job(ManageRun)), jobs::create_job_run),
            Route::get("/job-runs", app(Filtered), jobs::list_job_runs),
            Route::get("/job-runs/{id}", app(JobRun(View)), jobs::get_job_run),
            Route::post(
                "/job-runs/{id}/attempts",
                app(JobRun(ManageRun)),
                jobs::create_attempt,
            ),
            Route::post(
                "/job-runs/{id}/nodes",
                app(JobRun(ManageRun)),
                jobs::add_node,
            ),
            Route::post(
                "/job-runs/{id}/status",
                app(JobRun(ManageRun)),
                jobs::set_status,
            ),
            Route::get("/runs/{id}/job", app(Run(Read)), jobs::get_run_job),
            // End of Jobs.
            // Artifacts: the Artifacts tab of runs and logged models.
            Route::get("/runs/{id}/artifacts", app(Run(Read)), artifacts::run_list),
            Route::get(
                "/runs/{id}/artifacts/file",
                app(Run(Read)),
                artifacts::run_file,
            ),
            Route::get(
                "/runs/{id}/artifacts/zip",
                app(Run(Read)),
                artifacts::run_zip,
            ),
            Route::get(
                "/runs/{id}/artifacts/mlmodel",
                app(Run(Read)),
                artifacts::run_mlmodel,
            ),
            Route::get(
                "/logged-models/{id}/artifacts",
                app(AppPolicy::LoggedModel(Read)),
                artifacts::model_list,
            ),
            Route::get(
                "/logged-models/{id}/artifacts/file",
                app(AppPolicy::LoggedModel(Read)),
                artifacts::model_file,
            ),
            Route::get(
                "/logged-models/{id}/artifacts/zip",
                app(AppPolicy::LoggedModel(Read)),
                artifacts::model_zip,
            ),
            Route::get(
                "/logged-models/{id}/artifacts/mlmodel",
                app(AppPolicy::LoggedModel(Read)),
                artifacts::model_mlmodel,
            ),
            // End of Artifacts.
            Route::get("/runs/{id}", app(Run(Read)), run_page::get_run),
            Route::get("/runs/{id}/io", app(Run(Read)), models_io::get_run_io),
            Route::get(
                "/logged-models/{id}",
                app(AppPolicy::LoggedModel(Read)),
                models_io::get_logged_model,
            ),
            // Model registry: the Models pages.
            Route::get(
                "/registered-models",
                app(Filtered),
                registry::list_registered_models,
            ),
            Route::get(
                "/registered-models/{name}",
                app(AppPolicy::RegisteredModel(Read)),
                registry::get_registered_model,
            ),
            Route::get(
                "/runs/{id}/series",
                app(Run(Read)),
                series::get_metric_series,
            ),
            // Logs: the agent ships lines; readers page, follow and download.
            Route::post(
                "/job-runs/{id}/attempts/{n}/logs",
                app(AppPolicy::JobRun(api_types::JobLevel::CanManageRun)),
                logs::ingest_logs,
            )
            .body_limit(api_types::logs::MAX_BATCH_BODY),
            Route::get("/runs/{id}/logs", app(AppPolicy::RunLogs), logs::get_logs),
            Route::get(
                "/runs/{id}/logs/stream",
                app(AppPolicy::RunLogs),
                logs_stream::stream_logs,
            ),
            Route::get(
                "/runs/{id}/logs/download",
                app(AppPolicy::RunLogs),
                logs_download::download_logs,
            ),
            // End of Logs.
            Route::post("/session", Access::Public, session::create_session),
            Route::get("/session", Access::SignedIn, session::get_session),
            Route::delete("/session", Access::Public, session::delete_session),
            Route::get("/tokens", app(Filtered), tokens::list_tokens),
            Route::post("/tokens", app(Filtered), tokens::create_token),
            Route::delete("/tokens/{id}", app(Filtered), tokens::revoke_token),
            Route::any("/{*rest}", Access::SignedIn, unknown_route),
        ],
        body_limit: crate::routes::DEFAULT_BODY_LIMIT,
        finish: body_limit_as_api_error,
    }
}

/// A body over the route's limit is refused by axum with a plain-text 413 before it is
/// parsed; the app API answers it as every other bad request: 400 `BAD_REQUEST` with an
/// `ApiError` body.
fn body_limit_as_api_error(m: MethodRouter<AppState>) -> MethodRouter<AppState> {
    async fn rewrite(response: Response) -> Response {
        let json = response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
        if response.status() == StatusCode::PAYLOAD_TOO_LARGE && !json {
            Error::BadRequest("Request body too large for this endpoint.".into()).into_response()
        } else {
            response
        }
    }
    m.layer(axum::middleware::map_response(rewrite))
}

/// Unknown `/api/v1` paths answer a JSON 404 like every other app API error.
async fn unknown_route() -> Error {
    Error::NotFound("no such API route".into())
}
