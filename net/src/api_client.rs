//! The one client of a runlens server's HTTP API, shared by the agent and the `runlens` CLI:
//! a base URL, an optional bearer token, calls answered as JSON (with an overall timeout) or
//! as a stream (without one), and failures that say plainly what went wrong: unreachable,
//! the server's own message, or an answer that is not what was expected.

use std::path::Path;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Why a call to the server failed (or the client could not be set up).
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server URL is not `http(s)://host[:port][/path]`, or the CA file is unusable.
    #[error("{0}")]
    BadUrl(String),
    /// No answer: connection refused, DNS, timeout, a dropped connection.
    #[error("cannot reach {url}: {reason}")]
    Unreachable {
        /// The URL called.
        url: String,
        /// Why, for a person ("timed out after 5s", "Connection refused (os error 111)").
        reason: String,
    },
    /// The server answered with an error status and its own message: the `message` of a
    /// runlens (`ApiError`) or MLflow (`{error_code, message}`) error body.
    #[error("{method} {path} answered {status}: {message}")]
    Status {
        /// The method.
        method: Method,
        /// The path called.
        path: String,
        /// The status.
        status: StatusCode,
        /// The server's message.
        message: String,
    },
    /// The server answered with an error status and a body that is no API error (a proxy's
    /// page, nothing at all).
    #[error("{method} {path} answered {status}: {body}")]
    StatusBody {
        /// The method.
        method: Method,
        /// The path called.
        path: String,
        /// The status.
        status: StatusCode,
        /// The start of the body, or `(no body)`.
        body: String,
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
            Self::Status { status, .. } | Self::StatusBody { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether the same call may succeed if made again: no answer, a timeout, a 5xx, 408
    /// or 429.
    pub fn is_transient(&self) -> bool {
        match self.status() {
            None => matches!(self, Self::Unreachable { .. }),
            Some(status) => status.is_server_error() || matches!(status.as_u16(), 408 | 429),
        }
    }
}

/// How an [`ApiClient`] connects, besides its base URL and token.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientOptions<'a> {
    /// A PEM file of CA certificates to trust besides the system's roots.
    pub ca_cert: Option<&'a Path>,
    /// How long a connection may take to open (reqwest's default: no limit).
    pub connect_timeout: Option<Duration>,
    /// How long a JSON call may take in all; streamed answers have no such limit.
    pub timeout: Option<Duration>,
    /// The `User-Agent` header (none when not given).
    pub user_agent: Option<&'static str>,
}

/// A runlens server at a base URL, called with a bearer token when one is given. Redirects
/// are never followed ([`crate::client_builder`]).
#[derive(Debug, Clone)]
pub struct ApiClient {
    base: String,
    token: Option<String>,
    timeout: Option<Duration>,
    http: reqwest::Client,
}

impl ApiClient {
    /// A client of `base` (e.g. `https://runlens.example.com`), without a token.
    pub fn new(base: &str, options: ClientOptions<'_>) -> Result<Self, ClientError> {
        let base = crate::base_url(base).map_err(|e| ClientError::BadUrl(e.to_string()))?;
        let mut builder = crate::client_builder(options.ca_cert)
            .map_err(|e| ClientError::BadUrl(format!("--ca-cert: {e}")))?;
        if let Some(connect) = options.connect_timeout {
            builder = builder.connect_timeout(connect);
        }
        if let Some(agent) = options.user_agent {
            builder = builder.user_agent(agent);
        }
        let http = builder
            .build()
            .map_err(|e| ClientError::BadUrl(format!("{base}: {}", crate::describe(&e))))?;
        Ok(Self {
            base,
            token: None,
            timeout: options.timeout,
            http,
        })
    }

    /// The same client sending `token` instead (blank: none), e.g. a rotated credential.
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

    /// A `method` call of `path` (under the base URL, e.g. `/api/v1/job-runs`).
    pub fn request(&self, method: Method, path: &str) -> Call<'_> {
        let url = format!("{}{path}", self.base);
        let mut request = self.http.request(method.clone(), &url);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        Call {
            client: self,
            method,
            path: path.to_owned(),
            url,
            request,
        }
    }

    /// A `GET` of `path`.
    pub fn get(&self, path: &str) -> Call<'_> {
        self.request(Method::GET, path)
    }

    /// A `POST` of `body` as JSON to `path`.
    pub fn post<B: Serialize + ?Sized>(&self, path: &str, body: &B) -> Call<'_> {
        self.request(Method::POST, path).json(body)
    }

    /// A `PUT` of `body` as JSON to `path`.
    pub fn put<B: Serialize + ?Sized>(&self, path: &str, body: &B) -> Call<'_> {
        self.request(Method::PUT, path).json(body)
    }
}

