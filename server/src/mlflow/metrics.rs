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
pub(crate) struct Metrics {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    metrics: Vec<MetricJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_page_token: Option<String>,
}

/// `GET metrics/get-history`: ordered by (timestamp, step, value); `max_results` absent or
/// 0 means all points.
pub(crate) async fn get_metric_history(
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

/// `GET metrics/get-history-bulk-interval`: each run's points of one metric sampled on
/// its own to at most `max_results` (MLflow 3.17.2's sample), plus the spikes that sample
/// would hide (a departure: see `tracking::history::bulk_interval`). Checks the request in
/// MLflow's order with MLflow's messages.
pub(crate) async fn get_metric_history_bulk_interval(
    State(s): State<AppState>,
    Msg(f): Msg,
) -> Result<Json<Metrics>, MlflowError> {
    let run_ids = f.str_list("run_ids")?;
    if run_ids.is_empty() {
        return Err(invalid(&schema_message(
            "Missing value for required parameter 'run_ids'.",
        )));
    }
    if run_ids.len() > MAX_BULK_RUNS {
        return Err(invalid(&schema_message(&format!(
            "GetMetricHistoryBulkInterval request must specify at most {MAX_BULK_RUNS} \
             run_ids. Received {} run_ids.",
            run_ids.len()
        ))));
    }
    let key = f.opt_str("metric_key")?.unwrap_or_default();
    if key.is_empty() {
        return Err(invalid(&schema_message(
            "Missing value for required parameter 'metric_key'.",
        )));
    }
    let (start, end) = (f.opt_i64("start_step")?, f.opt_i64("end_step")?);
    let max = f.opt_i64("max_results")?.unwrap_or(MAX_BULK_RESULTS as i64);
    if !(1..=MAX_BULK_RESULTS as i64).contains(&max) {
        return Err(invalid(&schema_message(&format!(
            "max_results must be between 1 and {MAX_BULK_RESULTS}."
        ))));
    }
    let range = match (start, end) {
        (None, None) => None,
        (Some(a), Some(b)) if a <= b => Some((a, b)),
        (Some(a), Some(b)) => {
            return Err(invalid(&format!(
                "end_step must be greater than start_step. Found start_step={a} and \
                 end_step={b}."
            )))
        }
        _ => {
            return Err(invalid(
                "If either start step or end step are specified, both must be specified.",
            ))
        }
    };
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

/// A message of MLflow's request-schema checks, which all end with this hint.
fn schema_message(msg: &str) -> String {
    format!("{msg} See the API docs for more information about request parameters.")
}

fn invalid(msg: &str) -> MlflowError {
    Error::InvalidParameter(msg.to_string()).into()
}
