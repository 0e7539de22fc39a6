//! Logging endpoints: log-metric, log-parameter, set-tag, delete-tag, log-batch and
//! log-inputs. One request is one transaction. Metrics that name a `model_id` are also
//! linked to that logged model. After the commit, new points and renames go to the live
//! bus (`crate::live`).

use api_types::Level;
use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::fields::Fields;
use super::request::Msg;
use super::{write, write_run};
use crate::auth::Caller;
use crate::error::MlflowError;
use crate::live::BatchWatch;
use crate::models::inputs::{self, Dataset, DatasetInput};
use crate::models::logged::{self, MetricLink};
use crate::tracking::log_batch::{self, Batch};
use crate::tracking::model::{Metric, Point};
use crate::{AppState, Error};

type Reply = Result<Json<Value>, MlflowError>;

/// Decodes one metric message (`key`, `value`, `timestamp` required; `step` default 0)
/// and, when it names a `model_id`, its link to that logged model (with its
/// `dataset_name` / `dataset_digest`).
fn metric(f: &Fields) -> Result<(Metric, Option<MetricLink>), Error> {
    let key = f.req_str("key")?;
    let value = f.opt_f64("value")?.ok_or_else(|| f.missing("value"))?;
    let timestamp = f
        .opt_i64("timestamp")?
        .ok_or_else(|| f.missing("timestamp"))?;
    let step = f.opt_i64("step")?.unwrap_or(0);
    let point = Point {
        step,
        timestamp,
        value,
    };
    let link = match f.opt_str("model_id")?.filter(|m| !m.is_empty()) {
        Some(model_id) => Some(MetricLink {
            model_id,
            key: key.clone(),
            point,
            dataset_name: f.opt_str("dataset_name")?.filter(|d| !d.is_empty()),
            dataset_digest: f.opt_str("dataset_digest")?.filter(|d| !d.is_empty()),
        }),
        None => None,
    };
    Ok((Metric { key, point }, link))
}

async fn log(s: AppState, run_id: String, batch: Batch, single: bool) -> Reply {
    let watch = BatchWatch::of(&s.live, &batch.metrics, &batch.tags);
    let run = run_id.clone();
    let events = write_run(&s, &run, move |c| {
        let logged = log_batch::log_batch(c, &run_id, batch, single)?;
        Ok(watch
            .map(|w| w.events(c, &run_id, &logged))
            .unwrap_or_default())
    })
    .await?;
    s.live.publish_all(events);
    Ok(Json(json!({})))
}

/// Logs `batch` and links the metrics of `links` to their logged models, in one
/// transaction. Linking writes to a model: the caller needs CAN_EDIT on each model's
/// experiment too (as MLflow's auth app requires), so a run of one's own cannot put
/// metrics on another's model.
async fn log_linked(
    s: AppState,
    caller: Caller,
    run_id: String,
    batch: Batch,
    single: bool,
    links: Vec<MetricLink>,
) -> Reply {
    if links.is_empty() {
        return log(s, run_id, batch, single).await;
    }
    let watch = BatchWatch::of(&s.live, &batch.metrics, &batch.tags);
    let events = write(&s, move |c| {
        let mut checked = std::collections::HashSet::new();
        for l in &links {
            if checked.insert(l.model_id.as_str()) {
                logged::require_if_known(c, &caller, &l.model_id, Level::CanEdit)?;
            }
        }
        let done = log_batch::log_batch(c, &run_id, batch, single)?;
        logged::log_metrics(c, &run_id, &links)?;
        Ok(watch
            .map(|w| w.events(c, &run_id, &done))
            .unwrap_or_default())
    })
    .await?;
    s.live.publish_all(events);
    Ok(Json(json!({})))
}

/// `POST runs/log-metric`
pub(crate) async fn log_metric(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    let (metric, link) = metric(&f)?;
    let batch = Batch {
        metrics: vec![metric],
        ..Batch::default()
    };
    log_linked(s, caller, run_id, batch, true, link.into_iter().collect()).await
}

