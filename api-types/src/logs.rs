//! Log lines of job runs (`/api/v1/job-runs/{id}/attempts/{n}/logs`,
//! `/api/v1/runs/{id}/logs...`): what the agent ships, what the Logs tab and the CLI read.
//!
//! Lines belong to an attempt (one MLflow run) and a node label. Each node numbers its
//! lines from 0 per attempt (`seq`), so a re-sent batch is stored once and a missing range
//! is visible. Reading needs CAN_READ on the run's experiment **and** CAN_VIEW on the job;
//! without the latter every log route answers 403 `PERMISSION_DENIED` with
//! [`access_denied_message`] and no line.

use serde::{Deserialize, Serialize};

use crate::{Principal, PrincipalKind};

/// Most lines in one ingested batch.
pub const MAX_BATCH_LINES: usize = 10_000;
/// Largest ingest request body, bytes.
pub const MAX_BATCH_BODY: usize = 8 * 1024 * 1024;
/// Longest line text, bytes (the agent splits longer lines).
pub const MAX_LINE_BYTES: usize = 256 * 1024;
/// Most lines in one page.
pub const MAX_PAGE: usize = 10_000;
/// Lines in a page when the query names no `limit`.
pub const DEFAULT_PAGE: usize = 500;

/// A line's severity, parsed by the server from common formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum LogLevel {
    /// DEBUG.
    Debug,
    /// INFO.
    Info,
    /// WARNING (also WARN, W).
    Warning,
    /// ERROR (also a traceback's lines).
    Error,
    /// CRITICAL (also FATAL).
    Critical,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 5] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
    ];

    /// The wire and query spelling, e.g. `WARNING`.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "DEBUG",
            LogLevel::Info => "INFO",
            LogLevel::Warning => "WARNING",
            LogLevel::Error => "ERROR",
            LogLevel::Critical => "CRITICAL",
        }
    }

    /// Parses [`LogLevel::as_str`]'s spelling, ignoring ASCII case.
    pub fn parse(s: &str) -> Option<LogLevel> {
        LogLevel::ALL
            .into_iter()
            .find(|l| l.as_str().eq_ignore_ascii_case(s))
    }
}

/// Which output stream a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// One line as shipped; its sequence number is its place in the [`LogBatch`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewLogLine {
    /// When the agent read it, ms since the epoch.
    pub ts_ms: i64,
    /// stdout or stderr.
    pub stream: LogStream,
    /// The text without its line ending; ANSI codes kept.
    pub text: String,
}

/// `POST /api/v1/job-runs/{id}/attempts/{n}/logs` (CAN_MANAGE_RUN on the job): consecutive
/// lines of one node, line `i` having sequence number `first_seq + i`. Idempotent: lines
/// already stored are dropped. Answers [`LogAck`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogBatch {
    /// The node label (a valid node name, and one of the job run's nodes).
    pub node: String,
    /// Sequence number of the first line (per attempt and node, from 0).
    pub first_seq: u64,
    /// 1 to [`MAX_BATCH_LINES`] lines.
    pub lines: Vec<NewLogLine>,
}

/// A range of sequence numbers not received, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogGap {
    /// First missing.
    pub first_missing: u64,
    /// Last missing.
    pub last_missing: u64,
}

/// What the server did with a [`LogBatch`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogAck {
    /// Lines stored now.
    pub stored: u64,
    /// Lines dropped as already stored.
    pub duplicates: u64,
    /// The sequence number the node's next new line should have.
    pub next_seq: u64,
    /// The node's missing ranges, oldest first.
    pub gaps: Vec<LogGap>,
}

/// One stored line as read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// When it was read, ms since the epoch.
    pub ts_ms: i64,
    /// Node label.
    pub node: String,
    /// Per-node sequence number.
    pub seq: u64,
    /// stdout or stderr.
    pub stream: LogStream,
    /// Parsed level, `None` when the line has none.
    pub level: Option<LogLevel>,
    /// Text, ANSI codes kept.
    pub text: String,
    /// Byte ranges `[start, end)` of the search text in `text` (empty without search).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<[u32; 2]>,
}

