//! Serving https: a rustls server configuration from PEM files (`--tls-cert`, `--tls-key`),
//! and [`TlsListener`], a listener whose connections are already through their handshake,
//! for `axum::serve` (the agent) and the server's own accept loop alike.
//!
//! Handshakes run in tasks of their own, each bounded in time, and at most
//! [`MAX_HANDSHAKES`] at once: a client that opens a connection and sends nothing holds no
//! accept and no other client back.

use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, Semaphore};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{self, ServerConfig};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

use crate::NetError;

/// Most TLS handshakes in progress at once; further connections wait for a free one.
pub const MAX_HANDSHAKES: usize = 512;

/// How long a client has to finish its TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A rustls server configuration serving the certificate chain in `cert` (PEM, leaf first)
/// with the private key in `key` (PEM: PKCS#8, PKCS#1 or SEC1), offering HTTP/1.1.
pub fn server_config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, NetError> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|e| NetError::Pem {
            path: path.display().to_string(),
            why: format!("cannot read: {e}"),
        })
    };
    let pem_error = |path: &Path, why: &str| NetError::Pem {
        path: path.display().to_string(),
        why: why.to_owned(),
    };
    let cert_pem = read(cert)?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|_| pem_error(cert, "not a PEM file of certificates"))?;
    if chain.is_empty() {
        return Err(pem_error(cert, "holds no PEM certificate"));
    }
    let key_pem = read(key)?;
    let key_der = PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|_| pem_error(key, "holds no PEM private key"))?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| NetError::Tls(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, key_der)
        .map_err(|e| NetError::Tls(format!("{}: {e}", cert.display())))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// A TCP listener whose accepted connections have completed a TLS handshake.
pub struct TlsListener {
    local: SocketAddr,
    ready: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
}

impl TlsListener {
    /// Serves TLS with `config` on `tcp`: accepts in a task of its own until the listener
    /// is dropped, handshaking each connection in a task bounded by [`HANDSHAKE_TIMEOUT`].
    pub fn new(tcp: TcpListener, config: Arc<ServerConfig>) -> io::Result<TlsListener> {
        let local = tcp.local_addr()?;
        let (tx, ready) = mpsc::channel(64);
        tokio::spawn(accept_loop(tcp, TlsAcceptor::from(config), tx));
        Ok(TlsListener { local, ready })
    }
}

async fn accept_loop(
    tcp: TcpListener,
    acceptor: TlsAcceptor,
    tx: mpsc::Sender<(TlsStream<TcpStream>, SocketAddr)>,
) {
    let slots = Arc::new(Semaphore::new(MAX_HANDSHAKES));
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let (stream, peer) = tokio::select! {
            accepted = tcp.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // EMFILE and friends: back off briefly instead of spinning.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = tx.closed() => return,
        };
        let _ = stream.set_nodelay(true);
        let (acceptor, tx) = (acceptor.clone(), tx.clone());
        tokio::spawn(async move {
            let handshake = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream));
            match handshake.await {
                Ok(Ok(tls)) => {
                    drop(slot);
                    let _ = tx.send((tls, peer)).await;
                }
                Ok(Err(e)) => tracing::debug!(%peer, "TLS handshake failed: {e}"),
                Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
            }
        });
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(pair) => pair,
            // The accept task ends only when this listener is dropped.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        Ok(self.local)
    }
}

#[cfg(all(test, feature = "test-ca"))]
mod tests {
    use super::*;
    use crate::test_ca::TestCa;

    async fn serve_once(listener: TcpListener, config: Arc<ServerConfig>) -> SocketAddr {
        let addr = listener.local_addr().unwrap();
        let tls = TlsListener::new(listener, config).unwrap();
        let app = axum::Router::new().route("/", axum::routing::get(|| async { "hello" }));
        tokio::spawn(async move { axum::serve(tls, app).await });
        addr
    }

    #[tokio::test]
    async fn a_client_trusting_the_ca_gets_through_and_others_are_told_why() {
        let dir = std::env::temp_dir().join(format!("net-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ca = TestCa::new(&dir, "test-ca");
        let files = ca.server("server", &["localhost"]);
        let config = server_config(&files.cert, &files.key).unwrap();
        let addr = serve_once(TcpListener::bind("127.0.0.1:0").await.unwrap(), config).await;

        let trusted = crate::client_builder(Some(&ca.cert_file()))
            .unwrap()
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/", addr.port());
        let body = trusted
            .get(&url)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(body, "hello");

        // Another CA: refused, and the error says the certificate's issuer is unknown.
        let other = TestCa::new(&dir, "other-ca");
        let untrusting = crate::client_builder(Some(&other.cert_file()))
            .unwrap()
            .build()
            .unwrap();
        let err = untrusting.get(&url).send().await.unwrap_err();
        let text = crate::describe(&err);
        assert!(text.contains("certificate"), "{text}");
        assert!(text.contains(&url[..url.len() - 1]), "{text}");

        // The right CA but a name the certificate does not carry: refused too.
        let wrong_name = format!("https://127.0.0.1:{}/", addr.port());
        let err = trusted.get(&wrong_name).send().await.unwrap_err();
        assert!(
            crate::describe(&err).contains("certificate"),
            "{}",
            crate::describe(&err)
        );
    }

    #[tokio::test]
    async fn a_silent_client_holds_no_other_back() {
        let dir = std::env::temp_dir().join(format!("net-tls-silent-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ca = TestCa::new(&dir, "silent-ca");
        let files = ca.server("server", &["localhost"]);
        let config = server_config(&files.cert, &files.key).unwrap();
        let addr = serve_once(TcpListener::bind("127.0.0.1:0").await.unwrap(), config).await;
        // Connections that never start their handshake.
        let mut silent = Vec::new();
        for _ in 0..50 {
            silent.push(TcpStream::connect(addr).await.unwrap());
        }
        let client = crate::client_builder(Some(&ca.cert_file()))
            .unwrap()
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/", addr.port());
        let started = std::time::Instant::now();
        let body = client.get(&url).send().await.unwrap().text().await.unwrap();
        assert_eq!(body, "hello");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        drop(silent);
    }

    #[test]
    fn a_key_that_is_not_pem_is_named() {
        let dir = std::env::temp_dir().join(format!("net-tls-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ca = TestCa::new(&dir, "bad-ca");
        let files = ca.server("server", &["localhost"]);
        let junk = dir.join("junk.key");
        std::fs::write(&junk, "junk").unwrap();
        let err = server_config(&files.cert, &junk).unwrap_err().to_string();
        assert!(err.contains("junk.key"), "{err}");
    }
}
