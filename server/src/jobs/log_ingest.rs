//! An attempt's shipped lines into the log store: a batch checked against its attempt (the node must be one
//! of the job run's; sizes within the wire's limits), then stored exactly once under the
//! attempt's id.

use api_types::logs::{self as json, MAX_BATCH_LINES, MAX_LINE_BYTES};

use super::AttemptRef;
use crate::logs::{wire, Ack, LogStore};
use crate::Error;

/// Stores `batch` of `attempt` exactly once after [`check_batch`] (blocking: call it off
/// the async runtime).
pub(crate) fn ingest(
    logs: &LogStore,
    attempt: &AttemptRef,
    batch: json::LogBatch,
) -> Result<Ack, Error> {
    check_batch(attempt, &batch)?;
    logs.ingest(wire::batch(attempt.attempt_id, batch))
}

/// A shipped batch's node and sizes, before anything is stored.
pub(crate) fn check_batch(attempt: &AttemptRef, batch: &json::LogBatch) -> Result<(), Error> {
    if !attempt.nodes.contains(&batch.node) {
        let id = attempt.job_run_id;
        return Err(Error::InvalidParameter(format!(
            "node '{node}' is not a node of job run {id} (its nodes: {known}); add it first with \
             POST /api/v1/job-runs/{id}/nodes {{\"node\": \"{node}\"}} (runlens-agent run \
             --join {id} --node {node} does)",
            node = batch.node,
            known = if attempt.nodes.is_empty() {
                "none".to_owned()
            } else {
                attempt.nodes.join(", ")
            },
        )));
    }
    if batch.lines.is_empty() || batch.lines.len() > MAX_BATCH_LINES {
        return Err(Error::InvalidParameter(format!(
            "a log batch holds 1 to {MAX_BATCH_LINES} lines, got {}",
            batch.lines.len()
        )));
    }
    if let Some((i, l)) = batch
        .lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.text.len() > MAX_LINE_BYTES)
    {
        return Err(Error::InvalidParameter(format!(
            "line {i} of the batch (seq {}) has {} bytes; a line holds at most \
             {MAX_LINE_BYTES} bytes (split longer ones)",
            batch.first_seq.saturating_add(i as u64),
            l.text.len()
        )));
    }
    Ok(())
}