/// A page of lines, oldest first: `GET /api/v1/runs/{id}/logs?...` ([`LogQuery`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogPage {
    /// The lines.
    pub lines: Vec<LogLine>,
    /// Cursor for the previous (older) page (`before=`); `None` when there is none.
    pub older: Option<String>,
    /// Cursor for the next (newer) page (`after=`); `None` when the page reached the
    /// newest line (then follow from `follow_from`).
    pub newer: Option<String>,
    /// Cursor for `GET .../logs/stream?from=`: every line stored after this page was read.
    pub follow_from: String,
    /// Every node label of the job run (for the node filter), in order.
    pub nodes: Vec<String>,
    /// The job run's status when the page was read (follow while active).
    pub status: crate::JobRunStatus,
    /// Lines older than this (ms) were purged by retention.
    pub expired_through: Option<i64>,
    /// Per node, the missing sequence ranges (lines lost or not yet caught up).
    pub gaps: Vec<NodeGaps>,
}

/// Missing lines of one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeGaps {
    /// Node label.
    pub node: String,
    /// Missing ranges, oldest first.
    pub gaps: Vec<LogGap>,
}

/// The `data` of an SSE `lines` event of `GET /api/v1/runs/{id}/logs/stream`; the
/// event's `id` is the cursor to resume from (sent back as `Last-Event-ID` or `from=`).
/// A `status` event's data is the job run's new [`crate::JobRunStatus`] as a JSON string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEvent {
    /// New lines matching the stream's filters, in arrival order (a late gap fill may be
    /// older than lines sent before).
    pub lines: Vec<LogLine>,
}

/// How the `level` filter applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum LevelMode {
    /// This level and more severe (default).
    #[default]
    AtLeast,
    /// Only this level.
    Exactly,
}

/// The filters and position of `GET /api/v1/runs/{id}/logs`, `.../logs/stream` and
/// `.../logs/download` (which ignore the position and limit), in the query string:
/// `node, level, level_mode, q, since, until, before, after, at, limit` (`from` for the
/// stream). The app keeps the same filter names in its page URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct LogQuery {
    /// Only this node's lines.
    pub node: Option<String>,
    /// Only lines of this level (see `level_mode`); lines without a level never match.
    pub level: Option<LogLevel>,
    /// At least (default) or exactly `level`.
    pub level_mode: Option<LevelMode>,
    /// Only lines containing this text, ignoring ASCII case (1 to 1,000 bytes).
    pub q: Option<String>,
    /// Only lines at or after this time, ms since the epoch.
    pub since: Option<i64>,
    /// Only lines before this time, ms since the epoch.
    pub until: Option<i64>,
    /// Page of lines older than this cursor.
    pub before: Option<String>,
    /// Page of lines newer than this cursor.
    pub after: Option<String>,
    /// Page starting at the first line at or after this time (jump to time), ms.
    pub at: Option<i64>,
    /// Page from the oldest line (`true`); the default is the newest lines.
    pub earliest: Option<bool>,
    /// Lines per page, 1 to [`MAX_PAGE`] ([`DEFAULT_PAGE`] when absent).
    pub limit: Option<u32>,
}

impl LogQuery {
    /// The query string's `(key, value)` pairs, in the order of the fields.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        let mut push = |k: &'static str, v: Option<String>| {
            if let Some(v) = v {
                out.push((k, v));
            }
        };
        push("node", self.node.clone());
        push("level", self.level.map(|l| l.as_str().to_owned()));
        push(
            "level_mode",
            self.level_mode.map(|m| match m {
                LevelMode::AtLeast => "at_least".to_owned(),
                LevelMode::Exactly => "exactly".to_owned(),
            }),
        );
        push("q", self.q.clone());
        push("since", self.since.map(|v| v.to_string()));
        push("until", self.until.map(|v| v.to_string()));
        push("before", self.before.clone());
        push("after", self.after.clone());
        push("at", self.at.map(|v| v.to_string()));
        push("earliest", self.earliest.map(|v| v.to_string()));
        push("limit", self.limit.map(|v| v.to_string()));
        out
    }
}

/// The message of every log route's 403 and of the Logs tab's access panel, e.g.
/// "You don't have access to these logs. They belong to job 'nightly-eval'. Ask one of its
/// managers (alice, group ml-leads) or an administrator for at least Can View."
pub fn access_denied_message(job_name: &str, managers: &[Principal]) -> String {
    let names: Vec<String> = managers
        .iter()
        .map(|p| match p.kind {
            PrincipalKind::User => p.name.clone(),
            PrincipalKind::Group => format!("group {}", p.name),
        })
        .collect();
    let who = if names.is_empty() {
        "an administrator".to_owned()
    } else {
        format!(
            "one of its managers ({}) or an administrator",
            names.join(", ")
        )
    };
    format!(
        "You don't have access to these logs. They belong to job '{job_name}'. Ask {who} for \
         at least Can View."
    )
}
