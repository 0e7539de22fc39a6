//! The panel's URL parameters: `nodes=a,b`, `poll=` seconds between fetches (default 10)
//! and `idle=` seconds without input before pausing (default 300).

use crate::query::Query;

/// Seconds between fetches unless `?poll=` says otherwise.
pub const DEFAULT_POLL_SECS: u64 = 10;
/// Seconds without input before pausing unless `?idle=` says otherwise.
pub const DEFAULT_IDLE_SECS: u64 = 300;
/// Longest accepted `poll` or `idle` (a day).
const MAX_SECS: u64 = 86_400;

/// The node names of `nodes=a,b` (or of a run's `runlens.nodes` tag): trimmed, empty
/// ones dropped, duplicates removed (first kept).
pub fn parse_nodes(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if !out.iter().any(|o| o == n) {
            out.push(n.to_owned());
        }
    }
    out
}

/// Seconds from a URL value: a whole number from 1 to a day, else `default`.
fn secs(value: Option<&str>, default: u64) -> u64 {
    value
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|s| (1..=MAX_SECS).contains(s))
        .unwrap_or(default)
}

/// The polling intervals of a panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Intervals {
    /// Seconds between fetches.
    pub poll_secs: u64,
    /// Seconds without input before pausing.
    pub idle_secs: u64,
}

impl Intervals {
    /// From `?poll=&idle=` (invalid values fall back to the defaults).
    pub fn from_query(q: &Query) -> Self {
        Self {
            poll_secs: secs(q.get("poll"), DEFAULT_POLL_SECS),
            idle_secs: secs(q.get("idle"), DEFAULT_IDLE_SECS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_trimmed_and_unique() {
        assert_eq!(parse_nodes("a, b,,a ,c"), vec!["a", "b", "c"]);
        assert!(parse_nodes(" , ").is_empty());
    }

    #[test]
    fn intervals_default_and_reject_nonsense() {
        let i = Intervals::from_query(&Query::parse("poll=2&idle=5"));
        assert_eq!((i.poll_secs, i.idle_secs), (2, 5));
        for bad in ["poll=0&idle=-1", "poll=x&idle=", "poll=999999&idle=1.5"] {
            let i = Intervals::from_query(&Query::parse(bad));
            assert_eq!((i.poll_secs, i.idle_secs), (10, 300), "{bad}");
        }
    }
}
