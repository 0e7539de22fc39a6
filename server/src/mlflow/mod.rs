//! The MLflow tracking REST dialect (`/api/2.0/mlflow/...`, mirrored under `/ajax-api/`):
//! MLflow's paths, JSON shapes, error codes and limits over the `tracking` domain.
//!
//! Offers the crate its route tables, [`dialect`] and [`dialect_v3`] (each endpoint with
//! its [`Policy`] and body limit), and `MlflowError`'s rendering; the handlers, the
//! request decoding ([`request`]) and MLflow's wire shapes stay inside.

mod artifacts_list;
mod experiments;
mod fields;
mod logged_models;
mod logging;
mod metrics;
mod permissions;
mod policy;
mod registry;
pub(crate) mod request;
mod runs;
mod users;
mod wire;

pub(crate) use policy::Policy;

use crate::db::Conn;
use api_types::Level;
use axum::http::StatusCode;
use axum::Json;
use serde_json::json;

use crate::routes::{mlflow_method_not_allowed, Access, Dialect, Route};
use crate::{tracking, AppState, Error};
use fields::Fields;

/// Body limit of MLflow requests (MLflow's own limits keep every message far below it).
pub(crate) const BODY_LIMIT: usize = 1024 * 1024;
/// Body limit of `runs/log-batch`: MLflow's largest legal batch (1,000 metrics, 100 params
/// of 6,000 characters and 100 tags of 8,000 characters) is about 1.6 MB of JSON.
pub(crate) const LOG_BATCH_BODY_LIMIT: usize = 2 * 1024 * 1024;
/// Body limit of `runs/log-inputs` (datasets carry schemas and profiles).
pub(crate) const LOG_INPUTS_BODY_LIMIT: usize = 2 * 1024 * 1024;

/// The MLflow dialect, under `/api/2.0/mlflow` and `/ajax-api/2.0/mlflow`: every endpoint
/// with its [`Policy`].
pub(crate) fn dialect() -> Dialect {
    use experiments as e;
    use runs as r;
    use Level::{CanEdit as Edit, CanManage as Manage, CanRead as Read};
    use Policy::*;
    let m = |p: Policy| Access::Mlflow(p);
    let mut routes = vec![
        Route::post(
            "/experiments/create",
            m(CreateExperiment),
            e::create_experiment,
        ),
        Route::get("/experiments/get", m(Experiment(Read)), e::get_experiment),
        Route::get(
            "/experiments/get-by-name",
            m(ExperimentByName),
            e::get_experiment_by_name,
        ),
        Route::get("/experiments/search", m(Filtered), e::search_experiments),
        Route::post("/experiments/search", m(Filtered), e::search_experiments),
        Route::post(
            "/experiments/update",
            m(RenameExperiment),
            e::update_experiment,
        ),
        Route::post(
            "/experiments/delete",
            m(Experiment(Manage)),
            e::delete_experiment,
        ),
        Route::post(
            "/experiments/restore",
            m(Experiment(Manage)),
            e::restore_experiment,
        ),
        Route::post(
            "/experiments/set-experiment-tag",
            m(Experiment(Edit)),
            e::set_experiment_tag,
        ),
        Route::post(
            "/experiments/delete-experiment-tag",
            m(Experiment(Edit)),
            e::delete_experiment_tag,
        ),
        Route::post("/runs/create", m(Experiment(Edit)), r::create_run),
        Route::get("/runs/get", m(Run(Read)), r::get_run),
        Route::post("/runs/update", m(Run(Edit)), r::update_run),
        Route::post("/runs/delete", m(Run(Edit)), r::delete_run),
        Route::post("/runs/restore", m(Run(Edit)), r::restore_run),
        Route::post("/runs/search", m(SearchRuns), r::search_runs),
        Route::post("/runs/log-metric", m(Run(Edit)), logging::log_metric),
        Route::post("/runs/log-parameter", m(Run(Edit)), logging::log_param),
        Route::post("/runs/set-tag", m(Run(Edit)), logging::set_tag),
        Route::post("/runs/delete-tag", m(Run(Edit)), logging::delete_tag),
        Route::post("/runs/log-batch", m(Run(Edit)), logging::log_batch)
            .body_limit(LOG_BATCH_BODY_LIMIT),
        Route::post("/runs/log-inputs", m(Run(Edit)), logging::log_inputs)
            .body_limit(LOG_INPUTS_BODY_LIMIT),
        Route::get(
            "/metrics/get-history",
            m(Run(Read)),
            metrics::get_metric_history,
        ),
        Route::get(
            "/metrics/get-history-bulk-interval",
            m(Runs),
            metrics::get_metric_history_bulk_interval,
        ),
        Route::post("/users/create", m(Admin), users::create_user),
        Route::get("/users/get", m(SelfOrAdmin), users::get_user),
        Route::get("/users/list", m(Admin), users::list_users),
        Route::get("/users/current", m(SignedIn), users::get_current_user),
        Route::patch(
            "/users/update-password",
            m(SelfOrAdmin),
            users::update_user_password,
        ),
        Route::patch("/users/update-admin", m(Admin), users::update_user_admin),
        Route::delete("/users/delete", m(Admin), users::delete_user),
        // A route rather than a fallback: nested fallbacks lose to `/api/{*rest}`.
        Route::any("/{*rest}", Access::SignedIn, endpoint_not_found),
    ];
    routes.extend(artifacts_list::routes());
    routes.extend(logged_models::routes());
    routes.extend(registry::routes());
    Dialect {
        prefixes: &["/api/2.0/mlflow", "/ajax-api/2.0/mlflow"],
        routes,
        body_limit: BODY_LIMIT,
        finish: mlflow_method_not_allowed,
    }
}

