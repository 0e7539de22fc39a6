//! Tracking calls: experiments, runs tables, run details and metric series. Their query
//! strings are `api_types`' query types, the same the server parses.

use api_types as json;

use super::http::{get, url, ApiError};
use crate::query::encode_component;

/// `GET /api/v1/experiments`.
pub async fn list_experiments(
    q: json::ExperimentListQuery,
) -> Result<json::ExperimentList, ApiError> {
    get(&url("/api/v1/experiments", q.to_pairs())).await
}

/// `GET /api/v1/experiments/{id}`.
pub async fn get_experiment(id: String) -> Result<json::ExperimentDetail, ApiError> {
    get(&format!("/api/v1/experiments/{}", encode_component(&id))).await
}

/// `GET /api/v1/experiments/{id}/runs`.
pub async fn list_runs(
    experiment_id: String,
    q: json::RunTableQuery,
) -> Result<json::RunTable, ApiError> {
    get(&url(&runs_path(&experiment_id), q.to_pairs())).await
}

/// `GET /api/v1/experiments/{id}/runs?columns=default`: a page of `q` (its columns
/// ignored) with the columns a table shows when none are chosen, named in the answer; for
/// a page that has not read the experiment's keys yet.
///
/// `app/index.html`'s inline script repeats the URL this builds for the runs table's first
/// page in its default state (`?order_by=attributes.start_time+DESC&columns=default`) and
/// sends it before the wasm loads (`api/early.rs`): it cannot ask the app, which is not
/// there yet, and the server sends that file as it is (precompressed), so the two are kept
/// equal by hand. A drift only costs the request being sent twice;
/// end2end/tests/runs-table.spec.mjs ("asks for its data while the app loads") fails on it.
pub async fn list_runs_default_columns(
    experiment_id: String,
    q: json::RunTableQuery,
) -> Result<json::RunTable, ApiError> {
    let q = json::RunTableQuery {
        columns: json::RunTableColumns::default(),
        ..q
    };
    let mut pairs = q.to_pairs();
    pairs.push(("columns", "default".to_owned()));
    get(&url(&runs_path(&experiment_id), pairs)).await
}

fn runs_path(experiment_id: &str) -> String {
    format!(
        "/api/v1/experiments/{}/runs",
        encode_component(experiment_id)
    )
}

/// Every run `q` matches: `GET /api/v1/experiments/{id}/runs` page after page (1,000 runs
/// each) until the last, as one table. For the small sets the charts, the compare view and
/// the deleted-runs marks ask for; the runs table itself loads pages as it scrolls.
pub async fn list_all_runs(
    experiment_id: String,
    q: json::RunTableQuery,
) -> Result<json::RunTable, ApiError> {
    let mut q = json::RunTableQuery {
        limit: Some(json::RUN_PAGE_MAX),
        page_token: None,
        ..q
    };
    let mut table = list_runs(experiment_id.clone(), q.clone()).await?;
    while let Some(token) = table.next_page_token.take() {
        q.page_token = Some(token);
        let page = list_runs(experiment_id.clone(), q.clone()).await?;
        table.rows.extend(page.rows);
        table.next_page_token = page.next_page_token;
    }
    Ok(table)
}

/// `GET /api/v1/runs/{id}`.
pub async fn get_run(id: String) -> Result<json::RunDetail, ApiError> {
    get(&format!("/api/v1/runs/{}", encode_component(&id))).await
}
