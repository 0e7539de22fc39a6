//! Log lines of job runs: the agent ships them
//! (`POST /job-runs/{id}/attempts/{n}/logs`), readers page through them
//! (`GET /runs/{id}/logs`), follow them live ([`super::logs_stream`]) and download them
//! ([`super::logs_download`]). Reading needs CAN_READ on the run's experiment and CAN_VIEW
//! on its job ([`super::guard::LogsGuard`]). The lines live in the log store
//! ([`crate::logs`]) under the attempt's id.

use api_types::logs::{
    self as json, LevelMode, LogLevel, LogQuery, DEFAULT_PAGE, MAX_BATCH_LINES, MAX_LINE_BYTES,
    MAX_PAGE,
};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::Json;

use super::guard::{JobRunGuard, LogsGuard, MANAGE_RUN};
use super::query::QueryParams;
use crate::jobs::{self, AttemptRef};
use crate::logs::query::{self, Filter, LineKey, Position};
use crate::logs::{store, wire};
use crate::{AppState, Error};

/// Longest search text, in bytes.
pub(crate) const MAX_SEARCH_BYTES: usize = 1000;

/// `POST /api/v1/job-runs/{id}/attempts/{n}/logs` with a [`json::LogBatch`] (CAN_MANAGE_RUN
/// on the job): stores the node's lines exactly once and answers [`json::LogAck`]. The node
/// must be one of the job run's nodes; 1 to [`MAX_BATCH_LINES`] lines of at most
/// [`MAX_LINE_BYTES`] each.
pub(crate) async fn ingest_logs(
    State(state): State<AppState>,
    guard: JobRunGuard<MANAGE_RUN>,
    Path((_, number)): Path<(String, String)>,
    body: Bytes,
) -> Result<Json<json::LogAck>, Error> {
    let number = attempt_number(&number)?;
    let job_run_id = guard.job_run_id;
    let attempt = state
        .store
        .call(move |c| jobs::attempt(c, job_run_id, number))
        .await?;
    let logs = state.store.logs().clone();
    let ack = tokio::task::spawn_blocking(move || {
        let batch: json::LogBatch = serde_json::from_slice(&body).map_err(|e| {
            Error::BadRequest(format!(
                "expected {{\"node\", \"first_seq\", \"lines\": [{{\"ts_ms\", \"stream\": \
                 \"stdout\"|\"stderr\", \"text\"}}]}}: {e}"
            ))
        })?;
        check_batch(&attempt, &batch)?;
        logs.ingest(wire::batch(attempt.attempt_id, batch))
    })
    .await
    .map_err(|e| Error::Internal(format!("log ingest task failed: {e}")))??;
    Ok(Json(ack.into()))
}

/// The `{n}` of an attempt path: 1, 2, ...
fn attempt_number(n: &str) -> Result<u32, Error> {
    n.parse::<u32>().ok().filter(|n| *n >= 1).ok_or_else(|| {
        Error::InvalidParameter(format!(
            "the attempt number must be a positive integer, got '{n}'"
        ))
    })
}

/// A shipped batch's node and sizes, before anything is stored.
fn check_batch(attempt: &AttemptRef, batch: &json::LogBatch) -> Result<(), Error> {
    if !attempt.nodes.contains(&batch.node) {
        let id = attempt.job_run_id;
        return Err(Error::InvalidParameter(format!(
            "node '{node}' is not a node of job run {id} (its nodes: {known}); add it first with \
             POST /api/v1/job-runs/{id}/nodes {{\"node\": \"{node}\"}} (runlens-agent run \
             --join {id} --node {node} does)",
            node = batch.node,
            known = if attempt.nodes.is_empty() {
                "none".to_owned()
            } else {
                attempt.nodes.join(", ")
            },
        )));
    }
    if batch.lines.is_empty() || batch.lines.len() > MAX_BATCH_LINES {
        return Err(Error::InvalidParameter(format!(
            "a log batch holds 1 to {MAX_BATCH_LINES} lines, got {}",
            batch.lines.len()
        )));
    }
    if let Some((i, l)) = batch
        .lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.text.len() > MAX_LINE_BYTES)
    {
        return Err(Error::InvalidParameter(format!(
            "line {i} of the batch (seq {}) has {} bytes; a line holds at most \
             {MAX_LINE_BYTES} bytes (split longer ones)",
            batch.first_seq.saturating_add(i as u64),
            l.text.len()
        )));
    }
    Ok(())
}

