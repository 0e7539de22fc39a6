//! Requests the page started before the app: `index.html`'s inline script sends the
//! experiment page's first two GETs (the experiment, and its runs table's first page with
//! the default columns) while the wasm is still downloading and compiling, and keeps their
//! `fetch` promises in `window.__runlensEarly`, keyed by URL. A GET of the app for one of
//! those URLs takes the promise instead of sending the request again; each is taken once.
//!
//! The script starts them only on a signed-in load of `/experiments/{id}` with no query
//! (the runs table in its default state), so what it asks for is what the app asks for
//! first; a URL the app builds differently is simply not found here and sent as usual.

use js_sys::{Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The global the inline script fills.
const GLOBAL: &str = "__runlensEarly";

/// The early request for `url`, if the page started one that nothing took yet: its
/// response, or the network error it ended with.
pub(super) async fn take(url: &str) -> Option<Result<web_sys::Response, JsValue>> {
    let promise = take_promise(url)?;
    Some(
        JsFuture::from(promise)
            .await
            .and_then(|v| v.dyn_into::<web_sys::Response>()),
    )
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
