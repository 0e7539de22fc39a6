//! The HTTP accept loop: HTTP/1.1 over hyper with the limits a public server needs and
//! `axum::serve` lacks — a header read timeout (also closing idle keep-alive connections),
//! a cap on open connections, and a graceful shutdown that lets requests in flight finish.
//! It serves plain TCP ([`tcp`]) or https ([`net::TlsListener`], `--tls-cert`/`--tls-key`),
//! any [`Listener`] whose connections are ready to speak HTTP.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::connect_info::ConnectInfo;
use axum::http::Request;
use axum::serve::{Listener, ListenerExt};
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::net::SocketAddr;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt;

/// Connection limits of [`serve`].
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// A client must send a request's complete headers within this time after the
    /// connection becomes idle (new, or between keep-alive requests); else it is closed.
    pub header_timeout: Duration,
    /// Most connections open at once; beyond it new connections are closed at once.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            max_connections: 16_384,
        }
    }
}

/// Raises this process's open-files soft limit to its hard limit (so the connection cap,
/// not the descriptor limit, decides when connections are refused). Returns the new limit.
pub fn raise_open_files_limit() -> Option<u64> {
    rlimit::increase_nofile_limit(u64::MAX).ok()
}

/// A plain TCP listener whose connections send small writes at once (no Nagle delay).
pub fn tcp(listener: TcpListener) -> impl Listener<Addr = SocketAddr> {
    listener.tap_io(|stream| {
        let _ = stream.set_nodelay(true);
    })
}

/// Serves `app` on `listener` until `shutdown` resolves, then waits for open requests.
pub async fn serve<L: Listener<Addr = SocketAddr>>(
    mut listener: L,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let (stop_tx, stop_rx) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        // The listener retries failed accepts itself (EMFILE and friends, with a pause).
        let (stream, peer) = tokio::select! {
            pair = listener.accept() => pair,
            () = &mut shutdown => break,
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            tracing::warn!(
                max = limits.max_connections,
                "connection limit reached; closing a new connection"
            );
            drop(stream);
            continue;
        };
        let router = app.clone();
        let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            router.clone().oneshot(req)
        });
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .keep_alive(true);
            let conn = builder
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = async { let _ = stop.wait_for(|s| *s).await; } => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
            drop(permit);
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    // Wait (bounded) until every connection has finished its request in flight.
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(Duration::from_secs(30), permits.acquire_many(all)).await;
}
