//! The `runlens-agent` binary.

use std::io::IsTerminal;
use std::process::ExitCode;

use agent::cli::{Cli, Command};
use clap::Parser;
use tracing_subscriber::EnvFilter;

// One thread serves (or runs): the agent answers a few requests per interval; sampling has
// its own thread.
#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    match Cli::parse().command {
        Command::Serve(args) => match agent::serve::run(args).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                tracing::error!("{err}");
                ExitCode::FAILURE
            }
        },
        Command::Run(args) => match agent::run::run(args).await {
            Ok(code) => ExitCode::from(code),
            Err(err) => {
                tracing::error!("{err}");
                ExitCode::from(agent::run::START_FAILED)
            }
        },
    }
}
