//! The MLflow tracking calls `run` makes (`/api/2.0/mlflow/...`), so it works against
//! runlens or any MLflow server: get-or-create the experiment, tag the run, log system
//! metrics in batches, and end the run (the runlens server creates each attempt's run).

use reqwest::StatusCode;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::metrics::Metric;
use crate::client::{ClientError, ServerClient};

const API: &str = "/api/2.0/mlflow";

/// How an MLflow run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// The command exited 0.
    Finished,
    /// The command exited non-zero (or could not start).
    Failed,
    /// The command was killed by a signal.
    Killed,
}

impl RunStatus {
    /// MLflow's name of the status.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Finished => "FINISHED",
            Self::Failed => "FAILED",
            Self::Killed => "KILLED",
        }
    }
}

#[derive(Deserialize)]
struct ExperimentAnswer {
    experiment: Experiment,
}

#[derive(Deserialize)]
struct Experiment {
    experiment_id: String,
}

#[derive(Deserialize)]
struct Created {
    experiment_id: String,
}

/// The body of `runs/log-batch` (serialized straight from the metrics, no JSON tree).
#[derive(Serialize)]
struct LogBatch<'a> {
    run_id: &'a str,
    metrics: &'a [Metric],
}

/// The MLflow tracking API of a server.
#[derive(Debug, Clone)]
pub struct Tracking {
    client: ServerClient,
}

impl Tracking {
    /// Tracking calls through `client`.
    pub fn new(client: ServerClient) -> Self {
        Self { client }
    }

    async fn experiment_by_name(&self, name: &str) -> Result<Option<String>, ClientError> {
        let path = format!("{API}/experiments/get-by-name");
        match self
            .client
            .get::<ExperimentAnswer>(&path, &[("experiment_name", name)])
            .await
        {
            Ok(answer) => Ok(Some(answer.experiment.experiment_id)),
            Err(err) if err.status() == Some(StatusCode::NOT_FOUND) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// The id of experiment `name`, created when missing (a concurrent creation by someone
    /// else is fine: the name is looked up again).
    pub async fn experiment_id(&self, name: &str) -> Result<String, ClientError> {
        if let Some(id) = self.experiment_by_name(name).await? {
            return Ok(id);
        }
        let created = self
            .client
            .post::<_, Created>(&format!("{API}/experiments/create"), &json!({"name": name}))
            .await;
        match created {
            Ok(created) => Ok(created.experiment_id),
            Err(err) => match self.experiment_by_name(name).await {
                Ok(Some(id)) => Ok(id),
                _ => Err(err),
            },
        }
    }

    /// Sets `tags` on run `run_id` (one `runs/log-batch` call).
    pub async fn set_tags(&self, run_id: &str, tags: &[(&str, &str)]) -> Result<(), ClientError> {
        let tags: Vec<_> = tags
            .iter()
            .map(|(key, value)| json!({"key": key, "value": value}))
            .collect();
        let body = json!({"run_id": run_id, "tags": tags});
        self.client
            .post::<_, IgnoredAny>(&format!("{API}/runs/log-batch"), &body)
            .await
            .map(drop)
    }

    /// Logs `metrics` (at most 1000) into run `run_id`.
    pub async fn log_batch(&self, run_id: &str, metrics: &[Metric]) -> Result<(), ClientError> {
        let body = LogBatch { run_id, metrics };
        self.client
            .post::<_, IgnoredAny>(&format!("{API}/runs/log-batch"), &body)
            .await
            .map(drop)
    }

    /// Ends run `run_id` with `status` at `end_ms`.
    pub async fn end_run(
        &self,
        run_id: &str,
        status: RunStatus,
        end_ms: i64,
    ) -> Result<(), ClientError> {
        let body = json!({
            "run_id": run_id,
            "run_uuid": run_id,
            "status": status.as_str(),
            "end_time": end_ms,
        });
        self.client
            .post::<_, IgnoredAny>(&format!("{API}/runs/update"), &body)
            .await
            .map(drop)
    }
}