/// One call being made: add a query, headers or a body, then send it for a JSON answer
/// ([`Call::send_json`]) or a streamed one ([`Call::send_streamed`]).
pub struct Call<'a> {
    client: &'a ApiClient,
    method: Method,
    path: String,
    url: String,
    request: reqwest::RequestBuilder,
}

impl Call<'_> {
    /// Adds `query` (pairs, or a struct that serializes as a form) to the URL.
    pub fn query<Q: Serialize + ?Sized>(self, query: &Q) -> Self {
        Self {
            request: self.request.query(query),
            ..self
        }
    }

    /// Adds a header.
    pub fn header(self, name: &'static str, value: &str) -> Self {
        Self {
            request: self.request.header(name, value),
            ..self
        }
    }

    /// Sends `body` as JSON.
    pub fn json<B: Serialize + ?Sized>(self, body: &B) -> Self {
        Self {
            request: self.request.json(body),
            ..self
        }
    }

    /// Sends the call within the client's timeout and decodes the answer as `T`; an empty
    /// success (204) reads as JSON null, so `()` and `Option<_>` decode.
    pub async fn send_json<T: DeserializeOwned>(self) -> Result<T, ClientError> {
        let mut request = self.request;
        if let Some(timeout) = self.client.timeout {
            request = request.timeout(timeout);
        }
        let (path, url, timeout) = (self.path, self.url, self.client.timeout);
        let unreachable = |err: reqwest::Error| ClientError::Unreachable {
            url: url.clone(),
            reason: describe(&err, timeout),
        };
        let response = request.send().await.map_err(unreachable)?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(unreachable)?;
        if !status.is_success() {
            return Err(status_error(self.method, path, status, &bytes));
        }
        let bytes = if bytes.is_empty() {
            &b"null"[..]
        } else {
            &bytes
        };
        serde_json::from_slice(bytes).map_err(|e| ClientError::Decode {
            path,
            reason: e.to_string(),
        })
    }

    /// Sends the call without an overall timeout (event streams, downloads): the answer to
    /// read as it comes, once its status is a success.
    pub async fn send_streamed(self) -> Result<reqwest::Response, ClientError> {
        let url = self.url;
        let unreachable = |err: reqwest::Error| ClientError::Unreachable {
            url: url.clone(),
            reason: describe(&err, None),
        };
        let response = self.request.send().await.map_err(unreachable)?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let bytes = response.bytes().await.map_err(unreachable)?;
        Err(status_error(self.method, self.path, status, &bytes))
    }
}

/// A transport error for a person: a timeout of a call with an overall `timeout` as such,
/// else the error with its causes (a TLS failure names the certificate problem).
fn describe(err: &reqwest::Error, timeout: Option<Duration>) -> String {
    match timeout {
        Some(timeout) if err.is_timeout() => format!("timed out after {timeout:?}"),
        _ => crate::describe(err),
    }
}

/// The error of an error status answered with `body`.
fn status_error(method: Method, path: String, status: StatusCode, body: &[u8]) -> ClientError {
    match server_message(body) {
        Some(message) => ClientError::Status {
            method,
            path,
            status,
            message,
        },
        None => ClientError::StatusBody {
            method,
            path,
            status,
            body: body_start(body),
        },
    }
}

/// The `message` field of a runlens (`ApiError`) or MLflow (`{error_code, message}`) error
/// body.
fn server_message(body: &[u8]) -> Option<String> {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("message")?.as_str().map(str::to_owned))
}

