//! Workspace calls of the experiment page: several runs' series in one request,
//! the runs table's CSV link, and the page's one live stream (`EventSource`).

use api_types as json;
use json::workspace::{LiveQuery, LiveUpdate, SeriesBatch, SeriesBatchQuery};

use super::event_stream::EventStream;
use super::http::{get, url, ApiError};
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

/// One run's series of one key through the same batched endpoint (a run page's chart):
/// `GET /api/v1/experiments/{id}/series?run=&key=`. A run the experiment does not have
/// (deleted since the page loaded) is a not-found error.
pub async fn get_run_series(
    experiment_id: String,
    run_id: String,
    q: json::SeriesQuery,
) -> Result<json::MetricSeries, ApiError> {
    let batch = SeriesBatchQuery {
        runs: vec![run_id.clone()],
        keys: vec![q.key.clone()],
        x: q.x,
        x_key: None,
        width: q.width,
        x_min: q.x_min,
        x_max: q.x_max,
    };
    get_series_batch(experiment_id, batch)
        .await?
        .series
        .into_iter()
        .find(|s| s.run_id == run_id && s.key == q.key)
        .ok_or_else(|| ApiError {
            code: json::ErrorCode::NotFound,
            message: format!("run '{run_id}' does not exist"),
            grantors: Vec::new(),
        })
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
    _stream: EventStream,
}

impl LiveStream {
    /// Opens `url` (see [`live_url`]) and calls `on_event` for each event.
    pub fn open(url: &str, on_event: impl Fn(LiveEvent) + 'static) -> Result<Self, ApiError> {
        let mut stream = EventStream::open(url, "open the live stream")?;
        let on_event = std::rc::Rc::new(on_event);
        let f = on_event.clone();
        stream.on_message("update", move |data, _| {
            if let Ok(u) = serde_json::from_str::<LiveUpdate>(&data) {
                f(LiveEvent::Update(u));
            }
        });
        let f = on_event.clone();
        stream.on_signal("resync", move || f(LiveEvent::Resync));
        let f = on_event.clone();
        stream.on_signal("open", move || f(LiveEvent::Opened));
        stream.on_error(move |closed| {
            on_event(if closed {
                LiveEvent::Closed
            } else {
                LiveEvent::Reconnecting
            });
        });
        Ok(Self { _stream: stream })
    }
}
