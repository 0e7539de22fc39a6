//! Jobs, job runs and attempts (`/jobs...`, `/job-runs...`, `/runs/{id}/job`): thin
//! handlers over [`crate::jobs`]. Ids come through the job guards; each write is one
//! transaction. The wire types and each route's rules are in `api_types::jobs`.

use api_types::jobs::{
    AddNode, Attempt, CreateAttempt, CreateJob, CreateJobRun, Job, JobRunDetail, JobRunList,
    RunJob, SetJobRunStatus,
};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;

use super::guard::{JobGuard, JobRunGuard, RunGuard, MANAGE_RUN, READ, VIEW};
use super::query::{experiment_id, json_body, QueryParams};
use crate::auth::Caller;
use crate::jobs::{self, NewJobRun};
use crate::tracking::{read, write};
use crate::{AppState, Error};

/// `POST /jobs`: the job called `name`, created (201, owned by the caller) or existing
/// (200, when the caller holds at least CAN_MANAGE_RUN on it; 403 naming its managers
/// otherwise).
pub(crate) async fn create_job(
    State(state): State<AppState>,
    caller: Caller,
    body: Bytes,
) -> Result<(StatusCode, Json<Job>), Error> {
    let req: CreateJob = json_body(&body, "{\"name\": \"<job name>\"}")?;
    let done = state
        .store
        .call(move |c| write(c, |tx| jobs::get_or_create_job(tx, &caller, &req.name)))
        .await?;
    let status = match done.created {
        true => StatusCode::CREATED,
        false => StatusCode::OK,
    };
    Ok((status, Json(done.job)))
}

/// `GET /jobs/{id}`
pub(crate) async fn get_job(
    State(state): State<AppState>,
    guard: JobGuard<VIEW>,
) -> Result<Json<Job>, Error> {
    let job = state
        .store
        .call(move |c| jobs::get_job(c, &guard.caller, guard.job_id))
        .await?;
    Ok(Json(job))
}

/// `POST /jobs/{id}/runs` with a [`CreateJobRun`]: submits a job run (201). CAN_EDIT on the
/// experiment is checked with the write.
pub(crate) async fn create_job_run(
    State(state): State<AppState>,
    guard: JobGuard<MANAGE_RUN>,
    body: Bytes,
) -> Result<(StatusCode, Json<JobRunDetail>), Error> {
    let req: CreateJobRun = json_body(
        &body,
        "{\"experiment_id\": \"<id>\", \"nodes\": [\"<node>\", ...], \"max_retries\": <0..100>}",
    )?;
    let new = NewJobRun {
        job_id: guard.job_id,
        experiment_id: experiment_id(&req.experiment_id)?,
        nodes: req.nodes,
        max_retries: req.max_retries,
    };
    let detail = state
        .store
        .call(move |c| {
            write(c, |tx| {
                let id = jobs::create_job_run(tx, &guard.caller, &new)?;
                jobs::job_run(tx, id)
            })
        })
        .await?;
    Ok((StatusCode::CREATED, Json(detail)))
}

/// `GET /job-runs?all_status=&limit=`: job runs whose job the caller may view, newest first.
pub(crate) async fn list_job_runs(
    State(state): State<AppState>,
    caller: Caller,
    query: QueryParams,
) -> Result<Json<JobRunList>, Error> {
    let filter = query.job_runs()?;
    let job_runs = state
        .store
        .call(move |c| read(c, |tx| jobs::list_job_runs(tx, &caller, filter)))
        .await?;
    Ok(Json(JobRunList { job_runs }))
}

/// `GET /job-runs/{id}`
pub(crate) async fn get_job_run(
    State(state): State<AppState>,
    guard: JobRunGuard<VIEW>,
) -> Result<Json<JobRunDetail>, Error> {
    let id = guard.job_run_id;
    let detail = state
        .store
        .call(move |c| read(c, |tx| jobs::job_run(tx, id)))
        .await?;
    Ok(Json(detail))
}

/// `POST /job-runs/{id}/attempts` with a [`CreateAttempt`] (or no body): starts the next
/// attempt and its MLflow run (201).
pub(crate) async fn create_attempt(
    State(state): State<AppState>,
    guard: JobRunGuard<MANAGE_RUN>,
    body: Bytes,
) -> Result<(StatusCode, Json<Attempt>), Error> {
    let req: CreateAttempt = match body.iter().all(u8::is_ascii_whitespace) {
        true => CreateAttempt::default(),
        false => json_body(&body, "{\"run_name\": \"<optional MLflow run name>\"}")?,
    };
    let (attempt, run) = state
        .store
        .call(move |c| {
            write(c, |tx| {
                let a = jobs::create_attempt(tx, &guard.caller, guard.job_run_id, req.run_name)?;
                let run = crate::tracking::runs::get_info(tx, &a.run_id)?;
                Ok((a, run))
            })
        })
        .await?;
    state.live.run_changed(&run);
    Ok((StatusCode::CREATED, Json(attempt)))
}

/// `POST /job-runs/{id}/nodes` with an [`AddNode`]: adds a node label (idempotent).
pub(crate) async fn add_node(
    State(state): State<AppState>,
    guard: JobRunGuard<MANAGE_RUN>,
    body: Bytes,
) -> Result<Json<JobRunDetail>, Error> {
    let req: AddNode = json_body(&body, "{\"node\": \"<node label>\"}")?;
    let id = guard.job_run_id;
    let detail = state
        .store
        .call(move |c| {
            write(c, |tx| {
                jobs::add_node(tx, id, &req.node)?;
                jobs::job_run(tx, id)
            })
        })
        .await?;
    Ok(Json(detail))
}

/// `POST /job-runs/{id}/status` with a [`SetJobRunStatus`].
pub(crate) async fn set_status(
    State(state): State<AppState>,
    guard: JobRunGuard<MANAGE_RUN>,
    body: Bytes,
) -> Result<Json<JobRunDetail>, Error> {
    let req: SetJobRunStatus = json_body(
        &body,
        "{\"status\": \"QUEUED\"|\"RUNNING\"|\"SUCCEEDED\"|\"FAILED\"|\"CANCELED\"}",
    )?;
    let id = guard.job_run_id;
    let (detail, ended) = state
        .store
        .call(move |c| {
            write(c, |tx| {
                let ended = jobs::set_status(tx, id, req.status)?;
                Ok((jobs::job_run(tx, id)?, ended))
            })
        })
        .await?;
    if let Some(run) = ended {
        state.live.run_changed(&run);
    }
    Ok(Json(detail))
}

/// `GET /runs/{id}/job`: the job behind the run (`{"job": null}` for a run no job
/// produced), with the caller's level, whether they may read its logs, its managers and
/// how far retention purged the attempt's lines.
pub(crate) async fn get_run_job(
    State(state): State<AppState>,
    guard: RunGuard<READ>,
) -> Result<Json<RunJob>, Error> {
    let RunGuard { run_id, caller, .. } = guard;
    let found = state
        .store
        .call(move |c| read(c, |tx| jobs::run_job(tx, &caller, &run_id)))
        .await?;
    let Some((attempt_id, mut info)) = found else {
        return Ok(Json(RunJob { job: None }));
    };
    if info.can_view_logs {
        info.logs_expired_through = state
            .store
            .logs()
            .call_read(move |c| crate::logs::store::expired_through(c, attempt_id))
            .await?;
    }
    Ok(Json(RunJob { job: Some(info) }))
}
