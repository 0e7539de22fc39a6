//! `runlens serve`: bootstrap the administrator, then serve until SIGINT/SIGTERM.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::http::HeaderName;
use server::auth::bootstrap::{announce_random_password, ensure_admin, Bootstrap};
use server::auth::AuthSettings;
use server::nodes::poller::{self, Poller};
use server::serve::Limits;
use server::{AppState, StaticConfig};

use super::{message, open_store};

#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "RUNLENS_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Directory of the built app (Trunk's output).
    #[arg(long, env = "RUNLENS_DIST", default_value = "dist")]
    dist: PathBuf,
    /// Load demo experiments and runs (once; later starts keep them).
    #[arg(long)]
    demo: bool,
    /// With --demo: a simulated GPU agent of the demo's two-node run, as NAME=URL
    /// (repeatable; `make run` starts them). Default: demo-node-1=http://127.0.0.1:9401 and
    /// demo-node-2=http://127.0.0.1:9402.
    #[arg(long = "demo-node", env = "RUNLENS_DEMO_NODES", value_delimiter = ',')]
    demo_nodes: Vec<String>,
    /// With --demo: the token the demo agents require (`runlens-agent serve --token`).
    #[arg(
        long,
        env = "RUNLENS_DEMO_AGENT_TOKEN",
        default_value = "demo-agent-token"
    )]
    demo_agent_token: String,
    /// Trust this header, set by an SSO reverse proxy, as the signed-in username (e.g.
    /// X-Forwarded-User). Only enable it when the proxy strips the header from clients.
    #[arg(long, env = "RUNLENS_TRUSTED_USER_HEADER")]
    trusted_user_header: Option<String>,
    /// Mark the session cookie Secure (set when users reach runlens over https through a
    /// proxy; on with --tls-cert).
    #[arg(long, env = "RUNLENS_SECURE_COOKIES")]
    secure_cookies: bool,
    /// Serve https with this certificate chain (PEM, leaf first); needs --tls-key.
    #[arg(
        long,
        env = "RUNLENS_TLS_CERT",
        requires = "tls_key",
        value_name = "FILE"
    )]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(
        long,
        env = "RUNLENS_TLS_KEY",
        requires = "tls_cert",
        value_name = "FILE"
    )]
    tls_key: Option<PathBuf>,
    /// A PEM file of CA certificates to trust besides the system's when calling GPU node
    /// agents served over https with a private CA.
    #[arg(long, env = net::CA_CERT_ENV, value_name = "FILE")]
    ca_cert: Option<PathBuf>,
    /// Origin allowed to frame `/embed/` pages, e.g. `https://notebooks.example.com`.
    #[arg(long, env = "RUNLENS_EMBED_ORIGIN")]
    embed_origin: Option<String>,
    /// Seconds a client has to send a request's headers (also how long an idle keep-alive
    /// connection stays open).
    #[arg(long, env = "RUNLENS_HEADER_TIMEOUT_SECS", default_value_t = 10)]
    header_timeout_secs: u64,
    /// Most connections open at once.
    #[arg(long, env = "RUNLENS_MAX_CONNECTIONS", default_value_t = 16_384)]
    max_connections: usize,
    /// Behind a reverse proxy: take the client's address from the last `X-Forwarded-For`
    /// entry (for sign-in rate limits). Only when the proxy sets that header.
    #[arg(long, env = "RUNLENS_TRUSTED_FORWARDED_FOR")]
    trusted_forwarded_for: bool,
    /// Days job runs' log lines are kept; older ones are purged at start and then hourly
    /// (0 keeps them forever).
    #[arg(
        long,
        env = "RUNLENS_LOG_RETENTION_DAYS",
        default_value_t = server::logs::retention::DEFAULT_DAYS
    )]
    log_retention_days: u32,
    /// Folder of the artifacts (default: `artifacts` in the data directory).
    #[arg(long, env = "RUNLENS_ARTIFACTS_DIR", conflicts_with = "artifacts_url")]
    artifacts_dir: Option<PathBuf>,
    /// Store artifacts in an S3-compatible bucket instead, as s3://bucket/prefix; endpoint,
    /// region and credentials from AWS_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID and
    /// AWS_SECRET_ACCESS_KEY (an http:// endpoint is allowed, for a local object store).
    #[arg(long, env = "RUNLENS_ARTIFACTS_URL")]
    artifacts_url: Option<String>,
    /// Largest artifact upload accepted, in bytes (larger ones get 413).
    #[arg(
        long,
        env = "RUNLENS_MAX_ARTIFACT_BYTES",
        default_value_t = server::artifacts::DEFAULT_MAX_UPLOAD
    )]
    max_artifact_bytes: u64,
}