/// Any path under the MLflow prefix that names no endpoint.
async fn endpoint_not_found() -> (StatusCode, Json<serde_json::Value>) {
    let body = json!({"error_code": "ENDPOINT_NOT_FOUND", "message": "No such MLflow endpoint."});
    (StatusCode::NOT_FOUND, Json(body))
}

/// MLflow 3's per-user permission endpoints under `/api/3.0/mlflow` (and
/// `/ajax-api/3.0/mlflow`), as `mlflow.server.auth.client.AuthServiceClient` calls them.
pub(crate) fn dialect_v3() -> Dialect {
    use permissions as p;
    let m = |p: Policy| Access::Mlflow(p);
    Dialect {
        prefixes: &["/api/3.0/mlflow", "/ajax-api/3.0/mlflow"],
        routes: vec![
            Route::post(
                "/users/permissions/grant",
                m(Policy::ManageResource),
                p::grant_user_permission,
            ),
            Route::post(
                "/users/permissions/revoke",
                m(Policy::ManageResource),
                p::revoke_user_permission,
            ),
            Route::get(
                "/users/permissions/get",
                m(Policy::GetUserPermission),
                p::get_user_permission,
            ),
        ],
        body_limit: BODY_LIMIT,
        finish: mlflow_method_not_allowed,
    }
}

/// Reads `max_results` (absent or 0 = `default`); must be 1..=`max`.
fn max_results(f: &Fields, default: usize, max: usize) -> Result<usize, Error> {
    match f.opt_i64("max_results")? {
        None | Some(0) => Ok(default),
        Some(n) if n < 0 => Err(Error::InvalidParameter(format!(
            "Invalid value {n} for parameter 'max_results' supplied. It must be a positive integer"
        ))),
        Some(n) if n as u64 > max as u64 => Err(Error::InvalidParameter(format!(
            "Invalid value {n} for parameter 'max_results' supplied. It must be at most {max}"
        ))),
        Some(n) => Ok(n as usize),
    }
}

/// Runs `f` as one write on the blocking pool: writes are served in arrival order and
/// committed in groups (`crate::db::group_write`); the answer comes after the commit.
async fn write<T, F>(s: &AppState, f: F) -> Result<T, Error>
where
    T: Send + 'static,
    F: FnOnce(&Conn) -> Result<T, Error> + Send + 'static,
{
    s.store.call_write(f).await
}

/// [`write()`] for a write that changes only rows of the run `run_id` (see
/// [`crate::store::Store::call_write_run`]).
async fn write_run<T, F>(s: &AppState, run_id: &str, f: F) -> Result<T, Error>
where
    T: Send + 'static,
    F: FnOnce(&Conn) -> Result<T, Error> + Send + 'static,
{
    s.store.call_write_run(run_id, f).await
}

/// Runs `f` in one read transaction on the blocking pool.
async fn read<T, F>(s: &AppState, f: F) -> Result<T, Error>
where
    T: Send + 'static,
    F: FnOnce(&Conn) -> Result<T, Error> + Send + 'static,
{
    s.store.call(move |c| tracking::read(c, f)).await
}
