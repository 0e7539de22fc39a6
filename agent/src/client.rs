//! The agent's client of the runlens server: [`net::ApiClient`] set up as the agent calls
//! (its user agent, a per-request timeout, a short connect timeout), with JSON `get`, `post`
//! and `put`. Registration (`serve --server`) and `run` use it.

use std::path::Path;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use net::ClientError;

/// A runlens server at a base URL, called with a bearer token.
#[derive(Debug, Clone)]
pub struct ServerClient {
    api: net::ApiClient,
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
        let options = net::ClientOptions {
            ca_cert,
            connect_timeout: Some(timeout.min(Duration::from_secs(3))),
            timeout: Some(timeout),
            user_agent: Some(concat!("runlens-agent/", env!("CARGO_PKG_VERSION"))),
        };
        let api = net::ApiClient::new(base, options)?.with_token(token);
        Ok(Self { api })
    }

    /// The same client sending `token` instead (a rotated credential).
    pub fn with_token(self, token: Option<&str>) -> Self {
        Self {
            api: self.api.with_token(token),
        }
    }

    /// The base URL, without a trailing slash.
    pub fn base(&self) -> &str {
        self.api.base()
    }

    /// `GET path?query`, answer decoded as `T`.
    pub async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, &str)],
    ) -> Result<T, ClientError> {
        let call = self.api.get(path);
        let call = if query.is_empty() {
            call
        } else {
            call.query(query)
        };
        call.send_json().await
    }

    /// `POST path` with a JSON body, answer decoded as `T`.
    pub async fn post<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, ClientError> {
        self.api.post(path, body).send_json().await
    }

    /// `PUT path` with a JSON body, answer decoded as `T`.
    pub async fn put<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, ClientError> {
        self.api.put(path, body).send_json().await
    }
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
}
