//! Conversions between the log store's types and the wire types of `api_types::logs`, and
//! the one-line text form of a line that downloads and the CLI print:
//! `<RFC3339 UTC with ms> <node> <LEVEL or -> <text>`.

use api_types::logs as json;
use chrono::{DateTime, SecondsFormat};

use super::query::{self, LevelFilter, PageLine};
use super::{Ack, Batch, Gap, Level, NewLine, Stream};

impl From<json::LogStream> for Stream {
    fn from(s: json::LogStream) -> Self {
        match s {
            json::LogStream::Stdout => Stream::Stdout,
            json::LogStream::Stderr => Stream::Stderr,
        }
    }
}

impl From<Stream> for json::LogStream {
    fn from(s: Stream) -> Self {
        match s {
            Stream::Stdout => json::LogStream::Stdout,
            Stream::Stderr => json::LogStream::Stderr,
        }
    }
}

impl From<json::LogLevel> for Level {
    fn from(l: json::LogLevel) -> Self {
        match l {
            json::LogLevel::Debug => Level::Debug,
            json::LogLevel::Info => Level::Info,
            json::LogLevel::Warning => Level::Warning,
            json::LogLevel::Error => Level::Error,
            json::LogLevel::Critical => Level::Critical,
        }
    }
}

impl From<Level> for json::LogLevel {
    fn from(l: Level) -> Self {
        match l {
            Level::Debug => json::LogLevel::Debug,
            Level::Info => json::LogLevel::Info,
            Level::Warning => json::LogLevel::Warning,
            Level::Error => json::LogLevel::Error,
            Level::Critical => json::LogLevel::Critical,
        }
    }
}

/// The level filter of a query: `level` at least (default) or exactly.
pub(crate) fn level_filter(level: json::LogLevel, mode: json::LevelMode) -> LevelFilter {
    match mode {
        json::LevelMode::AtLeast => LevelFilter::AtLeast(level.into()),
        json::LevelMode::Exactly => LevelFilter::Exactly(level.into()),
    }
}

/// The store's batch of a shipped [`json::LogBatch`], under the attempt's key.
pub(crate) fn batch(attempt_id: i64, b: json::LogBatch) -> Batch {
    Batch {
        job_run_id: attempt_id,
        node: b.node,
        first_seq: b.first_seq,
        lines: b
            .lines
            .into_iter()
            .map(|l| NewLine {
                ts_ms: l.ts_ms,
                stream: l.stream.into(),
                text: l.text,
            })
            .collect(),
    }
}

impl From<Gap> for json::LogGap {
    fn from(g: Gap) -> Self {
        json::LogGap {
            first_missing: g.first_missing,
            last_missing: g.last_missing,
        }
    }
}

impl From<Ack> for json::LogAck {
    fn from(a: Ack) -> Self {
        json::LogAck {
            stored: a.stored as u64,
            duplicates: a.duplicates as u64,
            next_seq: a.next_seq,
            gaps: a.gaps.into_iter().map(Into::into).collect(),
        }
    }
}

/// A stored line as sent to readers, with its search matches (empty without search).
pub(crate) fn line(l: query::LogLine, matches: &[(usize, usize)]) -> json::LogLine {
    json::LogLine {
        ts_ms: l.key.ts_ms,
        node: l.key.node,
        seq: l.key.seq,
        stream: l.stream.into(),
        level: l.level.map(Into::into),
        text: l.text,
        matches: matches
            .iter()
            .map(|&(a, b)| [to_u32(a), to_u32(b)])
            .collect(),
    }
}

/// A line of a page, as sent to readers.
pub(crate) fn page_line(p: PageLine) -> json::LogLine {
    line(p.line, &p.matches)
}

/// A byte offset in a line (at most [`super::store::MAX_LINE_BYTES`]) as `u32`.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A follow cursor (an arrival position) as sent in `follow_from` and SSE event ids.
pub(crate) fn follow_cursor(chunk_id: i64) -> String {
    chunk_id.to_string()
}

/// A follow cursor from `from=` or `Last-Event-ID`; `None` if it is not one.
pub(crate) fn parse_follow_cursor(s: &str) -> Option<i64> {
    s.trim().parse::<i64>().ok().filter(|n| *n >= 0)
}

/// Milliseconds since the epoch as RFC 3339 UTC with milliseconds,
/// e.g. `2026-12-01T03:47:40.123Z` (the raw number if it is out of chrono's range).
pub fn rfc3339_ms(ts_ms: i64) -> String {
    DateTime::from_timestamp_millis(ts_ms).map_or_else(
        || ts_ms.to_string(),
        |t| t.to_rfc3339_opts(SecondsFormat::Millis, true),
    )
}

/// Appends the text form of a line and its newline to `out`:
/// `<RFC3339 UTC ms> <node> <LEVEL or -> <text>\n`, the text as stored (ANSI kept).
pub fn push_text_line(out: &mut String, ts_ms: i64, node: &str, level: Option<&str>, text: &str) {
    use std::fmt::Write as _;
    let _ = writeln!(
        out,
        "{} {node} {} {text}",
        rfc3339_ms(ts_ms),
        level.unwrap_or("-")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_prints_with_utc_milliseconds_node_and_level() {
        let mut out = String::new();
        push_text_line(
            &mut out,
            1_764_560_860_123,
            "node-0",
            Some("INFO"),
            "hi \x1b[1m",
        );
        push_text_line(&mut out, 0, "n", None, "");
        assert_eq!(
            out,
            "2025-12-01T03:47:40.123Z node-0 INFO hi \x1b[1m\n1970-01-01T00:00:00.000Z n - \n"
        );
    }

    #[test]
    fn levels_and_streams_convert_both_ways() {
        for l in json::LogLevel::ALL {
            assert_eq!(json::LogLevel::from(Level::from(l)), l);
            assert_eq!(Level::from(l).as_str(), l.as_str());
        }
        for s in [json::LogStream::Stdout, json::LogStream::Stderr] {
            assert_eq!(json::LogStream::from(Stream::from(s)), s);
        }
        assert_eq!(parse_follow_cursor(&follow_cursor(42)), Some(42));
        assert_eq!(parse_follow_cursor("-1"), None);
        assert_eq!(parse_follow_cursor("x"), None);
    }
}
