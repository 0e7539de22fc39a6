//! One log line as rendered: local time to the millisecond, the node as a coloured chip,
//! the level as a coloured badge (blank without one) and the text with its ANSI colours
//! and search matches (`<mark>`), wrapping.

use api_types::logs::{LogLevel, LogLine};
use chrono::{DateTime, FixedOffset, Timelike};
use leptos::prelude::*;

use super::ansi::{plain, segments};
use crate::format::local_offset_min;

/// Node chip colours (CSS classes `node-c0` ..).
const NODE_COLOURS: usize = 8;

/// `14:05:09.042` at `offset_min` minutes east of UTC.
pub fn clock_at(ms: i64, offset_min: i64) -> String {
    FixedOffset::east_opt((offset_min * 60) as i32)
        .and_then(|o| Some(DateTime::from_timestamp_millis(ms)?.with_timezone(&o)))
        .map(|t| {
            format!(
                "{:02}:{:02}:{:02}.{:03}",
                t.hour(),
                t.minute(),
                t.second(),
                t.timestamp_subsec_millis()
            )
        })
        .unwrap_or_else(|| format!("{ms} ms"))
}

/// The chip class of a node: its place among the job run's nodes picks the colour.
pub fn node_class(nodes: &[String], node: &str) -> String {
    let i = nodes.iter().position(|n| n == node).unwrap_or_else(|| {
        node.bytes()
            .fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize))
    });
    format!("node-chip node-c{}", i % NODE_COLOURS)
}

/// The badge class of a level.
fn level_class(level: LogLevel) -> &'static str {
    match level {
        LogLevel::Debug => "level level-debug",
        LogLevel::Info => "level level-info",
        LogLevel::Warning => "level level-warning",
        LogLevel::Error => "level level-error",
        LogLevel::Critical => "level level-critical",
    }
}

/// A line as copied: `14:05:09.042 node LEVEL text` (escape codes removed).
pub fn copy_text(l: &LogLine) -> String {
    let level = l.level.map_or("-", LogLevel::as_str);
    format!(
        "{} {} {level} {}",
        clock_at(l.ts_ms, local_offset_min(l.ts_ms)),
        l.node,
        plain(&l.text)
    )
}

/// One rendered line.
#[component]
pub fn LogRow(
    /// The line.
    line: LogLine,
    /// Its node's chip class.
    node_class: String,
) -> impl IntoView {
    let text = segments(&line.text, &line.matches)
        .into_iter()
        .map(|s| {
            let class = s.style.class();
            match (s.mark, class.is_empty()) {
                (false, true) => view! { <span>{s.text}</span> }.into_any(),
                (false, false) => view! { <span class=class>{s.text}</span> }.into_any(),
                (true, _) => view! { <mark class=class>{s.text}</mark> }.into_any(),
            }
        })
        .collect_view();
    let level = line
        .level
        .map(|l| view! { <span class=level_class(l)>{l.as_str()}</span> });
    view! {
        <div class="log-line" class:stderr=line.stream == api_types::logs::LogStream::Stderr role="row">
            <span class="log-time mono" role="cell">{clock_at(line.ts_ms, local_offset_min(line.ts_ms))}</span>
            <span class="log-node" role="cell"><span class=node_class>{line.node.clone()}</span></span>
            <span class="log-level" role="cell">{level}</span>
            <span class="log-text mono" role="cell">{text}</span>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_has_milliseconds_in_local_time() {
        let ms = 1_764_583_509_042; // 2025-12-01T10:05:09.042Z
        assert_eq!(clock_at(ms, 0), "10:05:09.042");
        assert_eq!(clock_at(ms, -300), "05:05:09.042");
        assert_eq!(clock_at(i64::MAX, 0), format!("{} ms", i64::MAX));
    }

    #[test]
    fn nodes_keep_their_colour() {
        let nodes = vec!["n-0".to_owned(), "n-1".to_owned()];
        assert_eq!(node_class(&nodes, "n-1"), "node-chip node-c1");
        assert_eq!(node_class(&nodes, "late"), node_class(&[], "late"));
    }
}
