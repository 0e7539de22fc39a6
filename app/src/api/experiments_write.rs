//! Creating an experiment through MLflow's own endpoint
//! (`POST /ajax-api/2.0/mlflow/experiments/create`, as MLflow's UI does): the session
//! cookie authenticates and [`write`] sends the CSRF header. A refusal (a name already
//! taken: `RESOURCE_ALREADY_EXISTS`) comes back as an [`ApiError`] with MLflow's message.

use gloo_net::http::Method;
use serde::{Deserialize, Serialize};

use super::http::{write, ApiError};

/// MLflow's `experiments/create` endpoint under the app's prefix.
const CREATE: &str = "/ajax-api/2.0/mlflow/experiments/create";

/// Body of `experiments/create`.
#[derive(Debug, Serialize)]
struct CreateExperiment<'a> {
    name: &'a str,
}

/// Answer of `experiments/create`.
#[derive(Debug, Deserialize)]
struct Created {
    experiment_id: String,
}

/// Creates the experiment `name` (trimmed by the caller); returns its id.
pub async fn create_experiment(name: String) -> Result<String, ApiError> {
    let created: Created = write(Method::POST, CREATE, &CreateExperiment { name: &name }).await?;
    Ok(created.experiment_id)
}
