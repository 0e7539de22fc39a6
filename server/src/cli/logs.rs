//! `runlens logs JOB_RUN_ID|RUN_ID [--attempt N] [--node N] [--level L [--exactly]]
//! [--search T] [--since T] [--until T] [--follow] [--download-to DIR]`: a job run's log
//! lines in a terminal, over HTTP from a running server, one printed line per log line
//! (`<time UTC> <node> <LEVEL or -> <text>`). `--follow` keeps printing new lines (over the
//! server's event stream, resuming after a dropped connection with no gap and no
//! duplicate) until the job run ends; `--download-to DIR` writes `DIR/<node>.log` per node.
//! The event stream is parsed by `eventsource-stream`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use api_types::jobs::{JobRunDetail, RunJob};
use api_types::logs::{LevelMode, LogEvent, LogLevel, LogLine, LogPage, LogQuery, MAX_PAGE};
use api_types::JobRunStatus;
use chrono::{DateTime, Utc};
use eventsource_stream::{EventStreamError, Eventsource};
use futures_util::StreamExt;
use net::ApiClient;

use super::client::{explain, Remote};
use server::logs::wire;

/// How long `--follow` waits before reconnecting after the stream dropped.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// `runlens logs ...`
#[derive(clap::Args)]
pub(crate) struct LogsArgs {
    #[command(flatten)]
    remote: Remote,
    /// A job run id (an integer; its latest attempt unless --attempt) or an MLflow run id
    /// (32 hex characters).
    id: String,
    /// This attempt of the job run (1 is the first try).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    attempt: Option<u32>,
    /// Only this node's lines.
    #[arg(long, value_name = "NODE")]
    node: Option<String>,
    /// Only lines of this level or more severe: DEBUG, INFO, WARNING, ERROR, CRITICAL.
    #[arg(long, value_name = "L", value_parser = parse_level)]
    level: Option<LogLevel>,
    /// With --level: only that level.
    #[arg(long, requires = "level")]
    exactly: bool,
    /// Only lines containing this text (ignoring ASCII case).
    #[arg(long, value_name = "TEXT")]
    search: Option<String>,
    /// Only lines at or after this time: RFC 3339 (2026-01-31T12:00:00Z) or ago (10m, 2h, 3d).
    #[arg(long, value_name = "T", value_parser = parse_time)]
    since: Option<i64>,
    /// Only lines before this time (same forms as --since).
    #[arg(long, value_name = "T", value_parser = parse_time)]
    until: Option<i64>,
    /// Keep printing new lines as they arrive, until the job run ends.
    #[arg(long, conflicts_with = "download_to")]
    follow: bool,
    /// Write the matching lines to `DIR/<node>.log`, one file per node.
    #[arg(long, value_name = "DIR")]
    download_to: Option<PathBuf>,
}

/// A current-thread runtime for one client command.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}

/// Runs `runlens logs ...`.
pub(crate) fn logs(args: LogsArgs) -> Result<(), String> {
    let client = args.remote.client()?;
    runtime()?.block_on(async move {
        let run_id = resolve_run(&client, &args.id, args.attempt).await?;
        let query = LogQuery {
            node: args.node.clone(),
            level: args.level,
            level_mode: args.exactly.then_some(LevelMode::Exactly),
            q: args.search.clone(),
            since: args.since,
            until: args.until,
            ..LogQuery::default()
        };
        match &args.download_to {
            Some(dir) => download(&client, &run_id, &query, dir).await,
            None => print_lines(&client, &run_id, &query, args.follow).await,
        }
    })
}

fn parse_level(s: &str) -> Result<LogLevel, String> {
    LogLevel::parse(s)
        .ok_or_else(|| format!("{s:?} is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL"))
}

/// A time given as RFC 3339 or as a duration ago (`30s`, `10m`, `2h`, `3d`), in ms.
fn parse_time(s: &str) -> Result<i64, String> {
    parse_time_at(s, Utc::now().timestamp_millis())
}