/// `POST runs/log-parameter`
pub(crate) async fn log_param(State(s): State<AppState>, Msg(f): Msg) -> Reply {
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
pub(crate) async fn set_tag(State(s): State<AppState>, Msg(f): Msg) -> Reply {
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
pub(crate) async fn delete_tag(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    let key = f.req_str("key")?;
    let run = run_id.clone();
    write_run(&s, &run, move |c| log_batch::delete_tag(c, &run_id, &key)).await?;
    Ok(Json(json!({})))
}

/// `POST runs/log-batch`
pub(crate) async fn log_batch(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    let mut metrics = Vec::new();
    let mut links = Vec::new();
    for m in f.msg_list("metrics")? {
        let (metric, link) = metric(&m)?;
        metrics.push(metric);
        links.extend(link);
    }
    let batch = Batch {
        metrics,
        params: f.key_values("params")?,
        tags: f.key_values("tags")?,
    };
    log_linked(s, caller, run_id, batch, false, links).await
}

/// `POST runs/log-inputs`: stores the run's dataset inputs (with their input tags) and
/// the logged models it takes as input (CAN_EDIT on their experiments, as MLflow's auth
/// app requires).
pub(crate) async fn log_inputs(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    let mut datasets = Vec::new();
    for input in f.msg_list("datasets")? {
        let mut tags = Vec::new();
        for tag in input.msg_list("tags")? {
            let key = tag.req_str("key")?;
            let value = tag.req_str("value")?;
            check_len("Dataset input tag key", &key, 255)?;
            check_len("Dataset input tag value", &value, 500)?;
            tags.push((key, value));
        }
        datasets.push(DatasetInput {
            tags,
            dataset: dataset(&input)?,
        });
    }
    // The first of a repeated name and digest wins (MLflow's rule).
    let mut seen = std::collections::HashSet::new();
    datasets.retain(|d| seen.insert((d.dataset.name.clone(), d.dataset.digest.clone())));
    let models = f
        .msg_list("models")?
        .iter()
        .map(|m| m.req_str("model_id"))
        .collect::<Result<Vec<_>, _>>()?;
    write(&s, move |c| {
        let run = crate::tracking::runs::get_active_info(c, &run_id)?;
        for m in &models {
            logged::require_if_known(c, &caller, m, Level::CanEdit)?;
        }
        inputs::log_inputs(c, run.experiment_id, &run_id, &datasets, &models)
    })
    .await?;
    Ok(Json(json!({})))
}

fn check_len(what: &str, v: &str, max: usize) -> Result<(), Error> {
    crate::tracking::validation::validate_length(what, v, max)
}

/// Decodes and validates the `dataset` message of a dataset input (name and digest
/// required; source type and source "" when absent, as MLflow reads them).
fn dataset(input: &Fields) -> Result<Dataset, Error> {
    let Some(ds) = input.msg("dataset")? else {
        return Err(input.missing("dataset"));
    };
    let name = ds.req_str("name")?;
    let digest = ds.req_str("digest")?;
    let source_type = ds.opt_str("source_type")?.unwrap_or_default();
    let source = ds.opt_str("source")?.unwrap_or_default();
    let schema = ds.opt_str("schema")?;
    let profile = ds.opt_str("profile")?;
    check_len("Dataset name", &name, 500)?;
    check_len("Dataset digest", &digest, 36)?;
    check_len("Dataset source", &source, 65535)?;
    check_len(
        "Dataset schema",
        schema.as_deref().unwrap_or_default(),
        (1 << 20) - 1,
    )?;
    check_len(
        "Dataset profile",
        profile.as_deref().unwrap_or_default(),
        (16 << 20) - 1,
    )?;
    Ok(Dataset {
        name,
        digest,
        source_type,
        source,
        schema,
        profile,
    })
}
