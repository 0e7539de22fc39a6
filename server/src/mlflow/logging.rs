//! Logging endpoints: log-metric, log-parameter, set-tag, delete-tag, log-batch and
//! log-inputs. One request is one transaction.

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::fields::Fields;
use super::request::Msg;
use super::write;
use crate::error::MlflowError;
use crate::tracking::log_batch::{self, Batch};
use crate::tracking::model::{Metric, Point};
use crate::{AppState, Error};

type Reply = Result<Json<Value>, MlflowError>;

/// Decodes one metric message (`key`, `value`, `timestamp` required; `step` default 0).
fn metric(f: &Fields) -> Result<Metric, Error> {
    let key = f.req_str("key")?;
    let value = f.opt_f64("value")?.ok_or_else(|| f.missing("value"))?;
    let timestamp = f
        .opt_i64("timestamp")?
        .ok_or_else(|| f.missing("timestamp"))?;
    let step = f.opt_i64("step")?.unwrap_or(0);
    Ok(Metric {
        key,
        point: Point {
            step,
            timestamp,
            value,
        },
    })
}

async fn log(s: AppState, run_id: String, batch: Batch, single: bool) -> Reply {
    write(&s, move |c| log_batch::log_batch(c, &run_id, batch, single)).await?;
    Ok(Json(json!({})))
}

/// `POST runs/log-metric`
pub async fn log_metric(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    let batch = Batch {
        metrics: vec![metric(&f)?],
        ..Batch::default()
    };
    log(s, run_id, batch, true).await
}

/// `POST runs/log-parameter`
pub async fn log_param(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    let param = (f.req_str("key")?, f.req_str("value")?);
    log(
        s,
        run_id,
        Batch {
            params: vec![param],
            ..Batch::default()
        },
        true,
    )
    .await
}

/// `POST runs/set-tag`
pub async fn set_tag(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    let tag = (f.req_str("key")?, f.req_str("value")?);
    log(
        s,
        run_id,
        Batch {
            tags: vec![tag],
            ..Batch::default()
        },
        true,
    )
    .await
}

/// `POST runs/delete-tag`
pub async fn delete_tag(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    let key = f.req_str("key")?;
    write(&s, move |c| log_batch::delete_tag(c, &run_id, &key)).await?;
    Ok(Json(json!({})))
}

/// `POST runs/log-batch`
pub async fn log_batch(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    let metrics = f
        .msg_list("metrics")?
        .iter()
        .map(metric)
        .collect::<Result<Vec<_>, _>>()?;
    let batch = Batch {
        metrics,
        params: f.key_values("params")?,
        tags: f.key_values("tags")?,
    };
    log(s, run_id, batch, false).await
}

/// `POST runs/log-inputs`: validated and accepted; dataset inputs are not stored yet.
pub async fn log_inputs(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    for input in f.msg_list("datasets")? {
        for tag in input.msg_list("tags")? {
            let key = tag.req_str("key")?;
            let value = tag.req_str("value")?;
            check_len("Dataset input tag key", &key, 255)?;
            check_len("Dataset input tag value", &value, 500)?;
        }
        dataset(&input)?;
    }
    for model in f.msg_list("models")? {
        model.req_str("model_id")?;
    }
    write(&s, move |c| {
        crate::tracking::runs::get_active_info(c, &run_id).map(drop)
    })
    .await?;
    Ok(Json(json!({})))
}

fn check_len(what: &str, v: &str, max: usize) -> Result<(), Error> {
    crate::tracking::validation::validate_length(what, v, max)
}

/// Validates the `dataset` message of a dataset input.
fn dataset(input: &Fields) -> Result<(), Error> {
    let Some(ds) = input.msg("dataset")? else {
        return Err(input.missing("dataset"));
    };
    let name = ds.req_str("name")?;
    let digest = ds.req_str("digest")?;
    check_len("Dataset name", &name, 500)?;
    check_len("Dataset digest", &digest, 36)?;
    check_len(
        "Dataset source",
        &ds.opt_str("source")?.unwrap_or_default(),
        65535,
    )?;
    check_len(
        "Dataset schema",
        &ds.opt_str("schema")?.unwrap_or_default(),
        1 << 20,
    )?;
    check_len(
        "Dataset profile",
        &ds.opt_str("profile")?.unwrap_or_default(),
        16 << 20,
    )?;
    ds.opt_str("source_type")?;
    Ok(())
}
