//! The client commands' (`runlens jobs`, `runlens logs`) side of [`net::ApiClient`]: where
//! the server is and who calls it ([`Remote`]), and how a failed call reads in a terminal
//! ([`explain`]: an error's message as the server wrote it, e.g. the access message of a 403).

use std::time::Duration;

use net::{ApiClient, ClientError};
use reqwest::StatusCode;

/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a JSON request may take in all (streams have no such limit).
const JSON_TIMEOUT: Duration = Duration::from_secs(120);

/// Where the server is and who calls it; shared by the client commands.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Remote {
    /// The runlens server, e.g. `https://runlens.example.com` or `http://10.0.0.1:8080`.
    #[arg(
        long,
        env = "RUNLENS_SERVER",
        default_value = "http://127.0.0.1:8080",
        value_name = "URL"
    )]
    pub server: String,
    /// API token (`runlens token create`), sent as Authorization: Bearer.
    #[arg(long, env = "RUNLENS_TOKEN", hide_env_values = true, value_name = "T")]
    pub token: Option<String>,
    /// A PEM file of CA certificates to trust besides the system's (a server whose
    /// certificate a private CA signed).
    #[arg(long, env = net::CA_CERT_ENV, value_name = "FILE")]
    pub ca_cert: Option<std::path::PathBuf>,
}

impl Remote {
    /// A client of this server with this token; the URL must be
    /// `http(s)://host[:port][/prefix]`.
    pub(crate) fn client(&self) -> Result<ApiClient, String> {
        let base = net::base_url(&self.server).map_err(|e| format!("--server: {e}"))?;
        let options = net::ClientOptions {
            ca_cert: self.ca_cert.as_deref(),
            connect_timeout: Some(CONNECT_TIMEOUT),
            timeout: Some(JSON_TIMEOUT),
            user_agent: None,
        };
        let client = ApiClient::new(&base, options).map_err(|e| e.to_string())?;
        Ok(client.with_token(self.token.as_deref()))
    }
}

/// A failed call as a terminal shows it: the server's own message when it wrote one (a
/// 403's names who can grant access), else the error; a 401 says how to give a token.
pub(crate) fn explain(err: ClientError) -> String {
    let status = err.status();
    let text = match err {
        ClientError::Status { message, .. } => message,
        other => other.to_string(),
    };
    if status == Some(StatusCode::UNAUTHORIZED) {
        format!("{text} (give an API token with --token or RUNLENS_TOKEN)")
    } else {
        text
    }
}
