//! Ships one node's spooled lines of one attempt to the server
//! (`POST /api/v1/job-runs/{id}/attempts/{n}/logs`).
//!
//! A batch goes once [`BATCH_LINES`] lines wait or [`FLUSH_EVERY`] after lines started
//! waiting, whichever comes first, and at most about [`BATCH_BYTES`] of JSON. A batch that
//! fails (server down, timeout, 5xx, 401/403/404) is sent again, the same lines with the same
//! sequence numbers, after a back-off of 250 ms doubling to 5 s; the server drops lines it
//! already has, so a batch whose answer was lost costs nothing. A batch the server refuses as
//! malformed (400, 413, 422) is dropped with a warning so it cannot block the rest. The
//! ack's `next_seq` and `gaps` say what is stored: when they show a missing line this
//! shipper already sent, it goes back to it in the spool once and sends again from there.
//! When every line is acknowledged and the output has ended, the spool file is removed.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use api_types::logs::{LogAck, LogBatch, MAX_BATCH_BODY};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::child::Signals;
use super::jobs::Jobs;
use super::spool::SpoolReader;
use crate::client::ClientError;

/// Most lines in one batch.
pub const BATCH_LINES: usize = 5_000;
/// Lines wait at most this long for more before they go.
pub const FLUSH_EVERY: Duration = Duration::from_millis(200);
/// A batch stops growing once its lines' JSON reaches this size; one more line (at most
/// about 1.5 MB of JSON: [`api_types::logs::MAX_LINE_BYTES`] of escaped text) keeps the
/// body under [`MAX_BATCH_BODY`].
pub const BATCH_BYTES: usize = MAX_BATCH_BODY - 2 * 1024 * 1024;
/// The first retry after a failed batch; doubled after each failure up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// The longest wait between retries.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Where one node's lines of one attempt go.
#[derive(Debug, Clone)]
pub struct Target {
    /// The job run.
    pub job_run_id: i64,
    /// The attempt's number.
    pub attempt: u32,
    /// The node label.
    pub node: String,
}

/// A running shipper of one spool.
#[derive(Debug)]
pub struct LogShipper {
    target: Target,
    path: PathBuf,
    written: watch::Receiver<u64>,
    acked: Arc<AtomicU64>,
    task: JoinHandle<()>,
}

impl LogShipper {
    /// Starts shipping `spool` to `target`.
    pub fn start(jobs: Jobs, target: Target, spool: SpoolReader) -> Self {
        let acked = Arc::new(AtomicU64::new(0));
        let path = spool.path().to_owned();
        let written = spool.watch();
        let task = tokio::spawn(ship(jobs, target.clone(), spool, acked.clone()));
        Self {
            target,
            path,
            written,
            acked,
            task,
        }
    }
}

/// Waits (at most until `limit` has passed, or a signal arrives) for every shipper to
/// have shipped every line, and says in one line per shipper that did not where its lines
/// are kept. True when everything was shipped.
pub async fn drain(shippers: Vec<LogShipper>, limit: Duration, signals: &mut Signals) -> bool {
    let deadline = Instant::now() + limit;
    let mut interrupted = None;
    let mut all = true;
    for mut shipper in shippers {
        if interrupted.is_none() {
            tokio::select! {
                _ = tokio::time::sleep_until(deadline) => {}
                caught = signals.recv() => interrupted = Some(caught),
                _ = &mut shipper.task => continue,
            }
        } else if shipper.task.is_finished() {
            continue;
        }
        shipper.task.abort();
        all = false;
        let unsent = shipper
            .written
            .borrow()
            .saturating_sub(shipper.acked.load(Ordering::Relaxed));
        let Target { attempt, node, .. } = &shipper.target;
        eprintln!(
            "runlens-agent: {unsent} log lines of node {node} (attempt {attempt}) were not \
             shipped; they are kept in {}",
            shipper.path.display()
        );
    }
    if let Some(caught) = interrupted {
        tracing::warn!("{caught:?} while shipping the last log lines: stopped waiting");
    }
    all
}

/// Whether the server refused the batch itself (dropping it is the only way on).
fn refused(err: &ClientError) -> bool {
    err.status()
        .is_some_and(|s| matches!(s.as_u16(), 400 | 413 | 422))
}

/// The sequence number to send again from, when the ack shows a line below `end` (the
/// end of the batch just sent) missing.
fn missing_below(ack: &LogAck, end: u64) -> Option<u64> {
    ack.gaps
        .iter()
        .map(|g| g.first_missing)
        .chain([ack.next_seq])
        .filter(|&seq| seq < end)
        .min()
}