/// [`parse_time`] at `now_ms`. The duration is one count and one unit of `s m h d`, read
/// here rather than by `humantime`, which also takes months, years (`10y`) and compound
/// forms (`1h 30m`) that this flag's help does not promise.
fn parse_time_at(s: &str, now_ms: i64) -> Result<i64, String> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.timestamp_millis());
    }
    let unit_ms = match s.chars().last() {
        Some('s') => 1_000,
        Some('m') => 60_000,
        Some('h') => 3_600_000,
        Some('d') => 86_400_000,
        _ => 0,
    };
    let n = s[..s.len().saturating_sub(1)].parse::<i64>().ok();
    match n {
        Some(n) if unit_ms > 0 && n >= 0 => Ok(now_ms.saturating_sub(n.saturating_mul(unit_ms))),
        _ => Err(format!(
            "{s:?} is not a time: give RFC 3339 (2026-01-31T12:00:00Z) or a duration ago \
             (30s, 10m, 2h, 3d)"
        )),
    }
}

/// The run whose lines are read: a run id as given, or the job run's attempt (latest
/// unless `attempt`).
async fn resolve_run(client: &ApiClient, id: &str, attempt: Option<u32>) -> Result<String, String> {
    let is_run_id = id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit());
    let (job_run_id, attempts) = if is_run_id {
        if attempt.is_none() {
            return Ok(id.to_owned());
        }
        let job: RunJob = client
            .get(&format!("/api/v1/runs/{id}/job"))
            .send_json()
            .await
            .map_err(explain)?;
        let info = job
            .job
            .ok_or_else(|| format!("run {id} was not started by a job, so it has no attempts"))?;
        (info.job_run_id, info.attempts)
    } else {
        let job_run_id: i64 = id.parse().map_err(|_| {
            format!("{id:?} is neither a job run id (an integer) nor a run id (32 hex characters)")
        })?;
        let detail: JobRunDetail = client
            .get(&format!("/api/v1/job-runs/{job_run_id}"))
            .send_json()
            .await
            .map_err(explain)?;
        (job_run_id, detail.attempts)
    };
    let pick = match attempt {
        Some(n) => attempts.iter().find(|a| a.number == n),
        None => attempts.iter().max_by_key(|a| a.number),
    };
    pick.map(|a| a.run_id.clone()).ok_or_else(|| match attempt {
        Some(n) => format!(
            "job run {job_run_id} has no attempt {n} (it has {})",
            attempts.len()
        ),
        None => format!("job run {job_run_id} has no attempt yet, so no logs"),
    })
}

/// The query string of `query` with `extra` pairs.
fn pairs(query: &LogQuery, extra: &[(&'static str, String)]) -> Vec<(&'static str, String)> {
    let mut out = query.to_pairs();
    out.extend(extra.iter().cloned());
    out
}

/// The text form of a line, as downloads have it.
fn text_line(out: &mut String, l: &LogLine) {
    wire::push_text_line(
        out,
        l.ts_ms,
        &l.node,
        l.level.map(LogLevel::as_str),
        &l.text,
    );
}

/// Writes to stdout; `false` once stdout is closed (e.g. `| head`), to stop quietly.
fn emit(text: &str) -> Result<bool, String> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(format!("writing to stdout: {e}")),
    }
}

/// Prints every matching line, oldest first, then (with `follow`) the new ones.
async fn print_lines(
    client: &ApiClient,
    run_id: &str,
    query: &LogQuery,
    follow: bool,
) -> Result<(), String> {
    let path = format!("/api/v1/runs/{run_id}/logs");
    let mut position = ("earliest", "true".to_owned());
    let mut first = true;
    let follow_from = loop {
        let q = pairs(query, &[position.clone(), ("limit", MAX_PAGE.to_string())]);
        let page: LogPage = client
            .get(&path)
            .query(&q)
            .send_json()
            .await
            .map_err(explain)?;
        if first {
            notices(&page);
            first = false;
        }
        let mut text = String::new();
        for l in &page.lines {
            text_line(&mut text, l);
        }
        if !emit(&text)? {
            return Ok(());
        }
        match page.newer {
            Some(c) => position = ("after", c),
            None => break page.follow_from,
        }
    };
    if follow {
        follow_lines(client, run_id, query, follow_from).await?;
    }
    Ok(())
}

