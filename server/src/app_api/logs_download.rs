//! Download (`GET /runs/{id}/logs/download`): every line matching the filters, oldest
//! first, as text, streamed. A blocking thread scans the store on a connection of its own
//! ([`crate::logs::LogStore::connect`]) and hands blocks of about [`BLOCK_BYTES`] to the
//! response through a channel of [`BLOCKS_IN_FLIGHT`] blocks, so memory stays bounded
//! whatever the number of lines and however slow the client; a client that goes away
//! stops the scan.

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use tokio::sync::{mpsc, oneshot};

use super::guard::LogsGuard;
use super::logs::{filter_of, log_query};
use super::query::QueryParams;
use crate::logs::query::{self, Filter};
use crate::logs::{wire, Level, LogStore};
use crate::tracking::runs;
use crate::{AppState, Error};

/// Bytes of text gathered before a block is sent.
pub const BLOCK_BYTES: usize = 64 * 1024;

/// Blocks buffered between the scan and the response.
pub const BLOCKS_IN_FLIGHT: usize = 4;

type Block = Result<Bytes, std::io::Error>;

/// `GET /api/v1/runs/{id}/logs/download?node=&level=&level_mode=&q=&since=&until=`: the
/// matching lines as `text/plain`, one `<RFC3339 UTC ms> <node> <LEVEL or -> <text>` per
/// line, as an attachment named `<run name>-logs.txt` (`<run name>-<node>.log` for one
/// node).
pub async fn download_logs(
    State(state): State<AppState>,
    guard: LogsGuard,
    params: QueryParams,
) -> Result<Response, Error> {
    let filter = filter_of(&log_query(&params)?);
    let run_id = guard.run_id.clone();
    let run_name = state
        .store
        .call(move |c| Ok(runs::get_info(c, &run_id)?.run_name))
        .await?;
    let file = match &filter.node {
        Some(node) => format!("{}-{}.log", file_part(&run_name), file_part(node)),
        None => format!("{}-logs.txt", file_part(&run_name)),
    };
    let body = stream_lines(state.store.logs().clone(), guard.attempt.attempt_id, filter).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file}\""),
            ),
            (header::CACHE_CONTROL, "no-store".to_owned()),
        ],
        body,
    )
        .into_response())
}

/// A name made safe for a file name and a quoted header value: characters other than
/// ASCII letters, digits, `.`, `_` and `-` become `_`; empty becomes `run`.
fn file_part(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let safe = safe.trim_start_matches('.');
    if safe.is_empty() {
        "run".to_owned()
    } else {
        safe.to_owned()
    }
}

/// The body of a download: starts the scan on a blocking thread and returns once it has
/// begun (a bad filter is an error here, before any byte is sent).
async fn stream_lines(logs: LogStore, key: i64, filter: Filter) -> Result<Body, Error> {
    let (tx, rx) = mpsc::channel::<Block>(BLOCKS_IN_FLIGHT);
    let (started_tx, started_rx) = oneshot::channel::<Result<(), Error>>();
    tokio::task::spawn_blocking(move || scan(&logs, key, &filter, started_tx, &tx));
    started_rx
        .await
        .map_err(|_| Error::Internal("log download task ended before it started".into()))??;
    // Fused: the compression layer polls the body once more after it has ended.
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|block| (block, rx))
    })
    .fuse();
    Ok(Body::from_stream(stream))
}

/// Scans the lines into blocks until the end, a failure (which aborts the body, so the
/// client sees an incomplete download rather than a short file) or a departed client.
fn scan(
    logs: &LogStore,
    key: i64,
    filter: &Filter,
    started: oneshot::Sender<Result<(), Error>>,
    tx: &mpsc::Sender<Block>,
) {
    let conn = match logs.connect() {
        Ok(c) => c,
        Err(e) => {
            let _ = started.send(Err(e));
            return;
        }
    };
    let lines = match query::stream(&conn, key, filter) {
        Ok(l) => l,
        Err(e) => {
            let _ = started.send(Err(e));
            return;
        }
    };
    if started.send(Ok(())).is_err() {
        return;
    }
    let mut block = String::with_capacity(BLOCK_BYTES + 1024);
    for line in lines {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                tracing::error!("log download of key {key} failed: {e:?}");
                let _ = tx.blocking_send(Err(std::io::Error::other("log download failed")));
                return;
            }
        };
        wire::push_text_line(
            &mut block,
            line.key.ts_ms,
            &line.key.node,
            line.level.map(Level::as_str),
            &line.text,
        );
        if block.len() >= BLOCK_BYTES {
            let full = std::mem::replace(&mut block, String::with_capacity(BLOCK_BYTES + 1024));
            if tx.blocking_send(Ok(Bytes::from(full))).is_err() {
                return; // the client went away
            }
        }
    }
    if !block.is_empty() {
        let _ = tx.blocking_send(Ok(Bytes::from(block)));
    }
}

#[cfg(test)]
mod tests {
    use super::file_part;

    #[test]
    fn file_names_are_safe() {
        assert_eq!(file_part("train \"x\"/y"), "train__x__y");
        assert_eq!(file_part(".."), "run");
        assert_eq!(file_part("node-0.a_b"), "node-0.a_b");
    }
}
