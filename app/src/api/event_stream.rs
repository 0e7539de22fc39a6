//! The app's one wrapper over the browser's `EventSource`: opens a stream, calls a handler
//! per named event, ends the stream (and runs the 401 handler) when the server says its
//! credential no longer holds, and closes it when dropped. The browser reconnects by
//! itself after a dropped connection, resuming with `Last-Event-ID`.

use api_types as json;
use wasm_bindgen::prelude::*;
use web_sys::{EventSource, MessageEvent};

use super::http::{on_stream_unauthenticated, ApiError};

/// An open `EventSource` and its listeners; closed when dropped.
pub(super) struct EventStream {
    source: EventSource,
    handlers: Vec<Closure<dyn FnMut(web_sys::Event)>>,
}

impl EventStream {
    /// Opens `url`; `what` says in an error what could not be opened ("follow the logs").
    pub(super) fn open(url: &str, what: &str) -> Result<Self, ApiError> {
        let source = EventSource::new(url).map_err(|e| ApiError {
            code: json::ErrorCode::Network,
            message: format!("Could not {what}: {e:?}"),
            grantors: Vec::new(),
        })?;
        let mut stream = EventStream {
            handlers: Vec::new(),
            source,
        };
        let unauthenticated = on_stream_unauthenticated(&stream.source);
        stream.listen("unauthenticated", unauthenticated);
        Ok(stream)
    }

    /// Calls `f` with each message of the event `name`: its data and its id.
    pub(super) fn on_message(&mut self, name: &str, f: impl Fn(String, String) + 'static) {
        let handler = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            if let Some(msg) = ev.dyn_ref::<MessageEvent>() {
                f(
                    msg.data().as_string().unwrap_or_default(),
                    msg.last_event_id(),
                );
            }
        });
        self.listen(name, handler);
    }

    /// Calls `f` on the event `name`, which carries no data (`open`).
    pub(super) fn on_signal(&mut self, name: &str, f: impl Fn() + 'static) {
        let handler = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| f());
        self.listen(name, handler);
    }

    /// Calls `f` when the connection fails: `true` when the stream closed for good, `false`
    /// while the browser reconnects by itself.
    pub(super) fn on_error(&mut self, f: impl Fn(bool) + 'static) {
        let source = self.source.clone();
        let handler = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
            f(source.ready_state() == EventSource::CLOSED);
        });
        self.listen("error", handler);
    }

    fn listen(&mut self, name: &str, handler: Closure<dyn FnMut(web_sys::Event)>) {
        // Adding a listener to a live EventSource cannot fail.
        let _ = self
            .source
            .add_event_listener_with_callback(name, handler.as_ref().unchecked_ref());
        self.handlers.push(handler);
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.source.close();
    }
}
