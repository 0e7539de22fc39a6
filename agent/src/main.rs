//! The `runlens-agent` binary.

use std::io::IsTerminal;
use std::process::ExitCode;

use agent::cli::{Cli, Command};
use clap::Parser;
use tracing_subscriber::EnvFilter;

// One thread serves: the agent answers a few requests per interval; sampling has its own.
#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let Command::Serve(args) = Cli::parse().command;
    match agent::serve::run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("{err}");
            ExitCode::FAILURE
        }
    }
}
