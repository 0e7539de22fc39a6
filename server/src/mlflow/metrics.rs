//! Metric history endpoints: `metrics/get-history` (paged) and
//! `metrics/get-history-bulk-interval` (step-sampled, many runs).

use axum::extract::State;
use axum::Json;
use serde::Serialize;

use super::read;
use super::request::Msg;
use super::wire::MetricJson;
use crate::error::MlflowError;
use crate::tracking::history::{self, MAX_BULK_RESULTS, MAX_BULK_RUNS};
use crate::tracking::model::Metric;
use crate::tracking::page_token;
use crate::{AppState, Error};

/// A list of metric points, with a token when more follow.
#[derive(Serialize)]
pub struct Metrics {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    metrics: Vec<MetricJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_page_token: Option<String>,
}

/// `GET metrics/get-history`: ordered by (timestamp, step, value); `max_results` absent or
/// 0 means all points.
pub async fn get_metric_history(
    State(s): State<AppState>,
    Msg(f): Msg,
) -> Result<Json<Metrics>, MlflowError> {
    let run_id = f.run_id()?;
    let key = f.req_str("metric_key")?;
    let limit = match f.opt_i64("max_results")? {
        None | Some(0) => None,
        Some(n) if n < 0 => {
            return Err(Error::InvalidParameter(format!(
                "Invalid value {n} for parameter 'max_results' supplied. It must be a positive \
                 integer"
            ))
            .into())
        }
        Some(n) => Some(usize::try_from(n).unwrap_or(usize::MAX).min(1 << 40)),
    };
    let offset = page_token::decode(f.opt_str("page_token")?.as_deref())?;
    let key2 = key.clone();
    let mut points = read(&s, move |c| {
        history::get_history(c, &run_id, &key2, offset, limit.map(|l| l + 1))
    })
    .await?;
    let more = limit.is_some_and(|l| points.len() > l);
    if let Some(l) = limit {
        points.truncate(l);
    }
    let n = points.len();
    Ok(Json(Metrics {
        metrics: points
            .into_iter()
            .map(|point| {
                MetricJson::new(
                    Metric {
                        key: key.clone(),
                        point,
                    },
                    None,
                )
            })
            .collect(),
        next_page_token: more.then(|| page_token::encode(offset + n)),
    }))
}

/// `GET metrics/get-history-bulk-interval`
pub async fn get_metric_history_bulk_interval(
    State(s): State<AppState>,
    Msg(f): Msg,
) -> Result<Json<Metrics>, MlflowError> {
    let run_ids = f.str_list("run_ids")?;
    if run_ids.is_empty() {
        return Err(invalid(
            "GetMetricHistoryBulkInterval request must specify at least one run_id.",
        ));
    }
    if run_ids.len() > MAX_BULK_RUNS {
        return Err(invalid(&format!(
            "GetMetricHistoryBulkInterval request cannot specify more than {MAX_BULK_RUNS} \
             run_ids. Received {} run_ids.",
            run_ids.len()
        )));
    }
    let key = f.req_str("metric_key")?;
    let range = match (f.opt_i64("start_step")?, f.opt_i64("end_step")?) {
        (None, None) => None,
        (Some(a), Some(b)) if a <= b => Some((a, b)),
        (Some(_), Some(_)) => {
            return Err(invalid(
                "end_step must be greater than or equal to start_step.",
            ))
        }
        _ => {
            return Err(invalid(
                "If either start step or end step are specified, both must be specified.",
            ))
        }
    };
    let max = f.opt_i64("max_results")?.unwrap_or(MAX_BULK_RESULTS as i64);
    if !(1..=MAX_BULK_RESULTS as i64).contains(&max) {
        return Err(invalid(&format!(
            "max_results must be between 1 and {MAX_BULK_RESULTS}."
        )));
    }
    let key2 = key.clone();
    let points = read(&s, move |c| {
        history::bulk_interval(c, &run_ids, &key2, range, max as usize)
    })
    .await?;
    Ok(Json(Metrics {
        metrics: points
            .into_iter()
            .map(|(run, point)| {
                MetricJson::new(
                    Metric {
                        key: key.clone(),
                        point,
                    },
                    Some(run),
                )
            })
            .collect(),
        next_page_token: None,
    }))
}

fn invalid(msg: &str) -> MlflowError {
    Error::InvalidParameter(msg.to_string()).into()
}
