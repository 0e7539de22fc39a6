//! The agent's HTTP API: `GET /v1/gpus` (bearer token) and `GET /metrics` (open unless a
//! metrics token is set).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use api_types::agent::{GpusQuery, NodeSnapshot};
use api_types::{ApiError, ErrorCode};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use crate::node::{read, SharedNode};
use crate::prometheus;

/// What the handlers need: the node and the tokens.
#[derive(Clone)]
pub struct AppState {
    node: SharedNode,
    token: Arc<str>,
    metrics_token: Option<Arc<str>>,
    /// `GET /v1/gpus` requests answered since start (the server's polls).
    gpus_served: Arc<AtomicU64>,
}

impl AppState {
    /// `token` guards `/v1/gpus`; `metrics_token`, when set, guards `/metrics`.
    pub fn new(node: SharedNode, token: &str, metrics_token: Option<&str>) -> Self {
        Self {
            node,
            token: token.into(),
            metrics_token: metrics_token.map(Into::into),
            gpus_served: Arc::default(),
        }
    }
}

/// The agent's routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/v1/gpus", get(get_gpus))
        .route("/metrics", get(get_metrics))
        .with_state(state)
}

/// A refused request, answered as an [`ApiError`] body.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// No or a wrong bearer token.
    #[error("a valid bearer token is required: send Authorization: Bearer <token>")]
    Unauthenticated,
    /// The query string could not be decoded.
    #[error("invalid query: {0}")]
    BadQuery(String),
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let (status, code) = match self {
            Self::Unauthenticated => (StatusCode::UNAUTHORIZED, ErrorCode::Unauthenticated),
            Self::BadQuery(_) => (StatusCode::BAD_REQUEST, ErrorCode::InvalidParameter),
        };
        let body = ApiError {
            code,
            message: self.to_string(),
            grantors: vec![],
        };
        let mut response = (status, Json(body)).into_response();
        if status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, "Bearer".parse().expect("static"));
        }
        response
    }
}

/// Equal bytes, compared in time independent of where they differ.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    bool::from(given.ct_eq(expected))
}

/// Passes when the request carries `Authorization: Bearer <expected>`.
fn require_bearer(headers: &HeaderMap, expected: &str) -> Result<(), HttpError> {
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .ok_or(HttpError::Unauthenticated)?;
    if same_secret(given.trim().as_bytes(), expected.as_bytes()) {
        Ok(())
    } else {
        Err(HttpError::Unauthenticated)
    }
}

/// `GET /v1/gpus[?since=MS]`: the latest sample, plus the history after `since`.
async fn get_gpus(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<GpusQuery>, QueryRejection>,
) -> Result<Json<NodeSnapshot>, HttpError> {
    require_bearer(&headers, &state.token)?;
    let Query(query) = query.map_err(|err| HttpError::BadQuery(err.body_text()))?;
    state.gpus_served.fetch_add(1, Ordering::Relaxed);
    Ok(Json(read(&state.node).snapshot(query.since)))
}

/// `GET /metrics`: the Prometheus exposition of the latest sample.
async fn get_metrics(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<impl IntoResponse, HttpError> {
    if let Some(token) = &state.metrics_token {
        require_bearer(&headers, token)?;
    }
    let served = state.gpus_served.load(Ordering::Relaxed);
    let body = prometheus::render(&read(&state.node), served);
    Ok(([(header::CONTENT_TYPE, prometheus::CONTENT_TYPE)], body))
}