/// `GET /api/v1/runs/{id}/logs?node=&level=&level_mode=&q=&since=&until=&before=|after=|at=|earliest=&limit=`:
/// a [`json::LogPage`] of the run's lines (default: the newest [`DEFAULT_PAGE`]).
pub(crate) async fn get_logs(
    State(state): State<AppState>,
    guard: LogsGuard,
    params: QueryParams,
) -> Result<Json<json::LogPage>, Error> {
    let q = log_query(&params)?;
    let filter = filter_of(&q);
    let position = position_of(&q)?;
    let limit = q.limit.map_or(DEFAULT_PAGE, |l| l as usize);
    let attempt = guard.attempt;
    let key = attempt.attempt_id;
    let (page, node_states, expired_through) = state
        .store
        .logs()
        .call_read(move |c| {
            let page = query::page(c, key, &filter, position, limit)?;
            Ok((page, store::nodes(c, key)?, store::expired_through(c, key)?))
        })
        .await?;
    let mut nodes = attempt.nodes;
    for n in &node_states {
        if !nodes.contains(&n.node) {
            nodes.push(n.node.clone());
        }
    }
    Ok(Json(json::LogPage {
        lines: page.lines.into_iter().map(wire::page_line).collect(),
        older: page.older.as_ref().map(LineKey::cursor),
        newer: page.newer.as_ref().map(LineKey::cursor),
        follow_from: wire::follow_cursor(page.follow_from),
        nodes,
        status: attempt.status,
        expired_through,
        gaps: node_states
            .into_iter()
            .filter(|n| !n.gaps.is_empty())
            .map(|n| json::NodeGaps {
                node: n.node,
                gaps: n.gaps.into_iter().map(Into::into).collect(),
            })
            .collect(),
    }))
}

/// The [`LogQuery`] of a request, every malformed value a 400 naming its parameter (empty
/// values count as absent).
pub(super) fn log_query(p: &QueryParams) -> Result<LogQuery, Error> {
    let bad = |m: String| Error::InvalidParameter(m);
    let level = p
        .get("level")
        .map(|v| {
            LogLevel::parse(v.trim()).ok_or_else(|| {
                bad(format!(
                    "level must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL; got '{v}'"
                ))
            })
        })
        .transpose()?;
    let level_mode = p
        .get("level_mode")
        .map(|v| match v.trim() {
            "at_least" => Ok(LevelMode::AtLeast),
            "exactly" => Ok(LevelMode::Exactly),
            _ => Err(bad(format!(
                "level_mode must be at_least or exactly; got '{v}'"
            ))),
        })
        .transpose()?;
    let q = p.get("q").map(str::to_owned);
    if let Some(q) = &q {
        if q.len() > MAX_SEARCH_BYTES || q.contains(['\n', '\r']) {
            return Err(bad(format!(
                "q must be 1 to {MAX_SEARCH_BYTES} bytes of one line"
            )));
        }
    }
    let ms = "a time in ms since the epoch";
    let since = p.parse::<i64>("since", ms)?;
    let until = p.parse::<i64>("until", ms)?;
    if let (Some(s), Some(u)) = (since, until) {
        if u <= s {
            return Err(bad(format!("until ({u}) must be after since ({s})")));
        }
    }
    let cursor = |key: &str| -> Result<Option<String>, Error> {
        match p.get(key) {
            None => Ok(None),
            Some(c) => LineKey::from_cursor(c)
                .map(|_| Some(c.to_owned()))
                .map_err(|_| {
                    bad(format!(
                        "{key} must be a cursor from a log page (older/newer); got '{c}'"
                    ))
                }),
        }
    };
    let limit = p.parse::<u32>("limit", &format!("an integer from 1 to {MAX_PAGE}"))?;
    if limit.is_some_and(|l| l == 0 || l as usize > MAX_PAGE) {
        return Err(bad(format!(
            "limit must be an integer from 1 to {MAX_PAGE}; got '{}'",
            limit.unwrap_or_default()
        )));
    }
    Ok(LogQuery {
        node: p.get("node").map(str::to_owned),
        level,
        level_mode,
        q,
        since,
        until,
        before: cursor("before")?,
        after: cursor("after")?,
        at: p.parse::<i64>("at", ms)?,
        earliest: p.flag("earliest")?,
        limit,
    })
}

