//! One process of an attempt: spawned with the run's environment, its stdout and stderr
//! piped (the launcher copies them to the terminal and ships them), how it ended, and the
//! agent's SIGINT/SIGTERM to forward to it.
//!
//! When stdin is not a terminal each process gets its own process group and every forwarded
//! signal goes to that group (as a terminal's Ctrl-C would), so `sh -c 'a | b'` stops as a
//! whole and a signal reaches it exactly once. On a terminal the processes stay in the
//! foreground group so they can read the terminal: Ctrl-C reaches them from the terminal
//! itself, so the agent forwards only SIGTERM (to each process).

use std::io::IsTerminal;
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::task::{Context, Poll, Waker};

use rustix::process::{kill_process, kill_process_group, Pid, Signal};
use tokio::process::{ChildStderr, ChildStdout};
use tokio::signal::unix::{signal, SignalKind};

use super::mlflow::RunStatus;

/// How a process (or an attempt) ended.
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

    /// The ending of a command that could not be started: the shell's 127 when the program
    /// was not found, 126 when it was found but could not be executed.
    pub fn not_started(err: &std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::NotFound {
            Self::Exited(127)
        } else {
            Self::Exited(126)
        }
    }

    /// True for exit code 0.
    pub fn succeeded(self) -> bool {
        self == Self::Exited(0)
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

/// A started process.
#[derive(Debug)]
pub struct Child {
    process: tokio::process::Child,
    handle: Handle,
}

/// What signals a started process: its pid and whether it leads its own group.
#[derive(Debug, Clone, Copy)]
pub struct Handle {
    pid: Option<Pid>,
    own_group: bool,
}

/// A process's piped output.
#[derive(Debug)]
pub struct Output {
    /// Its stdout.
    pub stdout: ChildStdout,
    /// Its stderr.
    pub stderr: ChildStderr,
}

/// Starts `command` (program and arguments) with `env` added to the agent's environment,
/// stdout and stderr piped, and the agent's stdin when `with_stdin` (else `/dev/null`).
pub fn spawn(
    command: &[String],
    env: &[(String, String)],
    with_stdin: bool,
) -> std::io::Result<(Child, Output)> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no command"))?;
    let own_group = !std::io::stdin().is_terminal();
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(if with_stdin {
            Stdio::inherit()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(false);
    if own_group {
        cmd.process_group(0);
    }
    let mut process = cmd.spawn()?;
    let pid = process
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(Pid::from_raw);
    let output = match (process.stdout.take(), process.stderr.take()) {
        (Some(stdout), Some(stderr)) => Output { stdout, stderr },
        // Both were asked for as pipes; tokio always provides them.
        _ => {
            return Err(std::io::Error::other(
                "the command's output pipes are missing",
            ))
        }
    };
    let handle = Handle { pid, own_group };
    Ok((Child { process, handle }, output))
}

impl Handle {
    fn send(self, sig: Signal) {
        let Some(pid) = self.pid else { return };
        let sent = if self.own_group {
            kill_process_group(pid, sig)
        } else {
            kill_process(pid, sig)
        };
        match sent {
            Ok(()) => tracing::debug!("sent {sig:?} to the command"),
            Err(err) => tracing::debug!("could not send {sig:?}: {err}"),
        }
    }

    /// Passes on a signal the agent received, as the module documentation says.
    pub fn forward(self, sig: Caught) {
        match sig {
            // On a terminal, the terminal already delivered it to the whole foreground group.
            Caught::Interrupt if !self.own_group => {}
            Caught::Interrupt => self.send(Signal::INT),
            Caught::Terminate => self.send(Signal::TERM),
        }
    }

    /// Asks the process (its group, when it has one) to stop: SIGTERM.
    pub fn terminate(self) {
        self.send(Signal::TERM);
    }

    /// Stops the process (its group, when it has one) for good: SIGKILL.
    pub fn kill(self) {
        self.send(Signal::KILL);
    }
}

impl Child {
    /// What signals it.
    pub fn handle(&self) -> Handle {
        self.handle
    }

    /// Waits for the process to end.
    pub async fn wait(mut self) -> std::io::Result<Ending> {
        self.process.wait().await.map(Ending::from_status)
    }
}

/// A signal the agent caught.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caught {
    /// SIGINT.
    Interrupt,
    /// SIGTERM.
    Terminate,
}

impl Caught {
    /// The signal's number (SIGINT 2, SIGTERM 15).
    pub fn number(self) -> i32 {
        match self {
            Caught::Interrupt => 2,
            Caught::Terminate => 15,
        }
    }
}

/// SIGINT and SIGTERM caught for the agent (installed before anything is created on the
/// server, so one that arrives while starting is noticed instead of killing the agent and
/// leaving the run RUNNING).
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

    /// The next signal.
    pub async fn recv(&mut self) -> Caught {
        loop {
            tokio::select! {
                Some(()) = self.interrupt.recv() => return Caught::Interrupt,
                Some(()) = self.terminate.recv() => return Caught::Terminate,
                else => std::future::pending::<()>().await,
            }
        }
    }

    /// A signal that already arrived, without waiting.
    pub fn try_recv(&mut self) -> Option<Caught> {
        let mut cx = Context::from_waker(Waker::noop());
        if let Poll::Ready(Some(())) = self.interrupt.poll_recv(&mut cx) {
            return Some(Caught::Interrupt);
        }
        if let Poll::Ready(Some(())) = self.terminate.poll_recv(&mut cx) {
            return Some(Caught::Terminate);
        }
        None
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
        assert!(exited(0).succeeded() && !exited(1).succeeded() && !killed(15).succeeded());
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
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert_eq!(Ending::not_started(&missing).exit_code(), 127);
        assert_eq!(Ending::not_started(&denied).exit_code(), 126);
    }
}