/// Tells stderr what the lines cannot show: expired and missing lines.
fn notices(page: &LogPage) {
    if let Some(t) = page.expired_through {
        eprintln!(
            "runlens: lines up to {} expired (log retention) and are gone",
            wire::rfc3339_ms(t)
        );
    }
    for n in &page.gaps {
        let ranges: Vec<String> = n
            .gaps
            .iter()
            .map(|g| format!("{}-{}", g.first_missing, g.last_missing))
            .collect();
        eprintln!(
            "runlens: node {} is missing lines {} (not received yet)",
            n.node,
            ranges.join(", ")
        );
    }
}

/// Follows the event stream from `from` until the job run ends; reconnects after a dropped
/// connection with `Last-Event-ID`, so no line is printed twice or skipped.
async fn follow_lines(
    client: &ApiClient,
    run_id: &str,
    query: &LogQuery,
    from: String,
) -> Result<(), String> {
    let path = format!("/api/v1/runs/{run_id}/logs/stream");
    let q = pairs(query, &[("from", from.clone())]);
    let mut last_id = from;
    loop {
        let call = client
            .get(&path)
            .query(&q)
            .header("accept", "text/event-stream")
            .header("last-event-id", &last_id);
        let ended = match call.send_streamed().await {
            Ok(resp) => read_events(resp, &mut last_id).await?,
            Err(e) if e.is_transient() => {
                eprintln!("runlens: {}; retrying", explain(e));
                false
            }
            Err(e) => return Err(explain(e)),
        };
        if ended {
            return Ok(());
        }
        tokio::time::sleep(RECONNECT_AFTER).await;
    }
}

/// One server-sent event, as [`dispatch`] acts on it.
struct SseEvent {
    event: String,
    id: Option<String>,
    data: String,
}

impl From<eventsource_stream::Event> for SseEvent {
    fn from(ev: eventsource_stream::Event) -> Self {
        SseEvent {
            event: ev.event,
            // The parser keeps the last id seen for events that carry none.
            id: (!ev.id.is_empty()).then_some(ev.id),
            data: ev.data,
        }
    }
}

/// Reads events until the stream ends (`Ok(false)`: reconnect) or the job run has ended
/// or stdout closed (`Ok(true)`), printing lines and keeping the last event id.
async fn read_events(resp: reqwest::Response, last_id: &mut String) -> Result<bool, String> {
    let chunks = futures_util::stream::unfold(resp, |mut resp| async move {
        let chunk = resp.chunk().await.transpose()?;
        Some((chunk, resp))
    });
    let mut events = std::pin::pin!(chunks.eventsource());
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            Err(EventStreamError::Transport(e)) => {
                eprintln!(
                    "runlens: the log stream dropped ({}); resuming",
                    net::describe(&e)
                );
                return Ok(false);
            }
            Err(e) => return Err(format!("unexpected event stream from the server: {e}")),
        };
        if let Some(stop) = dispatch(event.into(), last_id)? {
            return Ok(stop);
        }
    }
    Ok(false)
}

/// Acts on a complete event: prints lines, notes the id; `Some(true)` to stop (the job run
/// ended or stdout closed), `None` to go on.
fn dispatch(ev: SseEvent, last_id: &mut String) -> Result<Option<bool>, String> {
    match ev.event.as_str() {
        "lines" => {
            let event: LogEvent = serde_json::from_str(&ev.data)
                .map_err(|e| format!("unexpected log event from the server: {e}"))?;
            let mut text = String::new();
            for l in &event.lines {
                text_line(&mut text, l);
            }
            if !emit(&text)? {
                return Ok(Some(true));
            }
        }
        "status" => {
            let status: JobRunStatus = serde_json::from_str(&ev.data)
                .map_err(|e| format!("unexpected status event from the server: {e}"))?;
            if !status.is_active() {
                eprintln!("runlens: the job run is {}", status.as_str());
                return Ok(Some(true));
            }
        }
        _ => {}
    }
    if let Some(id) = ev.id {
        *last_id = id;
    }
    Ok(None)
}

