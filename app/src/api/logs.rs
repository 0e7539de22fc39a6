//! Log calls of the run page's Logs tab: a page of lines, the download link and the live
//! stream (`EventSource`; the browser reconnects by itself with `Last-Event-ID`).

use api_types as json;
use json::logs::{LogEvent, LogPage, LogQuery};

use super::event_stream::EventStream;
use super::http::{get, url, ApiError};
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
    _stream: EventStream,
}

impl LogStream {
    /// Opens `url` (see [`logs_stream_url`]) and calls `on_event` for each event.
    pub fn open(url: &str, on_event: impl Fn(StreamEvent) + 'static) -> Result<Self, ApiError> {
        let mut stream = EventStream::open(url, "follow the logs")?;
        let on_event = std::rc::Rc::new(on_event);
        let f = on_event.clone();
        stream.on_message("lines", move |data, id| {
            if let Ok(e) = serde_json::from_str::<LogEvent>(&data) {
                f(StreamEvent::Lines { id, lines: e.lines });
            }
        });
        let f = on_event.clone();
        stream.on_message("status", move |data, _| {
            if let Ok(s) = serde_json::from_str::<json::JobRunStatus>(&data) {
                f(StreamEvent::Status(s));
            }
        });
        stream.on_error(move |closed| {
            if closed {
                on_event(StreamEvent::Closed);
            }
        });
        Ok(Self { _stream: stream })
    }
}
