//! A chart's data (`GET /runs/{id}/series`): one metric of one run over an x range,
//! streamed from the index in x order through the M4 reducer. The app's charts ask the
//! batched route ([`super::series_batch`]) with one run instead; this public route checks
//! its request as that one does and reads with the same query.

use api_types as json;
use axum::extract::State;
use axum::Json;

use super::guard::{RunGuard, READ};
use super::query::QueryParams;
use super::series_batch::checked_width;
use crate::tracking::series::{self, SeriesRequest};
use crate::{AppState, Error};

/// `GET /api/v1/runs/{id}/series?key=&x=step|wall|relative&width=&x_min=&x_max=`: the
/// metric `key` (required) of the run reduced with M4 to `width` (1..=10000, default 1000)
/// pixel columns over `[x_min, x_max]` on the chosen axis (default: the series' extent).
/// `wall` is ms since the epoch, `relative` ms since the run's start (since the series'
/// first point when that is older; `run_start_time` is that origin). A key the run never
/// logged gives an empty series; an unknown run 404; a bad range or width 400.
pub(crate) async fn get_metric_series(
    State(state): State<AppState>,
    guard: RunGuard<READ>,
    query: QueryParams,
) -> Result<Json<json::MetricSeries>, Error> {
    let run_id = guard.run_id;
    let query = query.series()?;
    let req = SeriesRequest {
        run_id,
        key: query.key,
        axis: query.x,
        width: checked_width(query.width, query.x_min, query.x_max)?,
        x_min: query.x_min,
        x_max: query.x_max,
    };
    Ok(Json(
        state.store.call(move |c| series::query(c, req)).await?,
    ))
}
