//! The `runlens` command line: `runlens serve`.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use server::{AppState, StaticConfig, Store};
use tracing_subscriber::EnvFilter;

/// runlens: experiment tracking that speaks MLflow.
#[derive(Parser)]
#[command(name = "runlens", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the tracking API and the web app.
    Serve(ServeArgs),
}

#[derive(clap::Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "RUNLENS_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Directory for the database (created on first start).
    #[arg(long, env = "RUNLENS_DATA_DIR", default_value = "data")]
    data_dir: PathBuf,
    /// Directory of the built app (Trunk's output).
    #[arg(long, env = "RUNLENS_DIST", default_value = "dist")]
    dist: PathBuf,
    /// Load demo experiments and runs (once; later starts keep them).
    #[arg(long)]
    demo: bool,
}

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_env("RUNLENS_LOG").unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => serve(args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("runlens: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn serve(args: ServeArgs) -> Result<(), String> {
    let store = Store::open(&args.data_dir).map_err(|e| match e {
        server::Error::Internal(cause) => cause,
        other => other.to_string(),
    })?;
    if args.demo {
        server::demo::load(&store).map_err(|e| format!("loading demo data: {e:?}"))?;
    }
    let dist_dir = args
        .dist
        .join("index.html")
        .is_file()
        .then(|| args.dist.clone());
    if dist_dir.is_none() {
        tracing::warn!(dist = %args.dist.display(), "app not built; serving the APIs only");
    }
    let app = server::app(AppState::new(store), &StaticConfig { dist_dir });
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.addr))?;
        let local = listener.local_addr().map_err(|e| e.to_string())?;
        tracing::info!("runlens listening on http://{local}");
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown_signal())
            .await
            .map_err(|e| e.to_string())
    })?;
    tracing::info!("runlens stopped");
    Ok(())
}

/// Resolves on SIGINT or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}
