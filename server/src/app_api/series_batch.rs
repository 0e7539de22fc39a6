//! Charts of several runs (`GET /experiments/{id}/series`): every (run, key) series the
//! chart view draws, each reduced with M4 as `GET /runs/{id}/series` does, in one round
//! trip. The answer is streamed one series at a time, so the server holds one series
//! however many are asked for (up to `MAX_BATCH_SERIES` of 10,000 columns each).

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures_util::{stream, StreamExt};

use super::guard::{ExperimentGuard, READ};
use super::query::QueryParams;
use crate::tracking::series::{self, SeriesRequest, Viewport};
use crate::{AppState, Error, Store};

/// Pixel columns when `width` is absent.
const DEFAULT_WIDTH: u32 = 1000;

/// The pixel columns of a chart request (`width`, default [`DEFAULT_WIDTH`]), once the
/// width and the range `[x_min, x_max]` are checked: a bad width or an inverted range is
/// refused before anything is read. Both series routes start here.
pub(super) fn checked_width(
    width: Option<u32>,
    x_min: Option<f64>,
    x_max: Option<f64>,
) -> Result<u32, Error> {
    let width = width.unwrap_or(DEFAULT_WIDTH);
    Viewport::new(width, x_min.unwrap_or(f64::MIN), x_max.unwrap_or(f64::MAX))?;
    Ok(width)
}

/// `GET /api/v1/experiments/{id}/series?run=&run=&key=&key=&x=&x_key=&width=&x_min=&x_max=`
/// (see [`api_types::workspace::SeriesBatchQuery`]): an [`api_types::workspace::SeriesBatch`]. Requested runs that are not runs
/// of this experiment are listed in `missing` and get no series (nothing of another
/// experiment's runs is read). Bad parameters answer 400 naming the parameter; an
/// unknown experiment 404.
pub(crate) async fn get_series_batch(
    State(state): State<AppState>,
    guard: ExperimentGuard<READ>,
    query: QueryParams,
) -> Result<Response, Error> {
    let q = query.series_batch()?;
    let width = checked_width(q.width, q.x_min, q.x_max)?;
    let id = guard.id;
    let asked = q.runs.clone();
    let found = state
        .store
        .call(move |c| series::runs_of_experiment(c, id, &asked))
        .await?;
    let (present, missing): (Vec<String>, Vec<String>) =
        q.runs.into_iter().partition(|r| found.contains(r));
    let head = format!(
        "{{\"missing\":{},\"series\":[",
        serde_json::to_string(&missing).map_err(|e| Error::Internal(e.to_string()))?
    );
    let requests: Vec<SeriesRequest> = present
        .iter()
        .flat_map(|run| {
            q.keys.iter().map(move |key| SeriesRequest {
                run_id: run.clone(),
                key: key.clone(),
                axis: q.x,
                width,
                x_min: q.x_min,
                x_max: q.x_max,
            })
        })
        .collect();
    let store = state.store.clone();
    let x_key = q.x_key;
    // Each series is read when the client has taken the previous one.
    let body = stream::iter(requests.into_iter().enumerate())
        .then(move |(i, req)| one(store.clone(), req, x_key.clone(), i > 0))
        .map(|r| r.map_err(|e| std::io::Error::other(e.to_string())));
    let body = stream::once(async { Ok(Bytes::from(head)) })
        .chain(body)
        .chain(stream::once(async { Ok(Bytes::from_static(b"]}")) }));
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        Body::from_stream(body),
    )
        .into_response())
}

/// One series as JSON, after a comma unless it is the first.
async fn one(
    store: Store,
    req: SeriesRequest,
    x_key: Option<String>,
    comma: bool,
) -> Result<Bytes, Error> {
    let s = store
        .call(move |c| match x_key {
            Some(x_key) => series::query_x_key(c, req, &x_key),
            None => series::query(c, req),
        })
        .await?;
    let mut out = Vec::with_capacity(64 + 48 * s.points.len());
    if comma {
        out.push(b',');
    }
    serde_json::to_writer(&mut out, &s).map_err(|e| Error::Internal(e.to_string()))?;
    Ok(Bytes::from(out))
}
