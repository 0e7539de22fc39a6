//! Workspace calls of the experiment page: several runs' series in one request,
//! the runs table's CSV link, and the page's one live stream (`EventSource`).

use api_types as json;
use json::workspace::{LiveQuery, LiveUpdate, SeriesBatch, SeriesBatchQuery};
use wasm_bindgen::prelude::*;
use web_sys::{EventSource, MessageEvent};

use super::http::{get, on_stream_unauthenticated, url, ApiError};
use crate::query::encode_component;

fn experiment_path(experiment_id: &str, tail: &str) -> String {
    format!(
        "/api/v1/experiments/{}{tail}",
        encode_component(experiment_id)
    )
}

/// `GET /api/v1/experiments/{id}/series`: the keys of the runs, one request.
pub async fn get_series_batch(
    experiment_id: String,
    q: SeriesBatchQuery,
) -> Result<SeriesBatch, ApiError> {
    get(&url(
        &experiment_path(&experiment_id, "/series"),
        q.to_pairs(),
    ))
    .await
}

/// `/api/v1/experiments/{id}/runs/csv?...`: every run matching the table's query, as CSV.
pub fn runs_csv_url(experiment_id: &str, q: &json::RunTableQuery) -> String {
    url(&experiment_path(experiment_id, "/runs/csv"), q.to_pairs())
}

/// `/api/v1/experiments/{id}/live?run=...`: the page's live stream.
pub fn live_url(experiment_id: &str, q: &LiveQuery) -> String {
    url(&experiment_path(experiment_id, "/live"), q.to_pairs())
}

/// What a [`LiveStream`] reports.
#[derive(Debug, Clone, PartialEq)]
pub enum LiveEvent {
    /// Writes since the previous update.
    Update(LiveUpdate),
    /// Events were dropped: refetch what the page shows.
    Resync,
    /// The stream is open (first, or again after a reconnect).
    Opened,
    /// The connection dropped and the browser is reconnecting by itself.
    Reconnecting,
    /// The stream closed for good (the browser will not reconnect by itself).
    Closed,
}

/// An experiment's live stream; closed when dropped.
pub struct LiveStream {
    source: EventSource,
    _handlers: [Closure<dyn FnMut(web_sys::Event)>; 5],
}

impl LiveStream {
    /// Opens `url` (see [`live_url`]) and calls `on_event` for each event.
    pub fn open(url: &str, on_event: impl Fn(LiveEvent) + 'static) -> Result<Self, ApiError> {
        let source = EventSource::new(url).map_err(|e| ApiError {
            code: json::ErrorCode::Network,
            message: format!("Could not open the live stream: {e:?}"),
            grantors: Vec::new(),
        })?;
        let on_event = std::rc::Rc::new(on_event);
        let f = on_event.clone();
        let update = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            let data = ev
                .dyn_ref::<MessageEvent>()
                .and_then(|m| m.data().as_string())
                .unwrap_or_default();
            if let Ok(u) = serde_json::from_str::<LiveUpdate>(&data) {
                f(LiveEvent::Update(u));
            }
        });
        let f = on_event.clone();
        let resync = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
            f(LiveEvent::Resync);
        });
        let f = on_event.clone();
        let opened = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
            f(LiveEvent::Opened);
        });
        let src = source.clone();
        let error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
            on_event(if src.ready_state() == EventSource::CLOSED {
                LiveEvent::Closed
            } else {
                LiveEvent::Reconnecting
            });
        });
        let listen = |name: &str, c: &Closure<dyn FnMut(web_sys::Event)>| {
            // Adding a listener to a live EventSource cannot fail.
            let _ = source.add_event_listener_with_callback(name, c.as_ref().unchecked_ref());
        };
        listen("update", &update);
        listen("resync", &resync);
        listen("open", &opened);
        listen("error", &error);
        let unauthenticated = on_stream_unauthenticated(&source);
        listen("unauthenticated", &unauthenticated);
        Ok(Self {
            source,
            _handlers: [update, resync, opened, error, unauthenticated],
        })
    }
}

impl Drop for LiveStream {
    fn drop(&mut self) {
        self.source.close();
    }
}
