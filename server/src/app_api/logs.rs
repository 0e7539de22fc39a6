//! Log lines of job runs: the agent ships them
//! (`POST /job-runs/{id}/attempts/{n}/logs`), readers page through them
//! (`GET /runs/{id}/logs`), follow them live ([`super::logs_stream`]) and download them
//! ([`super::logs_download`]). Reading needs CAN_READ on the run's experiment and CAN_VIEW
//! on its job ([`super::guard::LogsGuard`]). The lines live in the log store
//! ([`crate::logs`]) under the attempt's id.

use api_types::logs as json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::Json;

use super::guard::{JobRunGuard, LogsGuard, MANAGE_RUN};
use super::query::{json_body, QueryParams};
use crate::jobs::{self, log_ingest};
use crate::logs::page;
use crate::{AppState, Error};

/// `POST /api/v1/job-runs/{id}/attempts/{n}/logs` with a [`json::LogBatch`] (CAN_MANAGE_RUN
/// on the job): stores the node's lines exactly once and answers [`json::LogAck`]. The node
/// must be one of the job run's nodes; 1 to [`json::MAX_BATCH_LINES`] lines of at most
/// [`json::MAX_LINE_BYTES`] each ([`log_ingest::check_batch`]).
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
        let batch: json::LogBatch = json_body(
            &body,
            "{\"node\", \"first_seq\", \"lines\": [{\"ts_ms\", \"stream\": \
             \"stdout\"|\"stderr\", \"text\"}]}",
        )?;
        log_ingest::ingest(&logs, &attempt, batch)
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

/// `GET /api/v1/runs/{id}/logs?node=&level=&level_mode=&q=&since=&until=&before=|after=|at=|earliest=&limit=`:
/// a [`json::LogPage`] of the run's lines (default: the newest
/// [`api_types::logs::DEFAULT_PAGE`]).
pub(crate) async fn get_logs(
    State(state): State<AppState>,
    guard: LogsGuard,
    params: QueryParams,
) -> Result<Json<json::LogPage>, Error> {
    let q = params.log_query()?;
    let a = guard.attempt;
    let page = page::read(state.store.logs(), a.attempt_id, a.nodes, a.status, &q).await?;
    Ok(Json(page))
}

#[cfg(test)]
mod tests {
    use api_types::logs::{LevelMode, LogLevel, LogQuery};

    use super::*;
    use crate::logs::page::{filter_of, position_of};
    use crate::logs::query::{self, LineKey, Position};

    fn parse(pairs: &[(&str, &str)]) -> Result<LogQuery, Error> {
        QueryParams::from_pairs(pairs).log_query()
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
