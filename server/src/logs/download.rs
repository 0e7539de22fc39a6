//! A run's lines as downloadable text: every line matching the filters, oldest first, made
//! a block of about [`BLOCK_BYTES`] at a time, only when the reader asks for the next
//! one: each block is one short step on the blocking pool ([`Steps`]) with a pooled
//! connection that takes the scan ([`query::Scan`]) a block further. Between blocks
//! nothing waits: a reader that reads slowly or not at all holds no thread and no
//! connection, only the paused scan; memory stays bounded whatever the number of lines; a
//! reader that goes away drops the scan. The route is `app_api::logs_download`.

use axum::body::Bytes;
use futures_util::Stream;

use super::query::{self, Filter, Scan};
use super::{wire, Level, LogStore};
use crate::db::Conn;
use crate::downloads::Steps;
use crate::Error;

/// Bytes of text gathered into one block of the body (one step).
pub(crate) const BLOCK_BYTES: usize = 64 * 1024;

/// The text of `key`'s lines matching `filter`, oldest first, as a stream of blocks. The
/// scan starts here (a bad filter is an error here, before any byte is sent); each block
/// after is made when the stream is polled for it.
pub(crate) async fn text_blocks(
    logs: LogStore,
    steps: Steps,
    key: i64,
    filter: Filter,
) -> Result<impl Stream<Item = Result<Bytes, std::io::Error>>, Error> {
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
    Ok(futures_util::StreamExt::fuse(blocks))
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
