//! What runlens' programs share on the network: the https client setup of the agent, the
//! `runlens` CLI and the server's node poller ([`client`]: rustls with the system's roots
//! plus a private CA from a PEM file, base URLs checked, transport errors told plainly), the
//! one client of the runlens API the agent and the CLI call the server with
//! ([`api_client`]), the TLS listener the server and the agent serve https on
//! ([`listener`]), and the exponential back-off of clients that retry ([`backoff`]).

pub mod api_client;
pub mod backoff;
pub mod client;
pub mod listener;
#[cfg(feature = "test-ca")]
pub mod test_ca;

pub use api_client::{ApiClient, Call, ClientError, ClientOptions};
pub use backoff::Backoff;
pub use client::{base_url, client_builder, describe, CA_CERT_ENV};
pub use listener::{server_config, TlsListener};

/// Why a client or a listener could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// A URL that is not `http(s)://host[:port][/prefix]`.
    #[error("invalid URL {url:?}: {why} (expected http://host[:port] or https://host[:port])")]
    BadUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A certificate, key or CA file that cannot be read or holds no usable PEM item.
    #[error("{path}: {why}")]
    Pem {
        /// The file.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// The TLS library refused the configuration (e.g. a key that does not match).
    #[error("TLS setup: {0}")]
    Tls(String),
}
