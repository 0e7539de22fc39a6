//! The HTTP client of the client commands (`runlens jobs`, `runlens logs`): calls the app
//! API of a running server with a bearer token and turns its answers into what a terminal
//! shows (an error's message as the server wrote it, e.g. the access message of a 403).

use std::time::Duration;

use reqwest::{Response, StatusCode};
use serde::de::DeserializeOwned;

/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a JSON request may take in all (streams have no such limit).
const JSON_TIMEOUT: Duration = Duration::from_secs(120);

/// Where the server is and who calls it; shared by the client commands.
#[derive(clap::Args, Clone, Debug)]
pub struct Remote {
    /// The runlens server, e.g. https://runlens.example.com or http://10.0.0.1:8080.
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

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// No answer: connection refused, name resolution, timeout, a dropped stream.
    #[error("cannot reach {url}: {reason}")]
    Unreachable {
        /// The URL called.
        url: String,
        /// Why.
        reason: String,
    },
    /// The server refused: its own message (a 403's names who can grant access).
    #[error("{message}")]
    Refused {
        /// The status.
        status: StatusCode,
        /// The server's message.
        message: String,
    },
    /// A success whose body was not what was expected.
    #[error("{path}: unexpected answer: {reason}")]
    Decode {
        /// The path called.
        path: String,
        /// Why.
        reason: String,
    },
}

impl ClientError {
    /// Whether trying again later may work (the server was unreachable or failed).
    pub fn is_transient(&self) -> bool {
        match self {
            ClientError::Unreachable { .. } => true,
            ClientError::Refused { status, .. } => status.is_server_error(),
            ClientError::Decode { .. } => false,
        }
    }
}

/// A server at a base URL, called with an optional bearer token.
pub struct Client {
    http: reqwest::Client,
    base: String,
    token: Option<String>,
}

impl Client {
    /// A client of `remote`; the URL must be `http(s)://host[:port][/prefix]`.
    pub fn new(remote: &Remote) -> Result<Client, String> {
        let base = net::base_url(&remote.server).map_err(|e| format!("--server: {e}"))?;
        let http = net::client_builder(remote.ca_cert.as_deref())
            .map_err(|e| format!("--ca-cert: {e}"))?
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| format!("HTTP client: {}", net::describe(&e)))?;
        Ok(Client {
            http,
            base,
            token: remote.token.clone().filter(|t| !t.is_empty()),
        })
    }

    /// GETs `path` (under the base URL, e.g. `/api/v1/job-runs`) with `query` and extra
    /// `headers`; an error status becomes [`ClientError::Refused`] with the server's message.
    /// `stream`: no overall timeout (event streams, downloads).
    pub async fn get(
        &self,
        path: &str,
        query: &[(&str, String)],
        headers: &[(&str, String)],
        stream: bool,
    ) -> Result<Response, ClientError> {
        let url = format!("{}{path}", self.base);
        let mut req = self.http.get(&url).query(query);
        if !stream {
            req = req.timeout(JSON_TIMEOUT);
        }
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        for (k, v) in headers {
            req = req.header(*k, v);
        }
        let resp = req.send().await.map_err(|e| ClientError::Unreachable {
            url: url.clone(),
            reason: net::describe(&e),
        })?;
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        let body = resp.text().await.unwrap_or_default();
        let message = serde_json::from_str::<api_types::ApiError>(&body)
            .map(|e| e.message)
            .unwrap_or_else(|_| {
                let start: String = body.chars().take(300).collect();
                format!("GET {path} answered {status}: {start}")
            });
        let message = if status == StatusCode::UNAUTHORIZED {
            format!("{message} (give an API token with --token or RUNLENS_TOKEN)")
        } else {
            message
        };
        Err(ClientError::Refused { status, message })
    }

    /// GETs `path` and decodes its JSON body.
    pub async fn get_json<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<T, ClientError> {
        let resp = self.get(path, query, &[], false).await?;
        let bytes = resp.bytes().await.map_err(|e| ClientError::Unreachable {
            url: format!("{}{path}", self.base),
            reason: net::describe(&e),
        })?;
        serde_json::from_slice(&bytes).map_err(|e| ClientError::Decode {
            path: path.to_owned(),
            reason: e.to_string(),
        })
    }
}
