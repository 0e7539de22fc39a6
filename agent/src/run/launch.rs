//! One attempt's processes on this machine: started together (each with its own
//! environment and spool), their output copied to the terminal and spooled line by line,
//! the agent's signals forwarded to all of them, and the attempt's ending. The attempt fails
//! as soon as one process fails: the others are sent SIGTERM (SIGKILL after
//! `TERM_GRACE`), and the first failure is the attempt's ending.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use api_types::logs::LogStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::child::{self, Caught, Ending, Handle, Signals};
use super::lines::pump;
use super::spool::SpoolWriter;

/// How long the other processes get to stop after one failed, before SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(10);

/// How long after a process ended its output may still be read (a background process it
/// left behind may hold the pipe open forever).
const OUTPUT_GRACE: Duration = Duration::from_secs(5);

/// One process to start.
#[derive(Debug)]
pub struct Proc {
    /// Added to the agent's environment.
    pub env: Vec<(String, String)>,
    /// Where its lines go.
    pub spool: SpoolWriter,
    /// Whether it reads the agent's stdin (else `/dev/null`).
    pub with_stdin: bool,
}

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// The first failure, or success when every process exited 0.
    pub ending: Ending,
    /// The first signal the agent caught meanwhile (then no retry).
    pub caught: Option<Caught>,
}

/// Runs `command` once per `procs` entry until all have ended.
pub async fn run(command: &[String], procs: Vec<Proc>, signals: &mut Signals) -> Outcome {
    let program = command.first().map_or("", String::as_str);
    let mut handles: Vec<Option<Handle>> = Vec::new();
    let mut pumps: Vec<JoinHandle<()>> = Vec::new();
    let (done_tx, mut done) = mpsc::unbounded_channel();
    let mut failure = None;
    for (i, proc) in procs.into_iter().enumerate() {
        if failure.is_some() {
            break;
        }
        match child::spawn(command, &proc.env, proc.with_stdin) {
            Ok((started, output)) => {
                handles.push(Some(started.handle()));
                let spool = Arc::new(Mutex::new(proc.spool));
                pumps.push(tokio::spawn(pump(
                    output.stdout,
                    tokio::io::stdout(),
                    LogStream::Stdout,
                    spool.clone(),
                )));
                pumps.push(tokio::spawn(pump(
                    output.stderr,
                    tokio::io::stderr(),
                    LogStream::Stderr,
                    spool,
                )));
                let done_tx = done_tx.clone();
                tokio::spawn(async move {
                    let ending = started.wait().await.unwrap_or_else(|err| {
                        tracing::error!("lost track of process {i}: {err}");
                        Ending::Exited(1)
                    });
                    let _ = done_tx.send((i, ending));
                });
            }
            Err(err) => {
                tracing::error!("cannot run {program}: {err}");
                failure = Some(Ending::not_started(&err));
            }
        }
    }
    drop(done_tx);
    let mut caught = None;
    let mut kill_at: Option<Instant> = None;
    if failure.is_some() {
        stop_others(&handles, &mut kill_at);
    }
    let mut running = handles.iter().filter(|h| h.is_some()).count();
    while running > 0 {
        let kill = async {
            match kill_at {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            Some((i, ending)) = done.recv() => {
                handles[i] = None;
                running -= 1;
                if !ending.succeeded() && failure.is_none() {
                    failure = Some(ending);
                    if running > 0 {
                        tracing::warn!(
                            "process {i} ended ({ending:?}); stopping the other {running}"
                        );
                        stop_others(&handles, &mut kill_at);
                    }
                }
            }
            sig = signals.recv() => {
                caught.get_or_insert(sig);
                for handle in handles.iter().flatten() {
                    handle.forward(sig);
                }
            }
            () = kill => {
                tracing::warn!("{running} processes ignored SIGTERM; sending SIGKILL");
                for handle in handles.iter().flatten() {
                    handle.kill();
                }
                kill_at = None;
            }
        }
    }
    // The output ends when the processes are gone, unless something they left behind
    // holds the pipes: then stop reading after a grace period.
    let deadline = Instant::now() + OUTPUT_GRACE;
    for mut pump in pumps {
        if tokio::time::timeout_at(deadline, &mut pump).await.is_err() {
            tracing::debug!("output still open after the command ended; no longer read");
            pump.abort();
        }
    }
    Outcome {
        ending: failure.unwrap_or(Ending::Exited(0)),
        caught,
    }
}

/// SIGTERM to every process still running, and SIGKILL after [`TERM_GRACE`].
fn stop_others(handles: &[Option<Handle>], kill_at: &mut Option<Instant>) {
    for handle in handles.iter().flatten() {
        handle.terminate();
    }
    kill_at.get_or_insert(Instant::now() + TERM_GRACE);
}