/// The shipping loop (see the module documentation).
async fn ship(jobs: Jobs, target: Target, mut spool: SpoolReader, acked: Arc<AtomicU64>) {
    let mut backoff = net::Backoff::new(FIRST_BACKOFF, MAX_BACKOFF);
    let mut failing = false;
    let mut closed = false;
    let mut batch: Option<LogBatch> = None;
    let mut last_resend = None;
    let Target {
        job_run_id,
        attempt,
        node,
    } = &target;
    loop {
        let Some(current) = &batch else {
            if spool.next_seq() >= spool.written() {
                if closed {
                    break;
                }
                closed = !spool.changed().await;
                continue;
            }
            // Lines wait: for a full batch, the flush period, or the end of the output.
            let deadline = Instant::now() + FLUSH_EVERY;
            while !closed && spool.written().saturating_sub(spool.next_seq()) < BATCH_LINES as u64 {
                tokio::select! {
                    more = spool.changed() => closed = !more,
                    _ = tokio::time::sleep_until(deadline) => break,
                }
            }
            let first_seq = spool.next_seq();
            match spool.read(BATCH_LINES, BATCH_BYTES) {
                Ok(lines) if lines.is_empty() => {}
                Ok(lines) => {
                    batch = Some(LogBatch {
                        node: node.clone(),
                        first_seq,
                        lines,
                    });
                }
                Err(err) => {
                    tracing::error!(
                        "cannot read the log spool {}: {err}; node {node}'s later lines are \
                         not shipped",
                        spool.path().display()
                    );
                    return;
                }
            }
            continue;
        };
        let end = current.first_seq + current.lines.len() as u64;
        match jobs.ship(*job_run_id, *attempt, current).await {
            Ok(ack) => {
                if std::mem::take(&mut failing) {
                    tracing::info!("shipping node {node}'s log lines recovered");
                }
                backoff.reset();
                batch = None;
                match missing_below(&ack, end) {
                    Some(seq) if last_resend != Some(seq) => {
                        tracing::warn!(
                            "the server lacks node {node}'s line {seq} (attempt {attempt}); \
                             sending again from there"
                        );
                        last_resend = Some(seq);
                        if let Err(err) = spool.seek(seq) {
                            tracing::error!("cannot go back in the log spool: {err}");
                            return;
                        }
                    }
                    _ => {}
                }
                acked.store(spool.next_seq(), Ordering::Relaxed);
            }
            Err(err) if refused(&err) => {
                tracing::warn!(
                    "the server refused {} log lines of node {node} (from {}): {err}; \
                     dropping them",
                    current.lines.len(),
                    current.first_seq
                );
                last_resend = Some(current.first_seq);
                batch = None;
                acked.store(end, Ordering::Relaxed);
            }
            Err(err) => {
                if !std::mem::replace(&mut failing, true) {
                    tracing::warn!(
                        "cannot ship node {node}'s log lines: {err}; they wait in {} and \
                         are retried with back-off (the command goes on)",
                        spool.path().display()
                    );
                }
                tokio::time::sleep(backoff.failed()).await;
            }
        }
    }
    spool.remove();
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_types::logs::LogGap;

    #[test]
    fn acks_showing_a_missing_line_below_the_batch_end_send_again_from_it() {
        let ack = |next_seq, gaps: &[(u64, u64)]| LogAck {
            stored: 1,
            duplicates: 0,
            next_seq,
            gaps: gaps
                .iter()
                .map(|&(first_missing, last_missing)| LogGap {
                    first_missing,
                    last_missing,
                })
                .collect(),
        };
        assert_eq!(missing_below(&ack(100, &[]), 100), None);
        assert_eq!(
            missing_below(&ack(150, &[]), 100),
            None,
            "others' lines beyond"
        );
        assert_eq!(
            missing_below(&ack(100, &[(10, 19), (40, 41)]), 100),
            Some(10)
        );
        assert_eq!(
            missing_below(&ack(60, &[]), 100),
            Some(60),
            "the server lost lines"
        );
        assert_eq!(missing_below(&ack(200, &[(150, 160)]), 100), None);
    }

    #[test]
    fn only_a_malformed_batch_is_dropped() {
        let status = |code: u16| ClientError::Status {
            method: reqwest::Method::POST,
            path: "/p".into(),
            status: reqwest::StatusCode::from_u16(code).unwrap(),
            message: String::new(),
        };
        for code in [400, 413, 422] {
            assert!(refused(&status(code)), "{code}");
        }
        for code in [401, 403, 404, 408, 429, 500, 502, 503] {
            assert!(!refused(&status(code)), "{code}");
        }
        let down = ClientError::Unreachable {
            url: "u".into(),
            reason: "refused".into(),
        };
        assert!(!refused(&down));
        assert_eq!(BATCH_BYTES + 2 * 1024 * 1024, MAX_BATCH_BODY);
    }
}
