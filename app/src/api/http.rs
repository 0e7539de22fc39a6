//! The HTTP plumbing under every call: JSON in and out, the CSRF header on writes, errors
//! as [`ApiError`], and the 401 handler.

use std::cell::RefCell;
use std::rc::Rc;

use api_types as json;
use gloo_net::http::{Method, RequestBuilder, Response};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::closure::Closure;
use web_sys::EventSource;

use crate::query::Query;

/// Error type of every call; `Clone` so resources can hold it.
pub type ApiError = json::ApiError;

/// Machine-readable code of an [`ApiError`].
pub use json::ErrorCode;

thread_local! {
    static CSRF: RefCell<Option<String>> = const { RefCell::new(None) };
    static ON_UNAUTHENTICATED: RefCell<Option<Rc<dyn Fn()>>> = const { RefCell::new(None) };
}

/// Sets (or clears) the CSRF token sent with every non-GET request.
pub fn set_csrf_token(token: Option<String>) {
    CSRF.with(|c| *c.borrow_mut() = token);
}

/// Name of the cookie the server sets on each page load while the browser holds a
/// credential (a session cookie, which the app cannot read, or a trusted proxy's header).
const SIGNED_IN_HINT: &str = "runlens_signed_in";

/// Whether the page came with a credential, so asking who is signed in is worth a request;
/// without one the answer is "nobody" and the browser would log the 401.
pub fn signed_in_hint() -> bool {
    let cookies = html_document()
        .and_then(|d| d.cookie().ok())
        .unwrap_or_default();
    cookies
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .any(|(name, value)| name == SIGNED_IN_HINT && !value.is_empty())
}

/// Clears the signed-in hint once the server said nobody is signed in, so that nothing
/// more (a sign-in's token fetch) asks again before the next page load.
pub fn clear_signed_in_hint() {
    if let Some(d) = html_document() {
        let _ = d.set_cookie(&format!("{SIGNED_IN_HINT}=; Path=/; Max-Age=0"));
    }
}

fn html_document() -> Option<web_sys::HtmlDocument> {
    use wasm_bindgen::JsCast;
    web_sys::window()?.document()?.dyn_into().ok()
}

/// The CSRF token for a write. A write made before the start-up session check answered
/// asks for the token first (the check and the write race only in the page's first moments).
async fn csrf_token() -> Option<String> {
    if let Some(token) = CSRF.with(|c| c.borrow().clone()) {
        return Some(token);
    }
    if !signed_in_hint() {
        return None;
    }
    let resp = RequestBuilder::new(SESSION).send().await.ok()?;
    let me: json::Me = resp.ok().then_some(resp)?.json().await.ok()?;
    set_csrf_token(Some(me.csrf_token.clone()));
    Some(me.csrf_token)
}

/// The session route: who is signed in (GET), sign in (POST), sign out (DELETE).
pub(super) const SESSION: &str = "/api/v1/session";

/// Sets what happens when a call answers 401 (the session expired or was revoked).
pub fn on_unauthenticated(f: impl Fn() + 'static) {
    ON_UNAUTHENTICATED.with(|h| *h.borrow_mut() = Some(Rc::new(f)));
}

fn error(code: ErrorCode, message: impl Into<String>) -> ApiError {
    ApiError {
        code,
        message: message.into(),
        grantors: Vec::new(),
    }
}

/// Reads an error answer: the app API's `ApiError`, else MLflow's `{"error_code",
/// "message"}` (the `/ajax-api/` writes), else a message naming the HTTP status.
async fn decode_error(resp: Response) -> ApiError {
    let text = resp.text().await.unwrap_or_default();
    error_answer(resp.status(), &resp.status_text(), &text)
}

/// The [`ApiError`] of a non-2xx answer whose body is `text`.
fn error_answer(status: u16, status_text: &str, text: &str) -> ApiError {
    match serde_json::from_str::<json::ApiError>(text)
        .ok()
        .or_else(|| super::mlflow_error::mlflow_error(text))
    {
        Some(e) => e,
        None => {
            let code = match status {
                401 => ErrorCode::Unauthenticated,
                403 => ErrorCode::PermissionDenied,
                404 => ErrorCode::NotFound,
                429 => ErrorCode::TooManyRequests,
                _ => ErrorCode::Http,
            };
            error(
                code,
                format!("The server answered HTTP {status} {status_text}."),
            )
        }
    }
}

/// Whether a 401 from this call means "go and sign in" (not for the sign-in calls, whose
/// 401 is the answer itself).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum On401 {
    Redirect,
    Report,
}

/// Sends `method url` with an optional JSON body (writes carry the CSRF header) and
/// returns the response when it is 2xx.
pub(super) async fn send(
    method: Method,
    url: &str,
    body: Option<String>,
    on_401: On401,
) -> Result<Response, ApiError> {
    send_with(RequestBuilder::new(url), method, body, on_401).await
}

/// The error of a request that got no answer.
fn network_error(why: impl std::fmt::Display) -> ApiError {
    error(
        ErrorCode::Network,
        format!("Could not reach the runlens server ({why}). Check that it is running."),
    )
}

