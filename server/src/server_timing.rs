//! `Server-Timing: app;dur=<ms>` on every response: the milliseconds from the request
//! reaching the router to its response's headers (a stream's or a download's body is sent
//! after). Browsers show it in their network panels; clients and benchmarks read it to tell
//! the server's share of a call from their own and the network's. Whole milliseconds: a
//! finer clock would only sharpen timing guesses, not the picture.
//!
//! Offers the middleware [`add`].

use std::time::Instant;

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

/// The header's name.
const SERVER_TIMING: HeaderName = HeaderName::from_static("server-timing");

/// The layer: times the rest of the stack and adds the header.
pub(crate) async fn add(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let mut resp = next.run(req).await;
    let ms = started.elapsed().as_millis();
    if let Ok(v) = HeaderValue::from_str(&format!("app;dur={ms}")) {
        resp.headers_mut().insert(SERVER_TIMING, v);
    }
    resp
}
