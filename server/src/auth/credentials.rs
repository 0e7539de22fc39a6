//! Reading credentials from request headers (no database work here).

use axum::http::{header, HeaderMap};
use base64::Engine;

use super::sessions::COOKIE_NAME;
use super::settings::AuthSettings;
use crate::Error;

/// The credential a request carries, in the order they are tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Credential {
    /// `Authorization: Bearer <token>`.
    Bearer(String),
    /// `Authorization: Basic`: username and password (or an API token as the password).
    Basic {
        /// Username.
        username: String,
        /// Password or token.
        secret: String,
    },
    /// The `runlens_session` cookie, plus the proxy user as a fallback when the session
    /// has ended.
    Session(String, Option<String>),
    /// The trusted proxy header's username.
    Proxy(String),
}

/// The request's credential: `Ok(None)` when it carries none, an error when the
/// `Authorization` header is present but malformed (never silently ignored).
pub(crate) fn read_credential(
    headers: &HeaderMap,
    settings: &AuthSettings,
) -> Result<Option<Credential>, Error> {
    if let Some(value) = headers.get(header::AUTHORIZATION) {
        let value = value.to_str().map_err(|_| malformed())?.trim();
        return parse_authorization(value).map(Some);
    }
    let proxy = proxy_user(headers, settings);
    if let Some(id) = session_cookie(headers) {
        return Ok(Some(Credential::Session(id, proxy)));
    }
    Ok(proxy.map(Credential::Proxy))
}

fn malformed() -> Error {
    Error::Unauthenticated(
        "Malformed Authorization header: use \"Bearer <token>\" or HTTP basic.".into(),
    )
}

fn parse_authorization(value: &str) -> Result<Credential, Error> {
    let (scheme, rest) = value.split_once(' ').ok_or_else(malformed)?;
    let rest = rest.trim();
    if scheme.eq_ignore_ascii_case("bearer") && !rest.is_empty() {
        return Ok(Credential::Bearer(rest.to_string()));
    }
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(malformed());
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(rest)
        .map_err(|_| malformed())?;
    let text = String::from_utf8(decoded).map_err(|_| malformed())?;
    let (username, secret) = text.split_once(':').ok_or_else(malformed)?;
    Ok(Credential::Basic {
        username: username.to_string(),
        secret: secret.to_string(),
    })
}

/// The value of the `runlens_session` cookie, if sent.
pub(crate) fn session_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, value)| *name == COOKIE_NAME && !value.is_empty())
        .map(|(_, value)| value.to_string())
}

fn proxy_user(headers: &HeaderMap, settings: &AuthSettings) -> Option<String> {
    let name = settings.trusted_user_header.as_ref()?;
    let value = headers.get(name)?.to_str().ok()?.trim();
    (!value.is_empty()).then(|| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn parses_each_kind() {
        let s = AuthSettings::default();
        let b = headers(&[("authorization", "Bearer rl_x")]);
        assert_eq!(
            read_credential(&b, &s).unwrap(),
            Some(Credential::Bearer("rl_x".into()))
        );
        let basic = headers(&[("authorization", &crate::auth::basic_header("bob", "p:w"))]);
        assert_eq!(
            read_credential(&basic, &s).unwrap(),
            Some(Credential::Basic {
                username: "bob".into(),
                secret: "p:w".into()
            })
        );
        let c = headers(&[("cookie", "a=1; runlens_session=abc; b=2")]);
        assert_eq!(
            read_credential(&c, &s).unwrap(),
            Some(Credential::Session("abc".into(), None))
        );
        assert_eq!(read_credential(&HeaderMap::new(), &s).unwrap(), None);
    }

    #[test]
    fn proxy_header_only_when_configured() {
        let h = headers(&[("x-forwarded-user", "carol")]);
        assert_eq!(read_credential(&h, &AuthSettings::default()).unwrap(), None);
        let s = AuthSettings {
            trusted_user_header: Some(axum::http::HeaderName::from_static("x-forwarded-user")),
            ..Default::default()
        };
        assert_eq!(
            read_credential(&h, &s).unwrap(),
            Some(Credential::Proxy("carol".into()))
        );
    }

    #[test]
    fn malformed_authorization_is_an_error() {
        let s = AuthSettings::default();
        for bad in ["Basic !!!", "Digest x", "Bearer", "Basic Ym9i"] {
            let h = headers(&[("authorization", bad)]);
            assert!(read_credential(&h, &s).is_err(), "{bad}");
        }
    }
}
