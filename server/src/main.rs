//! The `runlens` command line: `runlens serve`, and `user`, `group`, `token`, `grant` for
//! administrators who live in a terminal (they work on the data directory directly, also
//! while the server runs).

mod cli;

use clap::Parser;
use tracing_subscriber::EnvFilter;

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_env("RUNLENS_LOG").unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    match cli::run(cli::Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("runlens: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
