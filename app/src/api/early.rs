//! Requests the page started before the app: `index.html`'s inline script sends the
//! experiment page's first two GETs (the experiment, and its runs table's first page with
//! the default columns) while the wasm is still downloading and compiling, reads each
//! answer whole as it arrives, and keeps the promises of those answers in
//! `window.__runlensEarly`, keyed by URL. A GET of the app for one of those URLs takes the
//! answer instead of sending the request again; each is taken once.
//!
//! The answers come read: by the time the app runs they are usually settled, so the app
//! parses them within its first task and the page renders whole, where reading a
//! `Response`'s body would cost a task of the browser's per answer (each with a frame of
//! a half-built page between them).
//!
//! The script starts them only on a signed-in load of `/experiments/{id}` with no query
//! (the runs table in its default state), so what it asks for is what the app asks for
//! first; a URL the app builds differently is simply not found here and sent as usual.

use js_sys::{Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The global the inline script fills.
const GLOBAL: &str = "__runlensEarly";

/// An answer the page read before the app ran.
pub(super) struct Answer {
    /// The HTTP status.
    pub(super) status: u16,
    /// The status line's text.
    pub(super) status_text: String,
    /// The whole body.
    pub(super) body: String,
}

/// The early answer for `url`, if the page started a request for it that nothing took yet,
/// or the network error it ended with.
pub(super) async fn take(url: &str) -> Option<Result<Answer, JsValue>> {
    let promise = take_promise(url)?;
    Some(JsFuture::from(promise).await.and_then(|v| answer(&v)))
}

/// The `{status, statusText, body}` object the inline script makes of a response.
fn answer(v: &JsValue) -> Result<Answer, JsValue> {
    let field = |name: &str| Reflect::get(v, &JsValue::from_str(name));
    let body = field("body")?
        .as_string()
        .ok_or_else(|| JsValue::from_str("an early answer without a body"))?;
    Ok(Answer {
        status: field("status")?.as_f64().unwrap_or(0.0) as u16,
        status_text: field("statusText")?.as_string().unwrap_or_default(),
        body,
    })
}

fn take_promise(url: &str) -> Option<Promise> {
    let window: JsValue = web_sys::window()?.into();
    let map = Reflect::get(&window, &JsValue::from_str(GLOBAL)).ok()?;
    if !map.is_object() {
        return None;
    }
    let key = JsValue::from_str(url);
    let promise = Reflect::get(&map, &key).ok()?.dyn_into::<Promise>().ok()?;
    // Taken once: a later call for the same URL (a refetch) asks the server again.
    Reflect::delete_property(map.unchecked_ref::<js_sys::Object>(), &key).ok()?;
    Some(promise)
}
