//! The app's client of `/api/v1`: the only module that touches gloo-net. Every failure,
//! network and decoding included, comes back as a [`json::ApiError`] a page can show.
//!
//! Writes carry the session's CSRF token (`X-CSRF-Token`); any 401 outside the sign-in
//! calls runs the handler set with [`on_unauthenticated`] (the session sends the user to
//! the sign-in page and back).

mod auth;
mod tracking;

use std::cell::RefCell;
use std::rc::Rc;

use api_types as json;
use gloo_net::http::{Method, RequestBuilder, Response};
use serde::de::DeserializeOwned;
use serde::Serialize;

pub use auth::*;
pub use tracking::*;

/// Error type of every call; `Clone` so resources can hold it.
pub type ApiError = json::ApiError;

thread_local! {
    static CSRF: RefCell<Option<String>> = const { RefCell::new(None) };
    static ON_UNAUTHENTICATED: RefCell<Option<Rc<dyn Fn()>>> = const { RefCell::new(None) };
}

/// Sets (or clears) the CSRF token sent with every non-GET request.
pub fn set_csrf_token(token: Option<String>) {
    CSRF.with(|c| *c.borrow_mut() = token);
}

/// Sets what happens when a call answers 401 (the session expired or was revoked).
pub fn on_unauthenticated(f: impl Fn() + 'static) {
    ON_UNAUTHENTICATED.with(|h| *h.borrow_mut() = Some(Rc::new(f)));
}

/// True when the error is the server's "no such thing" answer.
pub fn is_not_found(e: &ApiError) -> bool {
    e.code == "NOT_FOUND" || e.code == "RESOURCE_DOES_NOT_EXIST"
}

/// True when the caller is signed in but may not see or do this (403).
pub fn is_permission_denied(e: &ApiError) -> bool {
    e.code == "PERMISSION_DENIED"
}

/// True when the caller is not signed in (401).
pub fn is_unauthenticated(e: &ApiError) -> bool {
    e.code == "UNAUTHENTICATED"
}

fn error(code: &str, message: impl Into<String>) -> ApiError {
    ApiError {
        code: code.to_owned(),
        message: message.into(),
        grantors: Vec::new(),
    }
}

async fn decode_error(resp: Response) -> ApiError {
    let status = resp.status();
    match resp.json::<json::ApiError>().await {
        Ok(e) => e,
        Err(_) => {
            let code = match status {
                401 => "UNAUTHENTICATED",
                403 => "PERMISSION_DENIED",
                404 => "NOT_FOUND",
                429 => "TOO_MANY_REQUESTS",
                _ => "HTTP",
            };
            error(
                code,
                format!("The server answered HTTP {status} {}.", resp.status_text()),
            )
        }
    }
}

/// Whether a 401 from this call means "go and sign in" (not for the sign-in calls, whose
/// 401 is the answer itself).
#[derive(Clone, Copy, PartialEq, Eq)]
enum On401 {
    Redirect,
    Report,
}

/// Sends `method url` with an optional JSON body (writes carry the CSRF header) and
/// returns the response when it is 2xx.
async fn send(
    method: Method,
    url: &str,
    body: Option<String>,
    on_401: On401,
) -> Result<Response, ApiError> {
    let is_write = method != Method::GET;
    let mut req = RequestBuilder::new(url).method(method);
    if is_write {
        if let Some(token) = CSRF.with(|c| c.borrow().clone()) {
            req = req.header("X-CSRF-Token", &token);
        }
    }
    let sent = match body {
        Some(b) => match req.header("Content-Type", "application/json").body(b) {
            Ok(r) => r.send().await,
            Err(e) => return Err(error("ENCODE", e.to_string())),
        },
        None => req.send().await,
    };
    let resp = sent.map_err(|e| {
        error(
            "NETWORK",
            format!("Could not reach the runlens server ({e}). Check that it is running."),
        )
    })?;
    if resp.ok() {
        return Ok(resp);
    }
    let err = decode_error(resp).await;
    if is_unauthenticated(&err) && on_401 == On401::Redirect {
        if let Some(h) = ON_UNAUTHENTICATED.with(|h| h.borrow().clone()) {
            h();
        }
    }
    Err(err)
}

async fn decode<T: DeserializeOwned>(resp: Response) -> Result<T, ApiError> {
    resp.json::<T>().await.map_err(|e| {
        error(
            "DECODE",
            format!("The server's answer could not be read: {e}"),
        )
    })
}

fn to_json<B: Serialize>(body: &B) -> Result<String, ApiError> {
    serde_json::to_string(body).map_err(|e| error("ENCODE", e.to_string()))
}

/// GETs `url` and decodes its JSON body.
async fn get<T: DeserializeOwned>(url: &str) -> Result<T, ApiError> {
    decode(send(Method::GET, url, None, On401::Redirect).await?).await
}

/// Sends `body` as JSON with `method` and decodes the JSON answer.
async fn write<B: Serialize, T: DeserializeOwned>(
    method: Method,
    url: &str,
    body: &B,
) -> Result<T, ApiError> {
    decode(send(method, url, Some(to_json(body)?), On401::Redirect).await?).await
}

/// DELETEs `url`, ignoring any answer body.
async fn delete(url: &str) -> Result<(), ApiError> {
    send(Method::DELETE, url, None, On401::Redirect).await?;
    Ok(())
}
