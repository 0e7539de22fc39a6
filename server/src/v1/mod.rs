//! The app's JSON API (`/api/v1/...`): pages' data in one round trip, downsampled series.
//! Every failure is an `ApiError` body: 404 `NOT_FOUND` for unknown ids and routes, 400
//! `INVALID_PARAMETER`/`BAD_REQUEST` for bad input.

pub mod access;
pub mod downsample;
pub mod experiments;
pub mod guard;
pub mod principals;
pub mod query;
pub mod run;
pub mod runs;
pub mod series;

use axum::routing::{any, get};
use axum::Router;

use crate::{AppState, Error};

/// Routes of the app API, relative to `/api/v1`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/experiments", get(experiments::list_experiments))
        .route("/experiments/{id}", get(experiments::get_experiment))
        .route("/experiments/{id}/runs", get(runs::list_runs))
        .route(
            "/experiments/{id}/access",
            get(access::get_experiment_access)
                .put(access::put_experiment_access)
                .delete(access::delete_experiment_access),
        )
        .route("/principals", get(principals::list_principals))
        .route("/runs/{id}", get(run::get_run))
        .route("/runs/{id}/series", get(series::get_metric_series))
        .route("/{*rest}", any(unknown_route))
}

/// Unknown `/api/v1` paths answer a JSON 404 like every other app API error.
async fn unknown_route() -> Error {
    Error::NotFound("no such API route".into())
}
