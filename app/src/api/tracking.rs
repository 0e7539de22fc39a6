//! Tracking calls: experiments, runs tables, run details and metric series.

use api_types as json;

use super::{get, ApiError};
use crate::query::{encode_component, Query};

/// Parameters of the experiments list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExperimentsQuery {
    /// Name filter (substring).
    pub q: String,
    /// Sort key.
    pub sort: json::ExperimentSort,
    /// Descending order.
    pub desc: bool,
    /// Rows to skip.
    pub offset: u64,
    /// Page size.
    pub limit: u64,
}

fn sort_name(s: json::ExperimentSort) -> &'static str {
    match s {
        json::ExperimentSort::Name => "name",
        json::ExperimentSort::LastUpdate => "last_update",
        json::ExperimentSort::Created => "created",
        json::ExperimentSort::Runs => "runs",
    }
}

/// `GET /api/v1/experiments`.
pub async fn list_experiments(p: ExperimentsQuery) -> Result<json::ExperimentList, ApiError> {
    let q = Query::new()
        .with_opt("q", (!p.q.is_empty()).then_some(p.q))
        .with("sort", sort_name(p.sort))
        .with("desc", p.desc.to_string())
        .with("offset", p.offset.to_string())
        .with("limit", p.limit.to_string());
    get(&q.url("/api/v1/experiments")).await
}

/// `GET /api/v1/experiments/{id}`.
pub async fn get_experiment(id: String) -> Result<json::ExperimentDetail, ApiError> {
    get(&format!("/api/v1/experiments/{}", encode_component(&id))).await
}

/// Parameters of the runs table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunsQuery {
    /// MLflow filter string (empty for none).
    pub filter: String,
    /// MLflow order_by clauses.
    pub order_by: Vec<String>,
    /// The columns to include.
    pub columns: json::RunTableColumns,
}

/// `GET /api/v1/experiments/{id}/runs`.
pub async fn list_runs(experiment_id: String, p: RunsQuery) -> Result<json::RunTable, ApiError> {
    let mut q = Query::new()
        .with_opt("filter", (!p.filter.trim().is_empty()).then_some(p.filter))
        .with("params", p.columns.params.join(","))
        .with("metrics", p.columns.metrics.join(","))
        .with("tags", p.columns.tags.join(","))
        .with("view", "active");
    for clause in p.order_by {
        q = q.with("order_by", clause);
    }
    let path = format!(
        "/api/v1/experiments/{}/runs",
        encode_component(&experiment_id)
    );
    get(&q.url(&path)).await
}

/// `GET /api/v1/runs/{id}`.
pub async fn get_run(id: String) -> Result<json::RunDetail, ApiError> {
    get(&format!("/api/v1/runs/{}", encode_component(&id))).await
}

/// Parameters of one chart's series.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesQuery {
    /// Metric key.
    pub key: String,
    /// X axis.
    pub x: json::XAxis,
    /// Pixel columns to reduce to.
    pub width: u32,
    /// Zoomed x range, if any.
    pub range: Option<(f64, f64)>,
}

/// `GET /api/v1/runs/{id}/series`.
pub async fn get_series(run_id: String, p: SeriesQuery) -> Result<json::MetricSeries, ApiError> {
    let x = match p.x {
        json::XAxis::Step => "step",
        json::XAxis::Wall => "wall",
        json::XAxis::Relative => "relative",
    };
    let mut q = Query::new()
        .with("key", p.key)
        .with("x", x)
        .with("width", p.width.to_string());
    if let Some((lo, hi)) = p.range {
        q = q
            .with("x_min", lo.to_string())
            .with("x_max", hi.to_string());
    }
    get(&q.url(&format!(
        "/api/v1/runs/{}/series",
        encode_component(&run_id)
    )))
    .await
}