/// Writes each node's matching lines to `dir/<node>.log` (only `--node` if given).
async fn download(
    client: &ApiClient,
    run_id: &str,
    query: &LogQuery,
    dir: &Path,
) -> Result<(), String> {
    let nodes = match &query.node {
        Some(n) => vec![n.clone()],
        None => {
            let q = [("limit", "1".to_owned())];
            let page: LogPage = client
                .get(&format!("/api/v1/runs/{run_id}/logs"))
                .query(&q)
                .send_json()
                .await
                .map_err(explain)?;
            notices(&page);
            page.nodes
        }
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = format!("/api/v1/runs/{run_id}/logs/download");
    for node in nodes {
        if !api_types::nodes::is_valid_node_name(&node) {
            return Err(format!("node {node:?} cannot be a file name"));
        }
        let file = dir.join(format!("{node}.log"));
        let q = pairs(
            &LogQuery {
                node: Some(node.clone()),
                ..query.clone()
            },
            &[],
        );
        let mut resp = client
            .get(&path)
            .query(&q)
            .send_streamed()
            .await
            .map_err(explain)?;
        let mut out = std::io::BufWriter::new(
            std::fs::File::create(&file)
                .map_err(|e| format!("cannot create {}: {e}", file.display()))?,
        );
        let mut lines = 0usize;
        loop {
            let chunk = resp
                .chunk()
                .await
                .map_err(|e| format!("downloading {node}'s lines: {}", net::describe(&e)))?;
            let Some(chunk) = chunk else { break };
            lines += chunk.iter().filter(|b| **b == b'\n').count();
            out.write_all(&chunk)
                .map_err(|e| format!("writing {}: {e}", file.display()))?;
        }
        out.flush()
            .map_err(|e| format!("writing {}: {e}", file.display()))?;
        eprintln!("runlens: wrote {} ({lines} lines)", file.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_or_ago() {
        let now = 1_000_000_000;
        assert_eq!(parse_time_at("10m", now).unwrap(), now - 600_000);
        assert_eq!(parse_time_at("2h", now).unwrap(), now - 7_200_000);
        assert_eq!(parse_time_at("3d", now).unwrap(), now - 3 * 86_400_000);
        assert_eq!(parse_time_at("30s", now).unwrap(), now - 30_000);
        assert_eq!(parse_time_at("1970-01-01T00:00:01.5Z", now).unwrap(), 1_500);
        assert_eq!(parse_time_at("1970-01-01T01:00:00+01:00", now).unwrap(), 0);
        for bad in ["", "10", "m", "-1m", "10y", "yesterday"] {
            assert!(parse_time_at(bad, now).is_err(), "{bad}");
        }
    }

    #[test]
    fn events_parse_across_fields_and_comments() {
        let text = [
            ": keep-alive",
            "",
            "event: lines",
            "id: 42",
            "data: {\"lines\":",
            "data: []}",
            "",
            "",
        ]
        .join("\n");
        let chunks = futures_util::stream::iter([Ok::<_, ()>(text)]);
        let mut events: Vec<eventsource_stream::Event> =
            futures_executor::block_on(chunks.eventsource().map(Result::unwrap).collect());
        assert_eq!(events.len(), 1, "the comment makes no event");
        let ev = SseEvent::from(events.remove(0));
        assert_eq!(ev.event, "lines");
        assert_eq!(ev.id.as_deref(), Some("42"));
        assert_eq!(ev.data, "{\"lines\":\n[]}");
        let mut last = "1".to_owned();
        assert_eq!(dispatch(ev, &mut last).unwrap(), None);
        assert_eq!(last, "42");
        let status = SseEvent {
            event: "status".into(),
            id: None,
            data: "\"FAILED\"".into(),
        };
        assert_eq!(dispatch(status, &mut last).unwrap(), Some(true));
    }
}
