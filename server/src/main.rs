//! The `runlens` command line: `runlens serve`, and `user`, `group`, `token`, `grant` for
//! administrators who live in a terminal (they work on the data directory directly, also
//! while the server runs).

mod cli;

use clap::Parser;
use tracing_subscriber::EnvFilter;

/// The log filter: `RUNLENS_LOG` (default `info`). The PostgreSQL driver logs every
/// statement's parameters at debug level, which carry secrets (token and password hashes,
/// agent tokens), so it stays at `info` unless `RUNLENS_LOG` names `tokio_postgres` itself.
fn log_filter() -> EnvFilter {
    let spec = std::env::var("RUNLENS_LOG").unwrap_or_default();
    let filter = match EnvFilter::try_new(&spec) {
        Ok(f) if !spec.trim().is_empty() => f,
        _ => EnvFilter::new("info"),
    };
    if spec.contains("tokio_postgres") {
        filter
    } else {
        filter.add_directive("tokio_postgres=info".parse().expect("a valid directive"))
    }
}

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(log_filter())
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
