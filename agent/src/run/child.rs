//! The command `run` starts: spawned with the run's environment and the terminal's
//! stdin/stdout/stderr, SIGINT and SIGTERM forwarded to it, and how it ended.
//!
//! When stdin is not a terminal the command gets its own process group and every forwarded
//! signal goes to that group (as a terminal's Ctrl-C would), so `sh -c 'a | b'` stops as a
//! whole and a signal reaches it exactly once. On a terminal the command stays in the
//! foreground group so it can read the terminal: Ctrl-C reaches it from the terminal itself,
//! so the agent forwards only SIGTERM (to the command's process).

use std::io::IsTerminal;
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};

use rustix::process::{kill_process, kill_process_group, Pid, Signal};
use tokio::signal::unix::{signal, SignalKind};

use super::mlflow::RunStatus;

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this code.
    Exited(i32),
    /// A signal (this number) killed it.
    Signalled(i32),
}

impl Ending {
    /// From the process's exit status.
    pub fn from_status(status: ExitStatus) -> Self {
        match (status.code(), status.signal()) {
            (Some(code), _) => Self::Exited(code),
            (None, Some(signal)) => Self::Signalled(signal),
            // Neither is impossible on Unix for a finished process; call it a failure.
            (None, None) => Self::Exited(1),
        }
    }

    /// The agent's own exit code: the command's, or 128 + the signal like a shell.
    pub fn exit_code(self) -> u8 {
        let code = match self {
            Self::Exited(code) => code,
            Self::Signalled(signal) => 128 + signal,
        };
        u8::try_from(code & 0xff).unwrap_or(1)
    }

    /// The MLflow run's final status: FINISHED for 0, FAILED for another code, KILLED for a
    /// signal.
    pub fn run_status(self) -> RunStatus {
        match self {
            Self::Exited(0) => RunStatus::Finished,
            Self::Exited(_) => RunStatus::Failed,
            Self::Signalled(_) => RunStatus::Killed,
        }
    }
}

/// A started command.
#[derive(Debug)]
pub struct Child {
    process: tokio::process::Child,
    pid: Option<Pid>,
    own_group: bool,
}

/// Starts `command` (program and arguments) with `env` added to the agent's environment.
pub fn spawn(command: &[String], env: &[(&str, String)]) -> std::io::Result<Child> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no command"))?;
    let own_group = !std::io::stdin().is_terminal();
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .kill_on_drop(false);
    if own_group {
        cmd.process_group(0);
    }
    let process = cmd.spawn()?;
    let pid = process
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(Pid::from_raw);
    Ok(Child {
        process,
        pid,
        own_group,
    })
}

impl Child {
    /// Sends `sig` on, as the module documentation says.
    fn forward(&self, sig: Signal, from_terminal_too: bool) {
        let Some(pid) = self.pid else { return };
        let sent = if self.own_group {
            kill_process_group(pid, sig)
        } else if from_terminal_too {
            // The terminal already delivered it to the whole foreground group.
            return;
        } else {
            kill_process(pid, sig)
        };
        match sent {
            Ok(()) => tracing::debug!("forwarded {sig:?} to the command"),
            Err(err) => tracing::debug!("could not forward {sig:?}: {err}"),
        }
    }

    /// Waits for the command to end, forwarding SIGINT and SIGTERM to it meanwhile
    /// (including any that arrived since `signals` was installed).
    pub async fn wait(mut self, signals: &mut Signals) -> std::io::Result<Ending> {
        loop {
            tokio::select! {
                status = self.process.wait() => return status.map(Ending::from_status),
                Some(()) = signals.interrupt.recv() => self.forward(Signal::INT, true),
                Some(()) = signals.terminate.recv() => self.forward(Signal::TERM, false),
            }
        }
    }
}

/// SIGINT and SIGTERM caught for the agent (installed before the run is created, so one
/// that arrives while starting is forwarded to the command instead of killing the agent
/// and leaving the run RUNNING).
#[derive(Debug)]
pub struct Signals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    /// Catches SIGINT and SIGTERM from now on.
    pub fn install() -> std::io::Result<Self> {
        Ok(Self {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_and_statuses() {
        let exited = |c| Ending::from_status(ExitStatus::from_raw(c << 8));
        let killed = |s| Ending::from_status(ExitStatus::from_raw(s));
        assert_eq!(exited(0), Ending::Exited(0));
        assert_eq!(exited(0).run_status(), RunStatus::Finished);
        assert_eq!(
            (exited(3).exit_code(), exited(3).run_status()),
            (3, RunStatus::Failed)
        );
        assert_eq!(killed(15), Ending::Signalled(15));
        assert_eq!(
            (killed(15).exit_code(), killed(15).run_status()),
            (143, RunStatus::Killed)
        );
        assert_eq!(killed(9).exit_code(), 137);
    }
}
