//! Demo data of artifacts and models, for `runlens serve --demo`: files on alice's run
//! `sft-7b-lr2e-5` (a training log, `config.json`, `plots/loss.png`, an `eval/` folder
//! with a CSV, a `model/` folder with an `MLmodel` file), its dataset inputs, the logged
//! model `sft-7b` it produced (with its own files), and the registered model
//! [`REGISTERED_MODEL`] whose version 1 is aliased `champion` (alice manages it, bob
//! reads it, as her experiment). Loaded once, after [`super::load`] (a marker in `meta`);
//! the files go through the server's artifact store, so `--artifacts-dir` and
//! `--artifacts-url` are honoured.

mod files;
mod png;

use std::sync::Arc;

use api_types::{Level, Principal, PrincipalKind};
use axum::body::Bytes;
use futures_util::StreamExt;

use super::people;
use crate::artifacts::{ArtifactPath, ArtifactStore};
use crate::db::Conn;
use crate::models::inputs::{self, Dataset, DatasetInput};
use crate::models::logged::{self, NewModel, Status};
use crate::registry::versions::{self, NewVersion};
use crate::registry::{aliases, grants, models};
use crate::store::meta;
use crate::tracking::{experiments, runs, write};
use crate::{AppState, Error};

/// Row in `meta` that marks these artifacts as loaded.
const MARKER: &str = "demo_artifacts_loaded";
/// The run that gets the files.
const RUN: &str = "sft-7b-lr2e-5";
/// The demo's registered model.
pub(crate) const REGISTERED_MODEL: &str = "sft-7b-chat";

/// A file to store: where, and its bytes.
type File = (ArtifactPath, Vec<u8>);

/// Loads the demo's artifacts, logged model, dataset inputs and registered model, once
/// (nothing when the demo itself is not loaded or this ran before). The rows are written
/// in one transaction, then the files are stored.
pub async fn load(state: &AppState) -> Result<(), Error> {
    let todo = state.store.call(|c| write(c, rows)).await?;
    for (path, bytes) in todo {
        put(&state.artifacts, &path, bytes).await?;
    }
    Ok(())
}

async fn put(
    store: &Arc<dyn ArtifactStore>,
    path: &ArtifactPath,
    bytes: Vec<u8>,
) -> Result<(), Error> {
    let body = futures_util::stream::once(async move { Ok(Bytes::from(bytes)) }).boxed();
    store.put(path, body, u64::MAX).await?;
    Ok(())
}

/// `files` under the folder of `uri` (an `mlflow-artifacts:` URI).
fn under(uri: &str, files: Vec<(&str, Vec<u8>)>) -> Result<Vec<File>, Error> {
    let root = ArtifactPath::from_uri(uri)?;
    files
        .into_iter()
        .map(|(rel, bytes)| Ok((root.join(rel)?, bytes)))
        .collect()
}

/// The demo run's id and artifact URI, if the demo is loaded.
fn demo_run(tx: &Conn) -> Result<Option<(i64, String, String)>, Error> {
    let exp = experiments::get_by_name(tx, people::ALICE_EXPERIMENT)?;
    let run = runs::find_by_name(tx, exp.experiment_id, RUN)?;
    Ok(run.map(|r| (exp.experiment_id, r.run_id, r.artifact_uri)))
}

/// Writes the rows; returns the files to store.
fn rows(tx: &Conn) -> Result<Vec<File>, Error> {
    if meta::get(tx, MARKER)?.is_some() || meta::get(tx, super::MARKER)?.is_none() {
        return Ok(Vec::new());
    }
    let Some((exp, run_id, run_uri)) = demo_run(tx)? else {
        return Ok(Vec::new());
    };
    inputs::log_inputs(tx, exp, &run_id, &datasets(), &[])?;
    let model = logged::create(
        tx,
        NewModel {
            experiment_id: exp,
            name: Some("sft-7b".into()),
            model_type: Some("transformers".into()),
            source_run_id: Some(run_id.clone()),
            params: vec![
                ("base_model".into(), "llama-7b".into()),
                ("max_new_tokens".into(), "256".into()),
            ],
            tags: vec![("task".into(), "text-generation".into())],
            creator: "alice".into(),
        },
    )?;
    logged::finalize(tx, &model.model_id, Status::Ready)?;
    register(tx, &run_id, &model.model_id, &model.artifact_uri)?;
    meta::set(tx, MARKER, "1")?;
    let mlmodel = files::mlmodel(&run_id, &model.model_id).into_bytes();
    let mut todo = under(
        &run_uri,
        vec![
            ("train.log", files::train_log().into_bytes()),
            ("config.json", files::config_json().into_bytes()),
            ("plots/loss.png", files::loss_png()),
            ("eval/samples.csv", files::samples_csv().into_bytes()),
            ("eval/summary.json", files::eval_summary().into_bytes()),
            ("model/MLmodel", mlmodel.clone()),
            ("model/requirements.txt", files::REQUIREMENTS.into()),
            ("model/python_env.yaml", files::PYTHON_ENV.into()),
        ],
    )?;
    todo.extend(under(
        &model.artifact_uri,
        vec![
            ("MLmodel", mlmodel),
            ("requirements.txt", files::REQUIREMENTS.into()),
            ("python_env.yaml", files::PYTHON_ENV.into()),
        ],
    )?);
    Ok(todo)
}

