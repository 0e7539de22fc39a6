//! The demo's jobs: alice's two-node fine-tuning job `sft-7b-lr1e-4` whose first attempt
//! diverged (traceback) and whose retry finished — bob may view it — and her running job
//! `sft-13b` on the demo GPU nodes, which bob (a reader of the experiment) may not view, so
//! its Logs tab shows the access message. Their output lines go to the log store after the
//! demo's transaction commits; the live demo (`live_sft`) keeps the running job printing
//! while the server runs with `--demo`.

use api_types::{JobLevel, JobRunStatus, Principal, PrincipalKind};

use super::job_logs::{self, Attempt};
use super::llm::{self, expected_loss, JobRuns};
use super::writer::Timeline;
use super::{people, DEMO_NODES, MINUTE, SEED};
use crate::db::Conn;
use crate::jobs::{self, link_attempt, NewJobRun};
use crate::logs::{Batch, NewLine};
use crate::permissions::caller_for;
use crate::{Error, Store};

/// The job whose first attempt failed and whose retry succeeded.
pub(crate) const RETRIED_JOB: &str = "sft-7b-lr1e-4";
/// The running job bob may not view.
pub(crate) const RUNNING_JOB: &str = "sft-13b";

/// Log lines to store for one attempt once the demo's transaction has committed.
pub(crate) struct PendingLogs {
    /// The attempt (the log store's key).
    attempt_id: i64,
    /// Per node label, its lines.
    nodes: Vec<(String, Vec<NewLine>)>,
}

fn run_times(conn: &Conn, run_id: &str) -> Result<(i64, Option<i64>), Error> {
    let info = crate::tracking::runs::get_info(conn, run_id)?;
    Ok((info.start_time, info.end_time))
}

/// Creates the demo jobs, job runs and attempts (linking the runs `llm` wrote) inside the
/// demo's transaction; answers the lines to store afterwards with [`store_logs`].
pub(crate) fn load(conn: &Conn, runs: &JobRuns) -> Result<Vec<PendingLogs>, Error> {
    let Some(exp) = crate::tracking::experiments::find_id_by_name(conn, people::ALICE_EXPERIMENT)?
    else {
        return Ok(Vec::new());
    };
    let alice = caller_for(conn, "alice")?;
    let nodes: Vec<String> = DEMO_NODES.iter().map(|n| (*n).to_owned()).collect();
    let mut pending = Vec::new();

    // The retried job: attempt 1 diverged at step 5,420, attempt 2 resumed from 5,000.
    let job = jobs::get_or_create_job(conn, &alice, RETRIED_JOB)?.job;
    let bob = Principal {
        kind: PrincipalKind::User,
        name: "bob".into(),
    };
    jobs::set_grant(conn, job.job_id, &bob, JobLevel::CanView)?;
    let job_run = jobs::create_job_run(
        conn,
        &alice,
        &NewJobRun {
            job_id: job.job_id,
            experiment_id: exp,
            nodes: nodes.clone(),
            max_retries: 1,
        },
    )?;
    let (failed, resumed) = (&runs.failed, &runs.resumed);
    let (f_start, _) = run_times(conn, failed)?;
    let (r_start, r_end) = run_times(conn, resumed)?;
    link_attempt(conn, job_run, 1, failed)?;
    link_attempt(conn, job_run, 2, resumed)?;
    jobs::set_status(conn, job_run, JobRunStatus::Succeeded)?;
    jobs::set_times(conn, job_run, f_start - 2 * MINUTE, r_end)?;
    let attempt_1 = Attempt {
        run_name: "sft-7b-lr1e-4",
        tl: Timeline {
            start: f_start,
            step_ms: 620,
            first: 0,
            last: 5_420,
        },
        lr: 1e-4,
        max_steps: 12_000,
        loss: &|s| expected_loss(1e-4, 1.02, s),
        fails_at: Some(5_420),
        resumed_from: None,
        running: false,
    };
    let attempt_2 = Attempt {
        run_name: "sft-7b-lr1e-4-resumed",
        tl: Timeline {
            start: r_start,
            step_ms: 620,
            first: 5_000,
            last: 12_000,
        },
        lr: 5e-5,
        max_steps: 12_000,
        loss: &|s| expected_loss(5e-5, 1.02, s),
        fails_at: None,
        resumed_from: Some(5_000),
        running: false,
    };
    for (number, a) in [(1, attempt_1), (2, attempt_2)] {
        pending.push(pending_for(conn, job_run, number, &a, &nodes)?);
    }

    // The running job, not shared with bob.
    let job = jobs::get_or_create_job(conn, &alice, RUNNING_JOB)?.job;
    let job_run = jobs::create_job_run(
        conn,
        &alice,
        &NewJobRun {
            job_id: job.job_id,
            experiment_id: exp,
            nodes: nodes.clone(),
            max_retries: 2,
        },
    )?;
    let (start, _) = run_times(conn, &runs.running)?;
    link_attempt(conn, job_run, 1, &runs.running)?;
    jobs::set_status(conn, job_run, JobRunStatus::Running)?;
    jobs::set_times(conn, job_run, start - 2 * MINUTE, None)?;
    // Its lines end at the step its metrics end at; the live demo prints the next ones.
    let sft = llm::running(start);
    let loss = |s| sft.expected_loss(s);
    let a = running_attempt(&sft, &loss);
    pending.push(pending_for(conn, job_run, 1, &a, &nodes)?);
    Ok(pending)
}

/// The running job's attempt as its log lines show it: `sft`'s steps, up to its `max_steps`.
pub(crate) fn running_attempt<'a>(
    sft: &'a llm::Sft<'a>,
    loss: &'a dyn Fn(i64) -> f64,
) -> Attempt<'a> {
    Attempt {
        run_name: sft.name,
        tl: sft.tl,
        max_steps: sft.max_steps,
        loss,
        lr: sft.lr,
        fails_at: None,
        resumed_from: None,
        running: true,
    }
}

/// The seed of the lines of attempt `number` of job run `job_run`.
pub(crate) fn lines_seed(job_run: i64, number: u32) -> u64 {
    SEED ^ ((job_run as u64) << 8) ^ u64::from(number)
}

fn pending_for(
    conn: &Conn,
    job_run: i64,
    number: u32,
    a: &Attempt<'_>,
    nodes: &[String],
) -> Result<PendingLogs, Error> {
    let attempt_id = jobs::attempt(conn, job_run, number)?.attempt_id;
    let nodes = nodes
        .iter()
        .enumerate()
        .map(|(rank, node)| {
            let lines = job_logs::lines(a, rank, nodes.len(), lines_seed(job_run, number));
            (node.clone(), lines)
        })
        .collect();
    Ok(PendingLogs { attempt_id, nodes })
}

/// Stores the demo's lines (idempotent: a second call stores nothing, by sequence number).
pub(crate) fn store_logs(store: &Store, pending: Vec<PendingLogs>) -> Result<(), Error> {
    for p in pending {
        for (node, lines) in p.nodes {
            for (i, chunk) in lines.chunks(20_000).enumerate() {
                store.logs().ingest(Batch {
                    job_run_id: p.attempt_id,
                    node: node.clone(),
                    first_seq: (i * 20_000) as u64,
                    lines: chunk.to_vec(),
                })?;
            }
        }
    }
    Ok(())
}