/// The store's filter of a query.
pub(super) fn filter_of(q: &LogQuery) -> Filter {
    Filter {
        node: q.node.clone(),
        level: q
            .level
            .map(|l| wire::level_filter(l, q.level_mode.unwrap_or_default())),
        search: q.q.clone(),
        since_ms: q.since,
        until_ms: q.until,
    }
}

/// Where a page starts: at most one of `before`, `after`, `at`, `earliest=true`.
fn position_of(q: &LogQuery) -> Result<Position, Error> {
    let mut named = Vec::new();
    let mut position = Position::Latest;
    if let Some(c) = &q.before {
        named.push("before");
        position = Position::Before(LineKey::from_cursor(c)?);
    }
    if let Some(c) = &q.after {
        named.push("after");
        position = Position::After(LineKey::from_cursor(c)?);
    }
    if let Some(at) = q.at {
        named.push("at");
        position = Position::After(LineKey::at_time(at));
    }
    if q.earliest == Some(true) {
        named.push("earliest");
        position = Position::Earliest;
    }
    if named.len() > 1 {
        return Err(Error::InvalidParameter(format!(
            "give at most one of before, after, at and earliest; got {}",
            named.join(", ")
        )));
    }
    Ok(position)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<LogQuery, Error> {
        log_query(&QueryParams::from_pairs(pairs))
    }

    fn message(e: Error) -> String {
        e.to_string()
    }

    #[test]
    fn a_full_query_parses_and_empty_values_are_absent() {
        let k = LineKey::at_time(5).cursor();
        let q = parse(&[
            ("node", "n0"),
            ("level", "warning"),
            ("level_mode", "exactly"),
            ("q", "loss"),
            ("since", "1"),
            ("until", "9"),
            ("before", &k),
            ("limit", "20"),
            ("at", ""),
        ])
        .unwrap();
        assert_eq!(q.level, Some(LogLevel::Warning));
        assert_eq!(q.level_mode, Some(LevelMode::Exactly));
        assert_eq!((q.since, q.until, q.limit), (Some(1), Some(9), Some(20)));
        assert_eq!(q.at, None);
        assert_eq!(
            position_of(&q).unwrap(),
            Position::Before(LineKey::at_time(5))
        );
        let f = filter_of(&q);
        assert_eq!(
            f.level,
            Some(query::LevelFilter::Exactly(crate::logs::Level::Warning))
        );
    }

    #[test]
    fn bad_values_are_refused_naming_the_parameter() {
        for (pairs, part) in [
            (&[("level", "LOUD")][..], "level must be"),
            (&[("level_mode", "most")][..], "level_mode must be"),
            (&[("since", "yesterday")][..], "since must be"),
            (
                &[("since", "5"), ("until", "5")][..],
                "until (5) must be after",
            ),
            (&[("before", "zz!")][..], "before must be a cursor"),
            (&[("limit", "0")][..], "limit must be"),
            (&[("limit", "10001")][..], "limit must be"),
            (&[("earliest", "maybe")][..], "earliest must be"),
            (&[("q", "a\nb")][..], "q must be"),
        ] {
            let got = message(parse(pairs).unwrap_err());
            assert!(got.contains(part), "{pairs:?}: {got}");
        }
        let two = parse(&[("at", "5"), ("earliest", "true")]).unwrap();
        assert!(message(position_of(&two).unwrap_err()).contains("at most one of"));
        assert!(attempt_number("0").is_err() && attempt_number("x").is_err());
        assert_eq!(attempt_number("2").unwrap(), 2);
    }
}
