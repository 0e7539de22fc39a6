//! Request decoding as MLflow's server does it: POST bodies must be `application/json`
//! (else 400 INVALID_PARAMETER_VALUE), a double-encoded JSON string is decoded twice,
//! GET parameters come from the query string (repeated keys, `+` as space). Every
//! failure is an MLflow error body, never one of axum's plain-text rejections.

use axum::body::to_bytes;
use axum::extract::rejection::RawPathParamsRejection;
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request};
use axum::http::{header, Method};
use serde_json::{Map, Value};

use std::sync::OnceLock;

use tokio::sync::Semaphore;

use super::fields::Fields;
use super::policy;
use crate::auth::Caller;
use crate::error::MlflowError;
use crate::routes::{Access, RouteSpec};
use crate::AppState;
use crate::Error;

/// Bodies larger than this (or of undeclared length) are parsed at most
/// [`HEAVY_CONCURRENCY`] at a time: a parsed JSON value takes up to ~16 times its text, so
/// this bounds the memory that large requests at once can take.
pub(crate) const HEAVY_BODY_BYTES: usize = 256 * 1024;
/// See [`HEAVY_BODY_BYTES`].
pub(crate) const HEAVY_CONCURRENCY: usize = 2;

fn heavy_slots() -> &'static Semaphore {
    static SLOTS: OnceLock<Semaphore> = OnceLock::new();
    SLOTS.get_or_init(|| Semaphore::new(HEAVY_CONCURRENCY))
}

/// The decoded request message, from the JSON body (POST) or the query string (GET), with
/// the route's path parameters (e.g. `{model_id}`) as fields too: a path parameter
/// replaces a field of the same name, so the policy checks what the handler acts on.
pub(crate) struct Msg(pub Fields);

impl FromRequest<AppState> for Msg {
    type Rejection = MlflowError;

    /// Decodes the message, then applies the endpoint's policy from the route table (401
    /// without a caller, 404/403 from the policy); a handler only ever sees permitted
    /// requests.
    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let caller = req
            .extensions()
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| Error::Unauthenticated("Sign in to continue.".into()))?;
        let spec = req.extensions().get::<RouteSpec>().copied();
        let (policy, limit) = match spec {
            Some(RouteSpec {
                access: Access::Mlflow(policy),
                body_limit,
            }) => (policy, body_limit),
            _ => {
                return Err(Error::Internal(format!(
                    "route {} decodes an MLflow message but declares no MLflow policy",
                    req.uri().path()
                ))
                .into())
            }
        };
        let (mut parts, body) = req.into_parts();
        let path_params: Vec<(String, String)> =
            match RawPathParams::from_request_parts(&mut parts, state).await {
                Ok(p) => p
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                Err(RawPathParamsRejection::MissingPathParams(_)) => Vec::new(),
                Err(_) => {
                    return Err(Error::InvalidParameter(
                        "Invalid path: it is not valid UTF-8 once percent-decoded.".into(),
                    )
                    .into())
                }
            };
        let (mut map, query) = decode(Request::from_parts(parts, body), limit).await?;
        for (k, v) in path_params {
            map.insert(k, Value::String(v));
        }
        let fields = Fields::new(map, query);
        let fields = state
            .store
            .call(move |c| {
                policy::enforce(c, &caller, policy, &fields)?;
                Ok(fields)
            })
            .await?;
        Ok(Msg(fields))
    }
}

fn too_large(limit: usize) -> Error {
    Error::InvalidParameter(format!("Request body too large (limit {limit} bytes)."))
}

/// Decodes the request message (and whether it came from a query string) from the query
/// string (GET, or a body-less DELETE/PATCH) or the JSON body, refusing bodies over
/// `limit` before reading them when their length is declared, and while reading them
/// otherwise.
async fn decode(req: Request, limit: usize) -> Result<(Map<String, Value>, bool), Error> {
    if req.method() == Method::GET {
        return Ok((parse_query(req.uri().query().unwrap_or("")), true));
    }
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large(limit));
    }
    if req.method() != Method::POST && req.headers().get(header::CONTENT_TYPE).is_none() {
        return Ok((parse_query(req.uri().query().unwrap_or("")), true));
    }
    check_content_type(&req)?;
    let _slot = match declared {
        Some(n) if n <= HEAVY_BODY_BYTES as u64 => None,
        _ => Some(heavy_slots().acquire().await),
    };
    let bytes = to_bytes(req.into_body(), limit)
        .await
        .map_err(|_| too_large(limit))?;
    Ok((parse_body(&bytes)?, false))
}

fn check_content_type(req: &Request) -> Result<(), Error> {
    let Some(ct) = req.headers().get(header::CONTENT_TYPE) else {
        return Err(Error::InvalidParameter(
            "Bad Request. Content-Type header is missing.".to_string(),
        ));
    };
    let mime = ct
        .to_str()
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim();
    if !mime.eq_ignore_ascii_case("application/json") {
        return Err(Error::InvalidParameter(
            "Bad Request. Content-Type must be one of ['application/json'].".to_string(),
        ));
    }
    Ok(())
}

/// Parses a JSON body into an object; empty = `{}`; a JSON string holding JSON is decoded
/// again (MLflow accepts double-encoded bodies).
pub(crate) fn parse_body(bytes: &[u8]) -> Result<Map<String, Value>, Error> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    let malformed =
        |e: serde_json::Error| Error::BadRequest(format!("Malformed JSON request body: {e}"));
    let mut value: Value = serde_json::from_slice(bytes).map_err(malformed)?;
    if let Value::String(inner) = &value {
        value = serde_json::from_str(inner).map_err(malformed)?;
    }
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        other => Err(Error::BadRequest(format!(
            "Malformed JSON request body: expected an object, got {}",
            super::fields::py_type(&other)
        ))),
    }
}

/// Parses a query string: each key maps to a string, or to an array of strings when the
/// key repeats. `+` decodes to a space.
pub(crate) fn parse_query(query: &str) -> Map<String, Value> {
    let mut map = Map::new();
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        let v = Value::String(v.into_owned());
        match map.get_mut(k.as_ref()) {
            None => {
                map.insert(k.into_owned(), v);
            }
            Some(Value::Array(items)) => items.push(v),
            Some(first) => {
                let prev = first.take();
                *first = Value::Array(vec![prev, v]);
            }
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_strings_decode_like_flask() {
        let m = parse_query("run_ids=a&run_ids=b&metric_key=my+loss&x=%2Fa");
        assert_eq!(m["run_ids"], serde_json::json!(["a", "b"]));
        assert_eq!(m["metric_key"], "my loss");
        assert_eq!(m["x"], "/a");
    }

    #[test]
    fn bodies_empty_double_encoded_and_malformed() {
        assert!(parse_body(b"").unwrap().is_empty());
        assert_eq!(parse_body(br#""{\"name\": \"x\"}""#).unwrap()["name"], "x");
        assert!(matches!(parse_body(b"{"), Err(Error::BadRequest(_))));
        assert!(matches!(parse_body(b"[1]"), Err(Error::BadRequest(_))));
    }
}
