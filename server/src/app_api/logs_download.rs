//! Download (`GET /runs/{id}/logs/download`): every line matching the filters, oldest
//! first, as text, streamed. The body is made a block of about [`BLOCK_BYTES`] at a time,
//! only when the response asks for the next one: each block is one short step on the
//! blocking pool ([`Steps`]) with a pooled connection that takes the scan
//! ([`query::Scan`]) a block further. Between blocks nothing waits: a client that reads
//! slowly or not at all holds no thread and no connection, only the paused scan; memory
//! stays bounded whatever the number of lines; a client that goes away drops the scan.
//! Each download holds one of its user's download slots ([`crate::downloads`]).

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::guard::LogsGuard;
use super::logs::{filter_of, log_query};
use super::query::QueryParams;
use crate::db::Conn;
use crate::downloads::Steps;
use crate::logs::query::{self, Filter, Scan};
use crate::logs::{wire, Level, LogStore};
use crate::tracking::runs;
use crate::{AppState, Error};

/// Bytes of text gathered into one block of the body (one step).
pub(crate) const BLOCK_BYTES: usize = 64 * 1024;

/// `GET /api/v1/runs/{id}/logs/download?node=&level=&level_mode=&q=&since=&until=`: the
/// matching lines as `text/plain`, one `<RFC3339 UTC ms> <node> <LEVEL or -> <text>` per
/// line, as an attachment named `<run name>-logs.txt` (`<run name>-<node>.log` for one
/// node).
pub(crate) async fn download_logs(
    State(state): State<AppState>,
    guard: LogsGuard,
    params: QueryParams,
) -> Result<Response, Error> {
    let filter = filter_of(&log_query(&params)?);
    let slot = state.downloads.acquire(&guard.caller)?;
    let run_id = guard.run_id.clone();
    let run_name = state
        .store
        .call(move |c| Ok(runs::get_info(c, &run_id)?.run_name))
        .await?;
    let file = match &filter.node {
        Some(node) => format!("{}-{}.log", file_part(&run_name), file_part(node)),
        None => format!("{}-logs.txt", file_part(&run_name)),
    };
    let logs = state.store.logs().clone();
    let body = stream_lines(logs, slot.steps(), guard.attempt.attempt_id, filter).await?;
    let body = slot.hold(body);
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

/// The body of a download. The scan starts here (a bad filter is an error here, before
/// any byte is sent); each block after is made when the response asks for it.
async fn stream_lines(
    logs: LogStore,
    steps: Steps,
    key: i64,
    filter: Filter,
) -> Result<Body, Error> {
    let start = logs.clone();
    let scan = steps
        .run(move || start.read(|c| Ok(query::stream(c, key, &filter)?.into_scan())))
        .await??;
    let blocks = futures_util::stream::try_unfold(Some(scan), move |scan| {
        let (logs, steps) = (logs.clone(), steps.clone());
        async move {
            let Some(scan) = scan else {
                return Ok(None);
            };
            let (block, scan) = steps
                .run(move || logs.read(|c| next_block(c, scan)))
                .await
                .and_then(|r| r)
                .map_err(|e| {
                    // Aborts the body: the client sees an incomplete download rather than
                    // a short file.
                    tracing::error!("log download of key {key} failed: {e:?}");
                    std::io::Error::other("log download failed")
                })?;
            Ok::<_, std::io::Error>((!block.is_empty()).then(|| (Bytes::from(block), scan)))
        }
    });
    // Fused: the compression layer polls the body once more after it has ended.
    Ok(Body::from_stream(futures_util::StreamExt::fuse(blocks)))
}

/// The next block of text: lines until the block holds [`BLOCK_BYTES`] or the scan ends
/// (then no scan is handed back; an empty block means nothing was left).
fn next_block(conn: &Conn, scan: Scan) -> Result<(String, Option<Scan>), Error> {
    let mut block = String::with_capacity(BLOCK_BYTES + 1024);
    let mut lines = scan.on(conn);
    while block.len() < BLOCK_BYTES {
        let Some(line) = lines.next().transpose()? else {
            return Ok((block, None));
        };
        wire::push_text_line(
            &mut block,
            line.key.ts_ms,
            &line.key.node,
            line.level.map(Level::as_str),
            &line.text,
        );
    }
    Ok((block, Some(lines.into_scan())))
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
