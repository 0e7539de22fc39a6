//! A run's inputs and outputs: the datasets it used (one dataset row per experiment, name
//! and digest, as MLflow stores them; one input per run and dataset, with its input tags),
//! and the logged models it took as input or produced.

use std::collections::HashMap;

use crate::db::{params, Conn, OptionalExtension};

use crate::Error;

/// A dataset as logged (MLflow `Dataset`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dataset {
    /// Name.
    pub name: String,
    /// Digest (at most 36 characters).
    pub digest: String,
    /// Source type (`local`, `http`, `code`, ...).
    pub source_type: String,
    /// Source, JSON text.
    pub source: String,
    /// Schema, JSON text, if given.
    pub schema: Option<String>,
    /// Profile, JSON text, if given.
    pub profile: Option<String>,
}

/// A run's use of a dataset (MLflow `DatasetInput`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DatasetInput {
    /// Input tags, e.g. `mlflow.data.context` = `training`, sorted by key.
    pub tags: Vec<(String, String)>,
    /// The dataset.
    pub dataset: Dataset,
}

/// A model a run produced (MLflow `LoggedModelOutput`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModelOutput {
    /// `m-<32 hex>`.
    pub model_id: String,
    /// Step it was logged at.
    pub step: i64,
}

/// A run's inputs and outputs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RunIo {
    /// Datasets, in the order first logged.
    pub datasets: Vec<DatasetInput>,
    /// Logged models taken as input (ids), in the order logged.
    pub model_inputs: Vec<String>,
    /// Logged models produced, in the order logged.
    pub model_outputs: Vec<ModelOutput>,
}

/// Records dataset inputs (the first of a repeated name and digest wins, an input a run
/// already has is kept as it is) and model inputs of a run in `experiment_id`.
pub(crate) fn log_inputs(
    conn: &Conn,
    experiment_id: i64,
    run_id: &str,
    datasets: &[DatasetInput],
    model_ids: &[String],
) -> Result<(), Error> {
    for input in datasets {
        let ds = &input.dataset;
        conn.prepare_cached(
            "INSERT INTO datasets (experiment_id, name, digest, source_type, source, \
             schema, profile) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING",
        )?
        .execute(params![
            experiment_id,
            ds.name,
            ds.digest,
            ds.source_type,
            ds.source,
            ds.schema,
            ds.profile
        ])?;
        let dataset_id: i64 = conn
            .prepare_cached(
                "SELECT dataset_id FROM datasets WHERE experiment_id = ?1 AND name = ?2 \
                 AND digest = ?3",
            )?
            .query_row(params![experiment_id, ds.name, ds.digest], |r| r.get(0))?;
        let known: Option<i64> = conn
            .prepare_cached(
                "SELECT input_id FROM dataset_inputs WHERE run_uuid = ?1 AND dataset_id = ?2",
            )?
            .query_row(params![run_id, dataset_id], |r| r.get(0))
            .optional()?;
        if known.is_some() {
            continue;
        }
        let input_id: i64 = conn
            .prepare_cached(
                "INSERT INTO dataset_inputs (run_uuid, dataset_id) VALUES (?1, ?2) \
                 RETURNING input_id",
            )?
            .query_row(params![run_id, dataset_id], |r| r.get(0))?;
        let mut stmt = conn.prepare_cached(
            "INSERT INTO input_tags (input_id, key, value) VALUES (?1, ?2, ?3) \
             ON CONFLICT (input_id, key) DO UPDATE SET value = excluded.value",
        )?;
        for (k, v) in &input.tags {
            stmt.execute(params![input_id, k, v])?;
        }
    }
    for model_id in model_ids {
        link_model(conn, run_id, "input", model_id, 0)?;
    }
    Ok(())
}

/// Records models a run produced (`runs/outputs`).
pub(crate) fn log_outputs(conn: &Conn, run_id: &str, models: &[ModelOutput]) -> Result<(), Error> {
    for m in models {
        link_model(conn, run_id, "output", &m.model_id, m.step)?;
    }
    Ok(())
}

fn link_model(
    conn: &Conn,
    run_id: &str,
    direction: &str,
    model_id: &str,
    step: i64,
) -> Result<(), Error> {
    conn.prepare_cached(
        "INSERT INTO run_models (run_uuid, direction, model_id, step) \
         VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
    )?
    .execute(params![run_id, direction, model_id, step])?;
    Ok(())
}

/// The inputs and outputs of each of `run_ids` (a few IN queries per 500 runs).
pub(crate) fn of_runs(conn: &Conn, run_ids: &[String]) -> Result<HashMap<String, RunIo>, Error> {
    let mut out: HashMap<String, RunIo> = HashMap::new();
    for chunk in run_ids.chunks(500) {
        let marks = vec!["?"; chunk.len()].join(",");
        let p = crate::db::params_from_iter(chunk);
        let sql = format!(
            "SELECT i.run_uuid, i.input_id, d.name, d.digest, d.source_type, d.source, \
             d.schema, d.profile FROM dataset_inputs i JOIN datasets d USING (dataset_id) \
             WHERE i.run_uuid IN ({marks}) ORDER BY i.input_id"
        );
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(p.clone(), |r| {
            let dataset = Dataset {
                name: r.get(2)?,
                digest: r.get(3)?,
                source_type: r.get(4)?,
                source: r.get(5)?,
                schema: r.get(6)?,
                profile: r.get(7)?,
            };
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, dataset))
        })?;
        let mut inputs: HashMap<i64, (String, usize)> = HashMap::new();
        for row in rows {
            let (run_id, input_id, dataset) = row?;
            let io = out.entry(run_id.clone()).or_default();
            inputs.insert(input_id, (run_id, io.datasets.len()));
            io.datasets.push(DatasetInput {
                tags: Vec::new(),
                dataset,
            });
        }
        if !inputs.is_empty() {
            let sql = format!(
                "SELECT t.input_id, t.key, t.value FROM input_tags t \
                 JOIN dataset_inputs i USING (input_id) WHERE i.run_uuid IN ({marks}) \
                 ORDER BY t.input_id, t.key"
            );
            let mut stmt = conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(p.clone(), |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get(2)?))
            })?;
            for row in rows {
                let (input_id, k, v) = row?;
                if let Some((run_id, i)) = inputs.get(&input_id) {
                    if let Some(io) = out.get_mut(run_id) {
                        io.datasets[*i].tags.push((k, v));
                    }
                }
            }
        }
        let sql = format!(
            "SELECT run_uuid, direction, model_id, step FROM run_models \
             WHERE run_uuid IN ({marks}) ORDER BY {}",
            crate::db::sql::insertion_order(conn.engine())
        );
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(p, |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
            ))
        })?;
        for row in rows {
            let (run_id, direction, model_id, step) = row?;
            let io = out.entry(run_id).or_default();
            match direction.as_str() {
                "input" => io.model_inputs.push(model_id),
                _ => io.model_outputs.push(ModelOutput { model_id, step }),
            }
        }
    }
    Ok(out)
}

/// The inputs and outputs of one run.
pub(crate) fn of_run(conn: &Conn, run_id: &str) -> Result<RunIo, Error> {
    Ok(of_runs(conn, &[run_id.to_string()])?
        .remove(run_id)
        .unwrap_or_default())
}
