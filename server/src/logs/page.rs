//! A page of a run's lines as the app API answers it: the request's filter and position
//! in the store's terms, and the page with the run's nodes, gaps and expiry.

use api_types::logs::{self as json, LogQuery, DEFAULT_PAGE};
use api_types::JobRunStatus;

use super::query::{self, Filter, LineKey, Position};
use super::{store, wire, LogStore};
use crate::Error;

/// Longest search text, in bytes.
pub(crate) const MAX_SEARCH_BYTES: usize = 1000;

/// The page of the lines stored under `key` (an attempt's id) that `q` asks for (default:
/// the newest [`DEFAULT_PAGE`]), with the job run's `nodes` (those that shipped lines
/// added), each node's open gaps, how far the lines expired, and the job run's `status`.
pub(crate) async fn read(
    logs: &LogStore,
    key: i64,
    mut nodes: Vec<String>,
    status: JobRunStatus,
    q: &LogQuery,
) -> Result<json::LogPage, Error> {
    let filter = filter_of(q);
    let position = position_of(q)?;
    let limit = q.limit.map_or(DEFAULT_PAGE, |l| l as usize);
    let (page, node_states, expired_through) = logs
        .call_read(move |c| {
            let page = query::page(c, key, &filter, position, limit)?;
            Ok((page, store::nodes(c, key)?, store::expired_through(c, key)?))
        })
        .await?;
    for n in &node_states {
        if !nodes.contains(&n.node) {
            nodes.push(n.node.clone());
        }
    }
    Ok(json::LogPage {
        lines: page.lines.into_iter().map(wire::page_line).collect(),
        older: page.older.as_ref().map(LineKey::cursor),
        newer: page.newer.as_ref().map(LineKey::cursor),
        follow_from: wire::follow_cursor(page.follow_from),
        nodes,
        status,
        expired_through,
        gaps: node_states
            .into_iter()
            .filter(|n| !n.gaps.is_empty())
            .map(|n| json::NodeGaps {
                node: n.node,
                gaps: n.gaps.into_iter().map(Into::into).collect(),
            })
            .collect(),
    })
}

/// The store's filter of a query.
pub(crate) fn filter_of(q: &LogQuery) -> Filter {
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
pub(crate) fn position_of(q: &LogQuery) -> Result<Position, Error> {
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
