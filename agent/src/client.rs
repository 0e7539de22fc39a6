//! The agent's HTTP client for the runlens server: JSON requests with a bearer token and a
//! per-request timeout, and errors that say plainly what went wrong (unreachable, timed
//! out, or the server's own message). Registration (`serve --server`) and `run` use it.

use std::path::Path;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Why a call to the server failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server URL is not `http(s)://host[:port][/path]`, or the CA file is unusable.
    #[error("{0}")]
    BadUrl(String),
    /// No answer: connection refused, DNS, timeout.
    #[error("cannot reach {url}: {reason}")]
    Unreachable {
        /// The URL called.
        url: String,
        /// Why, for a person ("timed out after 5s", "Connection refused (os error 111)").
        reason: String,
    },
    /// The server answered with an error status.
    #[error("{method} {path} answered {status}: {message}")]
    Status {
        /// The method.
        method: Method,
        /// The path called.
        path: String,
        /// The status.
        status: StatusCode,
        /// The `message` of the error body, or the start of the body.
        message: String,
    },
    /// A success whose body was not the expected JSON.
    #[error("{path}: unexpected answer: {reason}")]
    Decode {
        /// The path called.
        path: String,
        /// Why.
        reason: String,
    },
}

impl ClientError {
    /// The HTTP status, when the server answered one.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Self::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// A runlens server at a base URL, called with a bearer token.
#[derive(Debug, Clone)]
pub struct ServerClient {
    base: String,
    token: Option<String>,
    timeout: Duration,
    http: reqwest::Client,
}

impl ServerClient {
    /// A client of `base` (e.g. `https://runlens.example.com`) sending `Authorization: Bearer
    /// <token>` when a token is given; each request gives up after `timeout`. https trusts
    /// the system's roots and the CA certificates of the PEM file `ca_cert`, when given.
    pub fn new(
        base: &str,
        token: Option<&str>,
        timeout: Duration,
        ca_cert: Option<&Path>,
    ) -> Result<Self, ClientError> {
        let base = net::base_url(base).map_err(|e| ClientError::BadUrl(e.to_string()))?;
        let http = net::client_builder(ca_cert)
            .map_err(|e| ClientError::BadUrl(format!("--ca-cert: {e}")))?
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(3)))
            .user_agent(concat!("runlens-agent/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ClientError::BadUrl(format!("{base}: {}", net::describe(&e))))?;
        Ok(Self {
            base,
            token: None,
            timeout,
            http,
        }
        .with_token(token))
    }

    /// The same client sending `token` instead (a rotated credential).
    pub fn with_token(self, token: Option<&str>) -> Self {
        Self {
            token: token
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned),
            ..self
        }
    }

    /// The base URL, without a trailing slash.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `GET path?query`, answer decoded as `T`.
    pub async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, &str)],
    ) -> Result<T, ClientError> {
        self.call(Method::GET, path, query, None::<&()>).await
    }

    /// `POST path` with a JSON body, answer decoded as `T`.
    pub async fn post<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, ClientError> {
        self.call(Method::POST, path, &[], Some(body)).await
    }

    /// `PUT path` with a JSON body, answer decoded as `T`.
    pub async fn put<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, ClientError> {
        self.call(Method::PUT, path, &[], Some(body)).await
    }

    async fn call<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, &str)],
        body: Option<&B>,
    ) -> Result<T, ClientError> {
        let url = format!("{}{path}", self.base);
        let mut request = self.http.request(method.clone(), &url);
        if !query.is_empty() {
            request = request.query(query);
        }
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let unreachable = |err: reqwest::Error| ClientError::Unreachable {
            url: url.clone(),
            reason: self.describe(&err),
        };
        let response = request.send().await.map_err(unreachable)?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(unreachable)?;
        if !status.is_success() {
            return Err(ClientError::Status {
                method,
                path: path.to_owned(),
                status,
                message: error_message(&bytes),
            });
        }
        // An empty success (204) reads as JSON null, so `()` and `Option<_>` decode.
        let bytes = if bytes.is_empty() {
            &b"null"[..]
        } else {
            &bytes
        };
        serde_json::from_slice(bytes).map_err(|e| ClientError::Decode {
            path: path.to_owned(),
            reason: e.to_string(),
        })
    }

    /// A transport error for a person: a timeout as such, else the error with its causes
    /// (a TLS failure names the certificate problem).
    fn describe(&self, err: &reqwest::Error) -> String {
        if err.is_timeout() {
            return format!("timed out after {:?}", self.timeout);
        }
        net::describe(err)
    }
}

/// The `message` field of a runlens (`ApiError`) or MLflow (`{error_code, message}`) error
/// body, else the start of the body as text.
fn error_message(body: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("message")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| {
            let text = String::from_utf8_lossy(body);
            let text = text.trim();
            if text.is_empty() {
                "(no body)".to_owned()
            } else {
                text.chars().take(200).collect()
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_and_https_urls() {
        let t = Duration::from_secs(1);
        let ok = ServerClient::new("http://127.0.0.1:8080/", Some("x"), t, None).unwrap();
        assert_eq!(ok.base(), "http://127.0.0.1:8080");
        let tls = ServerClient::new("https://runlens.example.com", None, t, None).unwrap();
        assert_eq!(tls.base(), "https://runlens.example.com");
        for bad in ["h:8080", "http://", "http:///x", "ftp://h"] {
            assert!(
                matches!(
                    ServerClient::new(bad, None, t, None),
                    Err(ClientError::BadUrl(_))
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn error_messages_come_from_either_dialect() {
        let runlens = br#"{"code":"PERMISSION_DENIED","message":"Admins only"}"#;
        let mlflow = br#"{"error_code":"RESOURCE_DOES_NOT_EXIST","message":"No run"}"#;
        assert_eq!(error_message(runlens), "Admins only");
        assert_eq!(error_message(mlflow), "No run");
        assert_eq!(error_message(b"Bad Gateway"), "Bad Gateway");
        assert_eq!(error_message(b""), "(no body)");
    }

    #[tokio::test]
    async fn an_unreachable_server_is_said_so() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let client = ServerClient::new(
            &format!("http://127.0.0.1:{port}"),
            None,
            Duration::from_secs(2),
            None,
        )
        .unwrap();
        let err = client.get::<()>("/health", &[]).await.unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, ClientError::Unreachable { .. }), "{text}");
        assert!(text.contains("refused"), "{text}");
    }
}
