//! What the app's pages show of logged models, with the registered versions made from
//! them: a run's inputs and outputs (the run overview) and a logged model's detail (the
//! model page), as the caller may see them.

use std::collections::{HashMap, HashSet};

use api_types as json;
use api_types::models::{
    DatasetInput, LoggedModelDetail, LoggedModelSummary, ModelVersionRef, RunIo,
};
use api_types::{Level, F64};

use super::grants::readable_sql;
use super::logged_tag;
use crate::auth::Caller;
use crate::db::Conn;
use crate::models::logged::{self, LoggedModel, ModelMetric};
use crate::models::{inputs, registrations};
use crate::permissions::{require_experiment, require_run};
use crate::tracking::{experiments, runs};
use crate::Error;

fn key_values(pairs: Vec<(String, String)>) -> Vec<json::KeyValue> {
    pairs
        .into_iter()
        .map(|(key, value)| json::KeyValue { key, value })
        .collect()
}

/// The datasets run `run_id` used (with their input tags), the logged models it took as
/// input, and the active logged models it produced (its outputs and the models naming it
/// as source run) that `caller` may read, oldest first.
pub(crate) fn run_io(c: &mut Conn, caller: &Caller, run_id: &str) -> Result<RunIo, Error> {
    let io = inputs::of_run(c, run_id)?;
    let mut produced = logged::of_runs(c, &[run_id.to_string()])?;
    let mut seen: HashSet<String> = produced.iter().map(|m| m.model_id.clone()).collect();
    for out in &io.model_outputs {
        if seen.insert(out.model_id.clone()) {
            match logged::get(c, &out.model_id) {
                Ok(m) => produced.push(m),
                Err(Error::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
    }
    produced.sort_by(|a, b| (a.creation_time, &a.model_id).cmp(&(b.creation_time, &b.model_id)));
    let mut readable: HashMap<i64, bool> = HashMap::new();
    let mut models = Vec::new();
    for m in produced {
        let ok = match readable.get(&m.experiment_id) {
            Some(ok) => *ok,
            None => {
                let ok = may_read(c, caller, m.experiment_id)?;
                readable.insert(m.experiment_id, ok);
                ok
            }
        };
        if ok {
            models.push(m);
        }
    }
    let models = summaries(c, caller, models)?;
    Ok(RunIo {
        datasets: io
            .datasets
            .into_iter()
            .map(|d| DatasetInput {
                name: d.dataset.name,
                digest: d.dataset.digest,
                source_type: d.dataset.source_type,
                source: d.dataset.source,
                schema: d.dataset.schema,
                profile: d.dataset.profile,
                tags: key_values(d.tags),
            })
            .collect(),
        model_inputs: io.model_inputs,
        models,
    })
}

/// Whether the caller may read experiment `id` (denials and unknown ids: no).
fn may_read(c: &Conn, caller: &Caller, id: i64) -> Result<bool, Error> {
    match require_experiment(c, caller, id, Level::CanRead) {
        Ok(_) => Ok(true),
        Err(Error::NotFound(_) | Error::PermissionDenied { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The app's summaries of `models`, with the registered versions made from each.
fn summaries(
    c: &Conn,
    caller: &Caller,
    models: Vec<LoggedModel>,
) -> Result<Vec<LoggedModelSummary>, Error> {
    let ids: Vec<String> = models.iter().map(|m| m.model_id.clone()).collect();
    let readable = readable_sql(c.engine(), caller, registrations::REGISTERED_MODEL_ID);
    let mut regs = registrations::of_models(c, &readable, &ids)?;
    Ok(models
        .into_iter()
        .map(|m| {
            let registrations = regs
                .remove(&m.model_id)
                .unwrap_or_default()
                .into_iter()
                .map(|(name, version)| ModelVersionRef {
                    name,
                    version: version.to_string(),
                })
                .collect();
            summary(m, registrations)
        })
        .collect())
}

fn summary(m: LoggedModel, registrations: Vec<ModelVersionRef>) -> LoggedModelSummary {
    LoggedModelSummary {
        model_id: m.model_id,
        name: m.name,
        experiment_id: m.experiment_id.to_string(),
        source_run_id: m.source_run_id,
        status: m.status.as_str().to_string(),
        model_type: m.model_type.filter(|t| !t.is_empty()),
        creation_time: m.creation_time,
        artifact_uri: m.artifact_uri,
        registrations,
    }
}

/// The latest value of each linked metric key (by time, then step), by key.
fn latest_metrics(metrics: &[ModelMetric]) -> Vec<json::LatestMetric> {
    let mut latest: Vec<&ModelMetric> = Vec::new();
    for m in metrics {
        match latest.iter_mut().find(|l| l.key == m.key) {
            Some(l) => {
                if (m.point.timestamp, m.point.step) > (l.point.timestamp, l.point.step) {
                    *l = m;
                }
            }
            None => latest.push(m),
        }
    }
    latest.sort_by(|a, b| a.key.cmp(&b.key));
    latest
        .into_iter()
        .map(|m| json::LatestMetric {
            key: m.key.clone(),
            value: F64(m.point.value),
            step: m.point.step,
            timestamp: m.point.timestamp,
        })
        .collect()
}

/// An active logged model with its params, tags (its `mlflow.modelVersions` as `caller`
/// may see it), latest linked metrics, experiment name and source run name (when `caller`
/// may read that run).
pub(crate) fn model_detail(
    c: &mut Conn,
    caller: &Caller,
    model_id: &str,
) -> Result<LoggedModelDetail, Error> {
    let mut m = logged::get(c, model_id)?;
    logged_tag::hide_unreadable(c, caller, std::slice::from_mut(&mut m))?;
    let experiment_name = experiments::get(c, m.experiment_id)?.name;
    let source_run_name = match &m.source_run_id {
        Some(run_id) => match require_run(c, caller, run_id, Level::CanRead) {
            Ok(_) => Some(runs::get_info(c, run_id)?.run_name),
            Err(Error::NotFound(_) | Error::PermissionDenied { .. }) => None,
            Err(e) => return Err(e),
        },
        None => None,
    };
    let metrics = latest_metrics(&m.metrics);
    let params = key_values(m.params.clone());
    let tags = key_values(m.tags.clone());
    let model = summaries(c, caller, vec![m])?
        .pop()
        .ok_or_else(|| Error::Internal("summary of one model is missing".into()))?;
    Ok(LoggedModelDetail {
        model,
        experiment_name,
        source_run_name,
        params,
        metrics,
        tags,
    })
}