/// Runs the server over `data_dir`.
pub(crate) fn serve(data: &super::DataDir, args: ServeArgs) -> Result<(), String> {
    let data_dir = data.data_dir.as_path();
    let store = open_store(data)?;
    bootstrap_admin(&store)?;
    if args.demo {
        server::demo::load(&store).map_err(|e| format!("loading demo data: {e:?}"))?;
        server::demo::register_nodes(&store, &args.demo_nodes, &args.demo_agent_token)
            .map_err(|e| format!("registering the demo's GPU agents: {e}"))?;
        eprintln!("{}", server::demo::sign_in_hint());
    }
    let settings = auth_settings(&args)?;
    let statics = static_config(&args)?;
    let logs = store.logs().clone();
    let demo_store = args.demo.then(|| store.clone());
    let artifacts = open_artifacts(data_dir, &args)?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(net::server_config(cert, key).map_err(|e| e.to_string())?),
        _ => None,
    };
    let poller = Poller::with_ca(poller::DEFAULT_TIMEOUT, args.ca_cert.as_deref())
        .map_err(|e| format!("--ca-cert: {e}"))?;
    let state = AppState::new(store)
        .with_auth_settings(settings)
        .with_nodes(server::nodes::NodeService::new(poller))
        .with_artifacts(artifacts, args.max_artifact_bytes.max(1));
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    if args.demo {
        rt.block_on(server::demo::load_artifacts(&state))
            .map_err(|e| format!("loading demo artifacts: {e:?}"))?;
    }
    let bus = state.live.clone();
    let app = server::app(state, &statics);
    let limits = Limits {
        header_timeout: Duration::from_secs(args.header_timeout_secs.max(1)),
        max_connections: args.max_connections.max(1),
    };
    if let Some(n) = server::serve::raise_open_files_limit() {
        tracing::debug!("open-files limit {n}");
    }
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.addr))?;
        let local = listener.local_addr().map_err(|e| e.to_string())?;
        let scheme = if tls.is_some() { "https" } else { "http" };
        tracing::info!("runlens listening on {scheme}://{local}");
        tokio::spawn(server::logs::retention::run(
            logs.clone(),
            args.log_retention_days,
        ));
        if let Some(store) = demo_store {
            // A run of the shared detection experiment and the running fine-tuning job
            // keep training, so their tables, charts, run pages and Logs tab move on their
            // own.
            tokio::spawn(server::demo::live_runs(store, bus));
        }
        let shutdown = async move {
            shutdown_signal().await;
            // Open log streams end now instead of holding the graceful shutdown.
            logs.close_followers();
        };
        match tls {
            Some(config) => {
                let listener =
                    net::TlsListener::new(listener, config).map_err(|e| e.to_string())?;
                server::serve::serve(listener, app, limits, shutdown).await;
            }
            None => server::serve::serve(server::serve::tcp(listener), app, limits, shutdown).await,
        }
        Ok::<(), String>(())
    })?;
    tracing::info!("runlens stopped");
    Ok(())
}

/// The artifact store: `--artifacts-url`, else `--artifacts-dir`, else `<data dir>/artifacts`.
fn open_artifacts(
    data_dir: &Path,
    args: &ServeArgs,
) -> Result<std::sync::Arc<dyn server::artifacts::ArtifactStore>, String> {
    use server::artifacts::Location;
    let location = match (&args.artifacts_url, &args.artifacts_dir) {
        (Some(url), _) if !url.trim().is_empty() => Location::Url(url.trim().to_owned()),
        (_, Some(dir)) if !dir.as_os_str().is_empty() => Location::Dir(dir.clone()),
        _ => Location::Dir(data_dir.join("artifacts")),
    };
    let store = server::artifacts::open(&location).map_err(|e| e.to_string())?;
    tracing::info!("artifacts in {location:?}");
    Ok(store)
}

/// Creates `admin` on first start; a random password goes to stderr once, never to logs.
fn bootstrap_admin(store: &server::Store) -> Result<(), String> {
    let given = std::env::var("RUNLENS_ADMIN_PASSWORD")
        .ok()
        .filter(|p| !p.is_empty());
    match ensure_admin(store, given.as_deref()).map_err(message)? {
        Bootstrap::AdminExists => {}
        Bootstrap::CreatedWithGivenPassword => {
            tracing::info!(
                "created administrator 'admin' with the password from RUNLENS_ADMIN_PASSWORD"
            );
        }
        Bootstrap::CreatedWithRandomPassword(p) => eprintln!("{}", announce_random_password(&p)),
    }
    Ok(())
}

fn auth_settings(args: &ServeArgs) -> Result<AuthSettings, String> {
    let trusted_user_header = match args.trusted_user_header.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(h) => Some(
            HeaderName::from_bytes(h.as_bytes())
                .map_err(|_| format!("invalid --trusted-user-header {h:?}"))?,
        ),
    };
    if let Some(h) = &trusted_user_header {
        tracing::warn!(header = %h, "trusting the reverse proxy's user header; make sure the proxy strips it from client requests");
    }
    Ok(AuthSettings {
        trusted_user_header,
        secure_cookies: args.secure_cookies || args.tls_cert.is_some(),
        trusted_forwarded_for: args.trusted_forwarded_for,
    })
}

fn static_config(args: &ServeArgs) -> Result<StaticConfig, String> {
    if let Some(o) = &args.embed_origin {
        server::headers::validate_embed_origin(o)?;
    }
    let dist_dir = args
        .dist
        .join("index.html")
        .is_file()
        .then(|| args.dist.clone());
    if dist_dir.is_none() {
        tracing::warn!(dist = %args.dist.display(), "app not built; serving the APIs only");
    }
    Ok(StaticConfig {
        dist_dir,
        embed_origin: args.embed_origin.clone(),
    })
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
