//! The https client setup: reqwest over rustls, trusting the system's roots and, for a
//! private CA, the certificates of a PEM file (`--ca-cert FILE` or `RUNLENS_CA_CERT`). No
//! verifier is ever turned off: a wrong CA or host name fails the call with the cause.

use std::path::Path;

use crate::NetError;

/// The environment variable naming a PEM file of extra CA certificates, read by every
/// runlens program that calls another over https (the `--ca-cert` flags default to it).
pub const CA_CERT_ENV: &str = "RUNLENS_CA_CERT";

/// A client builder that speaks http and https, trusting the system's roots and the CA
/// certificates in `ca_cert` (a PEM file of one or more certificates), when given.
pub fn client_builder(ca_cert: Option<&Path>) -> Result<reqwest::ClientBuilder, NetError> {
    // Never follow a redirect: it would carry the bearer token to wherever it points.
    let builder = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none());
    let Some(path) = ca_cert else {
        return Ok(builder);
    };
    let pem_error = |why: String| NetError::Pem {
        path: path.display().to_string(),
        why,
    };
    let pem =
        std::fs::read(path).map_err(|e| pem_error(format!("cannot read the CA file: {e}")))?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem)
        .map_err(|e| pem_error(format!("not a PEM file of certificates: {e}")))?;
    if certs.is_empty() {
        return Err(pem_error("holds no PEM certificate".into()));
    }
    Ok(builder.tls_certs_merge(certs))
}

/// `url` without a trailing `/`, when it is `http(s)://host[:port][/prefix]`.
pub fn base_url(url: &str) -> Result<String, NetError> {
    let bad = |why| NetError::BadUrl {
        url: url.to_owned(),
        why,
    };
    let trimmed = url.trim().trim_end_matches('/');
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"))
        .ok_or_else(|| bad("the scheme must be http or https"))?;
    if rest.is_empty() || rest.starts_with('/') {
        return Err(bad("no host"));
    }
    if rest.contains(char::is_whitespace) {
        return Err(bad("white space"));
    }
    reqwest::Url::parse(trimmed).map_err(|_| bad("not a URL"))?;
    Ok(trimmed.to_owned())
}

/// A transport error with its causes, for a person: "error sending request for url (...):
/// client error (Connect): invalid peer certificate: UnknownIssuer".
pub fn describe(err: &reqwest::Error) -> String {
    if err.is_timeout() {
        return format!("{err}: timed out");
    }
    let mut out = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(s) = source {
        let text = s.to_string();
        if !out.ends_with(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_take_http_and_https_only() {
        assert_eq!(
            base_url("https://a.example:8443/").unwrap(),
            "https://a.example:8443"
        );
        assert_eq!(
            base_url(" http://10.0.0.1:8080/runlens ").unwrap(),
            "http://10.0.0.1:8080/runlens"
        );
        for bad in [
            "ftp://a",
            "a.example:80",
            "https://",
            "http:///x",
            "https://a b",
        ] {
            assert!(base_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_missing_or_empty_ca_file_is_named_in_the_error() {
        let err = client_builder(Some(Path::new("/nonexistent/ca.pem"))).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/ca.pem"), "{err}");
        let dir = std::env::temp_dir().join(format!("net-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "not pem").unwrap();
        let err = client_builder(Some(&empty)).unwrap_err();
        assert!(err.to_string().contains("empty.pem"), "{err}");
    }
}
