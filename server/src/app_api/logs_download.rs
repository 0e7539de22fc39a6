//! Download (`GET /runs/{id}/logs/download`): every line matching the filters, oldest
//! first, as text, streamed a block at a time as the response asks for it
//! ([`crate::logs::download`]). Each download holds one of its user's download slots
//! ([`crate::downloads`]).

use axum::body::Body;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::guard::LogsGuard;
use super::query::QueryParams;
use crate::logs::{download, page};
use crate::tracking::runs;
use crate::{AppState, Error};

/// `GET /api/v1/runs/{id}/logs/download?node=&level=&level_mode=&q=&since=&until=`: the
/// matching lines as `text/plain`, one `<RFC3339 UTC ms> <node> <LEVEL or -> <text>` per
/// line, as an attachment named `<run name>-logs.txt` (`<run name>-<node>.log` for one
/// node).
pub(crate) async fn download_logs(
    State(state): State<AppState>,
    guard: LogsGuard,
    params: QueryParams,
) -> Result<Response, Error> {
    let filter = page::filter_of(&params.log_query()?);
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
    let blocks =
        download::text_blocks(logs, slot.steps(), guard.attempt.attempt_id, filter).await?;
    let body = slot.hold(Body::from_stream(blocks));
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
