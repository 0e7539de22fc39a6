//! `runlens-agent serve`: start the sampler, register with the server when asked, then
//! serve until Ctrl-C.

use std::net::SocketAddr;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::cli::ServeArgs;
use crate::client::{ClientError, ServerClient};
use crate::gpu;
use crate::http::{router, AppState};
use crate::node::{hostname, now_ms, valid_node_name, Sampler, MAX_NODE_NAME};
use crate::register::{self, Advert};
use crate::ring::capacity_for;

/// How long one registration request may take.
const REGISTER_TIMEOUT: Duration = Duration::from_secs(5);

/// Why `serve` could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// No bearer token for `/v1/gpus`.
    #[error(
        "serve needs a bearer token for GET /v1/gpus: pass --token or set RUNLENS_AGENT_TOKEN"
    )]
    NoToken,
    /// `--server` without a credential for it.
    #[error(
        "registering with --server needs this node's credential: pass --credential-file \
         (a file made with `runlens node-credential create NODE-NAME`, mode 0600) or set \
         RUNLENS_NODE_CREDENTIAL_FILE"
    )]
    NoCredential,
    /// The credential file is unusable.
    #[error(transparent)]
    Credential(#[from] crate::credential::CredentialError),
    /// The TLS certificate or key is unusable.
    #[error("--tls-cert/--tls-key: {0}")]
    Tls(#[from] net::NetError),
    /// The node name is not one the server's registry accepts.
    #[error(
        "the node name {0:?} cannot be registered: use 1 to {MAX_NODE_NAME} of A-Z a-z 0-9 . _ - \
         (not only dots, not gpus or embed-links)"
    )]
    BadNodeName(String),
    /// The server URL is unusable.
    #[error(transparent)]
    Server(#[from] ClientError),
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

/// Where the server reaches an agent listening on `local`: `http(s)://<addr>` (https when
/// it serves TLS), with this machine's host name instead of an unspecified address (0.0.0.0
/// or ::), which no other machine can call.
pub fn default_advertise_url(local: SocketAddr, tls: bool) -> String {
    let scheme = if tls { "https" } else { "http" };
    if local.ip().is_unspecified() {
        format!("{scheme}://{}:{}", hostname(), local.port())
    } else {
        format!("{scheme}://{local}")
    }
}

/// Runs the agent until Ctrl-C.
pub async fn run(args: ServeArgs) -> Result<(), ServeError> {
    let token = args
        .token
        .as_deref()
        .filter(|token| !token.trim().is_empty())
        .ok_or(ServeError::NoToken)?;
    // Check the registration flags before binding, so a mistake fails at once.
    let server = match args.server.as_deref().filter(|s| !s.trim().is_empty()) {
        None => None,
        Some(url) => {
            if !valid_node_name(&args.node_name) {
                return Err(ServeError::BadNodeName(args.node_name.clone()));
            }
            let file = args
                .credential_file
                .clone()
                .ok_or(ServeError::NoCredential)?;
            let credential = crate::credential::read(&file)?;
            let client = ServerClient::new(
                url,
                Some(&credential),
                REGISTER_TIMEOUT,
                args.ca_cert.as_deref(),
            )?;
            Some((client, file))
        }
    };
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(net::server_config(cert, key)?),
        _ => None,
    };
    let mut sampler = Sampler::new(gpu::source(args.simulate_gpus, args.seed));
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
    let scheme = if tls.is_some() { "https" } else { "http" };
    tracing::info!(node = %args.node_name, "listening on {scheme}://{local}");
    if let Some((client, credential_file)) = server {
        let advert = Advert {
            url: args
                .advertise_url
                .clone()
                .unwrap_or_else(|| default_advertise_url(local, tls.is_some())),
            token: token.to_owned(),
            interval_secs: args.interval_secs,
        };
        tracing::info!(
            "registering with {} as {} at {}",
            client.base(),
            args.node_name,
            advert.url
        );
        let heartbeat = Duration::from_secs(args.heartbeat_secs);
        tokio::spawn(register::heartbeat(
            client,
            credential_file,
            Arc::clone(&node),
            advert,
            heartbeat,
        ));
    }
    let app = router(AppState::new(node, token, args.metrics_token.as_deref()));
    let stop = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match tls {
        Some(config) => {
            let listener = net::TlsListener::new(listener, config).map_err(ServeError::Serve)?;
            axum::serve(listener, app)
                .with_graceful_shutdown(stop)
                .await
        }
        None => {
            axum::serve(listener, app)
                .with_graceful_shutdown(stop)
                .await
        }
    }
    .map_err(ServeError::Serve)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advertise_url_defaults_to_the_listen_address() {
        let at = |s: &str| default_advertise_url(s.parse().unwrap(), false);
        assert_eq!(at("127.0.0.1:9401"), "http://127.0.0.1:9401");
        assert_eq!(at("[::1]:9401"), "http://[::1]:9401");
        assert_eq!(at("0.0.0.0:9400"), format!("http://{}:9400", hostname()));
        let tls = default_advertise_url("127.0.0.1:9401".parse().unwrap(), true);
        assert_eq!(tls, "https://127.0.0.1:9401");
    }
}