/// The start of a body as text, or `(no body)`.
fn body_start(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        "(no body)".to_owned()
    } else {
        text.chars().take(200).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text an error status shows after `answered <status>: `.
    fn error_message(body: &[u8]) -> String {
        server_message(body).unwrap_or_else(|| body_start(body))
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

    #[test]
    fn only_no_answer_timeouts_and_server_failures_are_transient() {
        let status = |code: u16, message: bool| {
            let status = StatusCode::from_u16(code).unwrap();
            let (method, path) = (Method::GET, "/p".to_owned());
            if message {
                ClientError::Status {
                    method,
                    path,
                    status,
                    message: "m".into(),
                }
            } else {
                ClientError::StatusBody {
                    method,
                    path,
                    status,
                    body: "b".into(),
                }
            }
        };
        for with_message in [true, false] {
            for code in [408, 429, 500, 502, 503] {
                assert!(status(code, with_message).is_transient(), "{code}");
            }
            for code in [400, 401, 403, 404, 422] {
                assert!(!status(code, with_message).is_transient(), "{code}");
            }
            assert_eq!(
                status(403, with_message).status(),
                Some(StatusCode::FORBIDDEN)
            );
        }
        let down = ClientError::Unreachable {
            url: "u".into(),
            reason: "refused".into(),
        };
        assert!(down.is_transient() && down.status().is_none());
        let decode = ClientError::Decode {
            path: "/p".into(),
            reason: "r".into(),
        };
        assert!(!decode.is_transient() && !ClientError::BadUrl("x".into()).is_transient());
    }

    /// A server on 127.0.0.1 answering each connection with the next of `answers` (status
    /// line and body) and sending back each request's head.
    async fn answering(
        answers: &'static [(&'static str, &'static str)],
    ) -> (String, tokio::sync::mpsc::Receiver<String>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (heads, received) = tokio::sync::mpsc::channel(answers.len());
        tokio::spawn(async move {
            for (status, body) in answers {
                let (mut conn, _) = listener.accept().await.unwrap();
                let mut head = Vec::new();
                while !head.ends_with(b"\r\n\r\n") {
                    let mut byte = [0u8];
                    if conn.read(&mut byte).await.unwrap() == 0 {
                        break;
                    }
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                let length = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length: "))
                    .map_or(0, |n| n.trim().parse().unwrap());
                let mut sent = vec![0u8; length];
                conn.read_exact(&mut sent).await.unwrap();
                heads.send(head).await.unwrap();
                let answer = format!(
                    "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                conn.write_all(answer.as_bytes()).await.unwrap();
            }
        });
        (base, received)
    }

    #[tokio::test]
    async fn answers_decode_and_error_statuses_carry_the_servers_message() {
        let (base, mut heads) = answering(&[
            ("200 OK", r#"{"n":1}"#),
            ("204 No Content", ""),
            (
                "403 Forbidden",
                r#"{"code":"PERMISSION_DENIED","message":"Ask alice."}"#,
            ),
            ("502 Bad Gateway", "<html>proxy</html>"),
            ("200 OK", "streamed"),
            ("200 OK", "not json"),
        ])
        .await;
        let client = ApiClient::new(&base, ClientOptions::default())
            .unwrap()
            .with_token(Some(" secret "));
        let n: serde_json::Value = client
            .get("/a")
            .query(&[("x", "1")])
            .send_json()
            .await
            .unwrap();
        assert_eq!(n["n"], 1);
        let head = heads.recv().await.unwrap();
        assert!(head.starts_with("GET /a?x=1 HTTP/1.1"), "{head}");
        assert!(head.contains("authorization: Bearer secret\r\n"), "{head}");
        let () = client.post("/b", &[1, 2]).send_json().await.unwrap();
        assert!(heads.recv().await.unwrap().starts_with("POST /b "));
        let err = client.get("/c").send_json::<()>().await.unwrap_err();
        assert_eq!(err.to_string(), "GET /c answered 403 Forbidden: Ask alice.");
        assert!(matches!(&err, ClientError::Status { message, .. } if message == "Ask alice."));
        let err = client.get("/d").send_streamed().await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "GET /d answered 502 Bad Gateway: <html>proxy</html>"
        );
        assert!(matches!(err, ClientError::StatusBody { .. }) && err.is_transient());
        let streamed = client.get("/e").send_streamed().await.unwrap();
        assert_eq!(streamed.text().await.unwrap(), "streamed");
        let err = client.get("/f").send_json::<u32>().await.unwrap_err();
        assert!(
            err.to_string().starts_with("/f: unexpected answer: "),
            "{err}"
        );
    }

    #[tokio::test]
    async fn an_unreachable_server_is_said_so() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let options = ClientOptions {
            timeout: Some(Duration::from_secs(2)),
            ..ClientOptions::default()
        };
        let client = ApiClient::new(&format!("http://127.0.0.1:{port}"), options).unwrap();
        for err in [
            client.get("/health").send_json::<()>().await.unwrap_err(),
            client.get("/health").send_streamed().await.unwrap_err(),
        ] {
            let text = err.to_string();
            assert!(matches!(err, ClientError::Unreachable { .. }), "{text}");
            assert!(
                text.contains("cannot reach") && text.contains("refused"),
                "{text}"
            );
        }
    }
}