/// The run's training and evaluation datasets.
fn datasets() -> Vec<DatasetInput> {
    let input = |name: &str, digest: &str, url: &str, context: &str| DatasetInput {
        tags: vec![("mlflow.data.context".into(), context.into())],
        dataset: Dataset {
            name: name.into(),
            digest: digest.into(),
            source_type: "http".into(),
            source: serde_json::json!({ "url": url }).to_string(),
            schema: None,
            profile: None,
        },
    };
    vec![
        input(
            "alpaca-cleaned",
            "4b2e91c7",
            "https://huggingface.co/datasets/yahma/alpaca-cleaned",
            "training",
        ),
        input(
            "mt-bench",
            "9d03aa51",
            "https://huggingface.co/datasets/lmsys/mt_bench_human_judgments",
            "evaluation",
        ),
    ]
}

/// Registers the model as version 1 of [`REGISTERED_MODEL`], aliased `champion`; alice
/// manages it, bob reads it.
fn register(tx: &Conn, run_id: &str, model_id: &str, location: &str) -> Result<(), Error> {
    let id = models::create(
        tx,
        REGISTERED_MODEL,
        Some("Llama-7B fine-tuned on alpaca-cleaned: the chat model the demo serves."),
        &[("team".into(), "llm".into())],
        "alice",
    )?;
    if let Some(alice) = crate::auth::users::find_user_id(tx, "alice")? {
        grants::grant_creator(tx, id, alice)?;
    }
    let bob = Principal {
        kind: PrincipalKind::User,
        name: "bob".into(),
    };
    grants::set_grant(tx, id, &bob, Some(Level::CanRead))?;
    versions::create(
        tx,
        REGISTERED_MODEL,
        &NewVersion {
            source: format!("models:/{model_id}"),
            storage_location: location.into(),
            run_id: Some(run_id.into()),
            model_id: Some(model_id.into()),
            run_link: String::new(),
            description: "First SFT checkpoint that beats the base model on MT-Bench.".into(),
            tags: Vec::new(),
            user_id: "alice".into(),
        },
    )?;
    aliases::set(tx, REGISTERED_MODEL, "champion", 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifacts::Listing;
    use crate::Store;

    fn names(l: Listing) -> Vec<String> {
        match l {
            Listing::Dir(entries) => entries.into_iter().map(|e| e.name).collect(),
            other => panic!("not a folder: {other:?}"),
        }
    }

    #[tokio::test]
    async fn demo_artifacts_load_once_with_their_model_and_registration() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let state = AppState::new(store.clone());
        // Without the demo there is nothing to decorate.
        load(&state).await.unwrap();
        assert!(store.blocking(|c| meta::get(c, MARKER)).unwrap().is_none());

        super::super::load(&store).unwrap();
        load(&state).await.unwrap();
        load(&state).await.unwrap(); // a second start changes nothing
        let (run_uri, model) = store
            .blocking(|c| {
                let (_, run, uri) = demo_run(c)?.unwrap();
                let models = logged::of_runs(c, &[run])?;
                assert_eq!(models.len(), 1);
                let version = versions::get(c, REGISTERED_MODEL, 1)?;
                assert_eq!(
                    version.model_id.as_deref(),
                    Some(models[0].model_id.as_str())
                );
                assert_eq!(
                    aliases::version_of(c, REGISTERED_MODEL, "champion")?.version,
                    1
                );
                Ok((uri, models[0].clone()))
            })
            .unwrap();
        assert_eq!(model.status, Status::Ready);
        let root = ArtifactPath::from_uri(&run_uri).unwrap();
        let top = names(state.artifacts.list(&root).await.unwrap());
        assert_eq!(top, ["eval", "model", "plots", "config.json", "train.log"]);
        let model_root = ArtifactPath::from_uri(&model.artifact_uri).unwrap();
        let files = names(state.artifacts.list(&model_root).await.unwrap());
        assert_eq!(files, ["MLmodel", "python_env.yaml", "requirements.txt"]);
    }
}
