//! `runlens-agent serve`: start the sampler, then serve until Ctrl-C.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::cli::ServeArgs;
use crate::gpu::nvml::NvmlSource;
use crate::gpu::simulated::SimulatedSource;
use crate::gpu::{or_no_driver, GpuSource};
use crate::http::{router, AppState};
use crate::node::{now_ms, Sampler};
use crate::ring::capacity_for;

/// Why `serve` could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// No bearer token for `/v1/gpus`.
    #[error(
        "serve needs a bearer token for GET /v1/gpus: pass --token or set RUNLENS_AGENT_TOKEN"
    )]
    NoToken,
    /// The sampling thread could not start.
    #[error("cannot start the sampler: {0}")]
    Sampler(std::io::Error),
    /// The listen address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// The server stopped on an I/O error.
    #[error("server error: {0}")]
    Serve(std::io::Error),
}

/// The GPU source the flags ask for: simulated, or NVML (no driver → host only).
fn gpu_source(args: &ServeArgs) -> Box<dyn GpuSource> {
    match args.simulate_gpus {
        Some(count) => Box::new(SimulatedSource::new(count, args.seed)),
        None => or_no_driver(NvmlSource::init()),
    }
}

/// Runs the agent until Ctrl-C.
pub async fn run(args: ServeArgs) -> Result<(), ServeError> {
    let token = args
        .token
        .as_deref()
        .filter(|token| !token.trim().is_empty())
        .ok_or(ServeError::NoToken)?;
    let mut sampler = Sampler::new(gpu_source(&args));
    let mut node = sampler.node(
        args.node_name.clone(),
        capacity_for(args.history_secs, args.interval_secs),
    );
    node.ring.push(sampler.sample(now_ms()));
    let node = Arc::new(RwLock::new(node));
    let interval = Duration::from_secs(args.interval_secs);
    sampler
        .spawn(Arc::clone(&node), interval)
        .map_err(ServeError::Sampler)?;
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .map_err(|source| ServeError::Bind {
            addr: args.listen.clone(),
            source,
        })?;
    let local = listener.local_addr().map_err(ServeError::Serve)?;
    tracing::info!(node = %args.node_name, "listening on http://{local}");
    let app = router(AppState::new(node, token, args.metrics_token.as_deref()));
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(ServeError::Serve)
}