/// [`send`] for a request that carries headers of its own (a `Range`: its 416, "nothing
/// at that offset", comes back as a response, not an error).
pub(super) async fn send_with(
    req: RequestBuilder,
    method: Method,
    body: Option<String>,
    on_401: On401,
) -> Result<Response, ApiError> {
    let is_write = method != Method::GET;
    let token = if is_write { csrf_token().await } else { None };
    let mut req = req.method(method);
    if let Some(token) = token {
        req = req.header("X-CSRF-Token", &token);
    }
    let sent = match body {
        Some(b) => match req.header("Content-Type", "application/json").body(b) {
            Ok(r) => r.send().await,
            Err(e) => return Err(error(ErrorCode::Encode, e.to_string())),
        },
        None => req.send().await,
    };
    answer(sent.map_err(network_error)?, on_401).await
}

/// A response as a call's result: 2xx (and a `Range`'s 416) as it is, any other status as
/// its [`ApiError`], a 401 also running the handler when `on_401` says so.
async fn answer(resp: Response, on_401: On401) -> Result<Response, ApiError> {
    if resp.ok() || resp.status() == 416 {
        return Ok(resp);
    }
    Err(reported(decode_error(resp).await, on_401))
}

/// `err`, having run the 401 handler when it is a 401 and `on_401` says so.
fn reported(err: ApiError, on_401: On401) -> ApiError {
    if err.code == ErrorCode::Unauthenticated && on_401 == On401::Redirect {
        unauthenticated();
    }
    err
}

/// Runs the handler set with [`on_unauthenticated`].
fn unauthenticated() {
    if let Some(h) = ON_UNAUTHENTICATED.with(|h| h.borrow().clone()) {
        h();
    }
}

/// The listener of a stream's `unauthenticated` event (the server ended the stream because
/// its credential no longer holds): closes `source`, so the browser does not reconnect
/// (its reconnect would get a 401 an `EventSource` cannot read), and runs the 401 handler.
pub(super) fn on_stream_unauthenticated(
    source: &EventSource,
) -> Closure<dyn FnMut(web_sys::Event)> {
    let source = source.clone();
    Closure::new(move |_: web_sys::Event| {
        source.close();
        unauthenticated();
    })
}

pub(super) async fn decode<T: DeserializeOwned>(resp: Response) -> Result<T, ApiError> {
    resp.json::<T>().await.map_err(unreadable)
}

/// The error of an answer whose body is not what the call expects.
fn unreadable(why: impl std::fmt::Display) -> ApiError {
    error(
        ErrorCode::Decode,
        format!("The server's answer could not be read: {why}"),
    )
}

pub(super) fn to_json<B: Serialize>(body: &B) -> Result<String, ApiError> {
    serde_json::to_string(body).map_err(|e| error(ErrorCode::Encode, e.to_string()))
}

/// GETs `url` and decodes its JSON body; an answer the page asked for before the app ran
/// ([`super::early`]) is taken instead of asking again.
pub(super) async fn get<T: DeserializeOwned>(url: &str) -> Result<T, ApiError> {
    if let Some(early) = super::early::take(url).await {
        let a =
            early.map_err(|e| network_error(e.as_string().unwrap_or_else(|| format!("{e:?}"))))?;
        if !(200..300).contains(&a.status) {
            let err = error_answer(a.status, &a.status_text, &a.body);
            return Err(reported(err, On401::Redirect));
        }
        return serde_json::from_str(&a.body).map_err(unreadable);
    }
    decode(send(Method::GET, url, None, On401::Redirect).await?).await
}

/// Sends `body` as JSON with `method` and decodes the JSON answer.
pub(super) async fn write<B: Serialize, T: DeserializeOwned>(
    method: Method,
    url: &str,
    body: &B,
) -> Result<T, ApiError> {
    decode(send(method, url, Some(to_json(body)?), On401::Redirect).await?).await
}

/// Sends `body` with `method` to MLflow's `endpoint` under `/ajax-api/2.0/mlflow/` (as
/// MLflow's own UI calls it), ignoring the answer; a failure carries MLflow's message.
pub(super) async fn mlflow_write(
    method: Method,
    endpoint: &str,
    body: &serde_json::Value,
) -> Result<(), ApiError> {
    let url = format!("/ajax-api/2.0/mlflow/{endpoint}");
    write::<_, serde::de::IgnoredAny>(method, &url, body).await?;
    Ok(())
}

/// DELETEs `url`, ignoring any answer body.
pub(super) async fn delete(url: &str) -> Result<(), ApiError> {
    send(Method::DELETE, url, None, On401::Redirect).await?;
    Ok(())
}

/// `path` with the query string of `pairs` (as the `to_pairs` of `api_types`' query types
/// give them).
pub(super) fn url(path: &str, pairs: Vec<(&'static str, String)>) -> String {
    pairs
        .into_iter()
        .fold(Query::new(), |q, (k, v)| q.with(k, v))
        .url(path)
}
