//! The runlens job calls the launcher makes (`/api/v1/jobs...`, `/api/v1/job-runs...`):
//! get-or-create the job, submit a job run, start each attempt (the server creates its
//! MLflow run), join a node, ship log batches, set the final status.

use api_types::jobs::{
    AddNode, Attempt, CreateAttempt, CreateJob, CreateJobRun, Job, JobRunDetail, JobRunStatus,
    SetJobRunStatus,
};
use api_types::logs::{LogAck, LogBatch};

use crate::client::{ClientError, ServerClient};

const API: &str = "/api/v1";

/// The job API of a runlens server.
#[derive(Debug, Clone)]
pub struct Jobs {
    client: ServerClient,
}

impl Jobs {
    /// Job calls through `client`.
    pub fn new(client: ServerClient) -> Self {
        Self { client }
    }

    /// The job called `name`, created (owned by the caller) when missing.
    pub async fn job(&self, name: &str) -> Result<Job, ClientError> {
        let body = CreateJob {
            name: name.to_owned(),
        };
        self.client.post(&format!("{API}/jobs"), &body).await
    }

    /// Submits a job run of job `job_id` (QUEUED, no attempt yet).
    pub async fn submit(
        &self,
        job_id: i64,
        run: &CreateJobRun,
    ) -> Result<JobRunDetail, ClientError> {
        self.client
            .post(&format!("{API}/jobs/{job_id}/runs"), run)
            .await
    }

    /// Job run `id` with its attempts.
    pub async fn job_run(&self, id: i64) -> Result<JobRunDetail, ClientError> {
        self.client.get(&format!("{API}/job-runs/{id}"), &[]).await
    }

    /// Starts the next attempt of job run `id`; the server creates its MLflow run.
    pub async fn start_attempt(
        &self,
        id: i64,
        run_name: Option<String>,
    ) -> Result<Attempt, ClientError> {
        self.client
            .post(
                &format!("{API}/job-runs/{id}/attempts"),
                &CreateAttempt { run_name },
            )
            .await
    }

    /// Adds node label `node` to job run `id` (nothing changes when it is there already).
    pub async fn add_node(&self, id: i64, node: &str) -> Result<JobRunDetail, ClientError> {
        let body = AddNode {
            node: node.to_owned(),
        };
        self.client
            .post(&format!("{API}/job-runs/{id}/nodes"), &body)
            .await
    }

    /// Sets job run `id`'s status.
    pub async fn set_status(
        &self,
        id: i64,
        status: JobRunStatus,
    ) -> Result<JobRunDetail, ClientError> {
        self.client
            .post(
                &format!("{API}/job-runs/{id}/status"),
                &SetJobRunStatus { status },
            )
            .await
    }

    /// Ships a batch of one node's lines of attempt `number` of job run `id`.
    pub async fn ship(
        &self,
        id: i64,
        number: u32,
        batch: &LogBatch,
    ) -> Result<LogAck, ClientError> {
        self.client
            .post(
                &format!("{API}/job-runs/{id}/attempts/{number}/logs"),
                batch,
            )
            .await
    }
}
