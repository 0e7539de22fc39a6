//! Log calls of the run page's Logs tab: a page of lines, the download link and the live
//! stream (`EventSource`; the browser reconnects by itself with `Last-Event-ID`).

use api_types as json;
use json::logs::{LogEvent, LogPage, LogQuery};
use wasm_bindgen::prelude::*;
use web_sys::{EventSource, MessageEvent};

use super::http::{get, on_stream_unauthenticated, url, ApiError};
use crate::query::encode_component;

fn logs_path(run_id: &str, tail: &str) -> String {
    format!("/api/v1/runs/{}/logs{tail}", encode_component(run_id))
}

/// `GET /api/v1/runs/{id}/logs?...`: one page of lines, oldest first.
pub async fn get_run_logs(run_id: String, q: LogQuery) -> Result<LogPage, ApiError> {
    get(&url(&logs_path(&run_id, ""), q.to_pairs())).await
}

/// `/api/v1/runs/{id}/logs/download?...`: every line matching `q`'s filters, as a file.
pub fn logs_download_url(run_id: &str, q: &LogQuery) -> String {
    url(&logs_path(run_id, "/download"), q.to_pairs())
}

/// `/api/v1/runs/{id}/logs/stream?...&from=`: the lines stored after cursor `from`.
pub fn logs_stream_url(run_id: &str, q: &LogQuery, from: &str) -> String {
    let mut pairs = q.to_pairs();
    pairs.push(("from", from.to_owned()));
    url(&logs_path(run_id, "/stream"), pairs)
}

/// What a [`LogStream`] reports.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// New lines; `id` is the cursor to resume after them.
    Lines {
        /// The event id.
        id: String,
        /// The lines.
        lines: Vec<json::logs::LogLine>,
    },
    /// The job run's status changed.
    Status(json::JobRunStatus),
    /// The stream closed for good (the browser will not reconnect by itself).
    Closed,
}

/// A live log stream; closed when dropped.
pub struct LogStream {
    source: EventSource,
    _handlers: [Closure<dyn FnMut(web_sys::Event)>; 4],
}

impl LogStream {
    /// Opens `url` (see [`logs_stream_url`]) and calls `on_event` for each event.
    pub fn open(url: &str, on_event: impl Fn(StreamEvent) + 'static) -> Result<Self, ApiError> {
        let source = EventSource::new(url).map_err(|e| ApiError {
            code: json::ErrorCode::Network,
            message: format!("Could not follow the logs: {e:?}"),
            grantors: Vec::new(),
        })?;
        let on_event = std::rc::Rc::new(on_event);
        let f = on_event.clone();
        let lines = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            let Some(msg) = ev.dyn_ref::<MessageEvent>() else {
                return;
            };
            let data = msg.data().as_string().unwrap_or_default();
            if let Ok(e) = serde_json::from_str::<LogEvent>(&data) {
                f(StreamEvent::Lines {
                    id: msg.last_event_id(),
                    lines: e.lines,
                });
            }
        });
        let f = on_event.clone();
        let status = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            let data = ev
                .dyn_ref::<MessageEvent>()
                .and_then(|m| m.data().as_string())
                .unwrap_or_default();
            if let Ok(s) = serde_json::from_str::<json::JobRunStatus>(&data) {
                f(StreamEvent::Status(s));
            }
        });
        let src = source.clone();
        let error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
            if src.ready_state() == EventSource::CLOSED {
                on_event(StreamEvent::Closed);
            }
        });
        let listen = |name: &str, c: &Closure<dyn FnMut(web_sys::Event)>| {
            // Adding a listener to a live EventSource cannot fail.
            let _ = source.add_event_listener_with_callback(name, c.as_ref().unchecked_ref());
        };
        listen("lines", &lines);
        listen("status", &status);
        listen("error", &error);
        let unauthenticated = on_stream_unauthenticated(&source);
        listen("unauthenticated", &unauthenticated);
        Ok(Self {
            source,
            _handlers: [lines, status, error, unauthenticated],
        })
    }
}

impl Drop for LogStream {
    fn drop(&mut self) {
        self.source.close();
    }
}
