//! The Logs tab's filters as they live in the page URL (`node, level, level_mode, q,
//! since, until, at`: the names of [`LogQuery`], so a shared link opens the same lines),
//! and the `datetime-local` inputs' local-time values.

use api_types::logs::{LevelMode, LogLevel, LogQuery};
use chrono::{DateTime, Datelike, NaiveDate, Timelike};

/// Every URL key the Logs tab owns (cleared by "Clear filters").
pub const KEYS: [&str; 7] = ["node", "level", "level_mode", "q", "since", "until", "at"];

/// The filters and the jump-to time.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LogFilters {
    /// One node, or all.
    pub node: Option<String>,
    /// Lowest (or only) level shown.
    pub level: Option<LogLevel>,
    /// At least or exactly `level`.
    pub level_mode: LevelMode,
    /// Search text.
    pub q: Option<String>,
    /// From this time (ms).
    pub since: Option<i64>,
    /// Until this time (ms).
    pub until: Option<i64>,
    /// The first page starts here (ms) instead of at the newest lines.
    pub at: Option<i64>,
}

impl LogFilters {
    /// Reads the filters with `get` (a URL key's value); bad values are ignored.
    pub fn from_url(get: impl Fn(&str) -> Option<String>) -> Self {
        let text = |k: &str| get(k).filter(|v| !v.trim().is_empty());
        let ms = |k: &str| text(k).and_then(|v| v.trim().parse::<i64>().ok());
        Self {
            node: text("node"),
            level: text("level").and_then(|l| LogLevel::parse(&l)),
            level_mode: match text("level_mode").as_deref() {
                Some("exactly") => LevelMode::Exactly,
                _ => LevelMode::AtLeast,
            },
            q: text("q"),
            since: ms("since"),
            until: ms("until"),
            at: ms("at"),
        }
    }

    /// Whether any filter narrows the lines (the jump-to time does not).
    pub fn is_filtered(&self) -> bool {
        self.node.is_some()
            || self.level.is_some()
            || self.q.is_some()
            || self.since.is_some()
            || self.until.is_some()
    }

    /// The query of the filters alone (download and stream).
    pub fn query(&self) -> LogQuery {
        LogQuery {
            node: self.node.clone(),
            level: self.level,
            level_mode: self
                .level
                .and((self.level_mode == LevelMode::Exactly).then_some(LevelMode::Exactly)),
            q: self.q.clone(),
            since: self.since,
            until: self.until,
            ..LogQuery::default()
        }
    }
}

/// The `datetime-local` value of `ms` at `offset_min` minutes east of UTC, to the second.
pub fn input_value(ms: i64, offset_min: i64) -> String {
    // By hand rather than chrono's `format()`, whose strftime machinery costs wasm size.
    DateTime::from_timestamp_millis(ms + offset_min * 60_000)
        .map(|t| {
            format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                t.year(),
                t.month(),
                t.day(),
                t.hour(),
                t.minute(),
                t.second()
            )
        })
        .unwrap_or_default()
}

/// The instant a `datetime-local` value names (`2026-12-01T10:05`, seconds optional),
/// given the local offset (minutes east) at an instant; `None` when empty or malformed.
pub fn parse_input(value: &str, offset_at: impl Fn(i64) -> i64) -> Option<i64> {
    let (date, time) = value.trim().split_once('T')?;
    let num = |s: &str| s.parse::<u32>().ok();
    let mut d = date.splitn(3, '-');
    let (y, mo, day) = (
        d.next()?.parse::<i32>().ok()?,
        num(d.next()?)?,
        num(d.next()?)?,
    );
    let mut t = time.splitn(3, ':');
    let (h, mi) = (num(t.next()?)?, num(t.next()?)?);
    let sec = match t.next() {
        Some(s) => num(s.split('.').next()?)?,
        None => 0,
    };
    let naive = NaiveDate::from_ymd_opt(y, mo, day)?.and_hms_opt(h, mi, sec)?;
    let naive_ms = naive.and_utc().timestamp_millis();
    Some(naive_ms - offset_at(naive_ms) * 60_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(pairs: &[(&str, &str)]) -> LogFilters {
        LogFilters::from_url(|k| {
            pairs
                .iter()
                .find(|(pk, _)| *pk == k)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn filters_round_trip_through_the_url_names() {
        let f = url(&[
            ("node", "n-1"),
            ("level", "warning"),
            ("level_mode", "exactly"),
            ("q", "loss"),
            ("since", "1000"),
            ("until", "2000"),
            ("at", "1500"),
        ]);
        assert!(f.is_filtered());
        assert_eq!(f.level, Some(LogLevel::Warning));
        assert_eq!(f.at, Some(1500));
        let pairs = f.query().to_pairs();
        assert_eq!(
            pairs,
            vec![
                ("node", "n-1".to_owned()),
                ("level", "WARNING".to_owned()),
                ("level_mode", "exactly".to_owned()),
                ("q", "loss".to_owned()),
                ("since", "1000".to_owned()),
                ("until", "2000".to_owned()),
            ]
        );
        for (k, _) in &pairs {
            assert!(KEYS.contains(k));
        }
    }

    #[test]
    fn bad_or_empty_values_are_no_filter() {
        let f = url(&[
            ("level", "LOUD"),
            ("since", "yesterday"),
            ("q", " "),
            ("level_mode", "exactly"),
        ]);
        assert_eq!(
            f,
            LogFilters {
                level_mode: LevelMode::Exactly,
                ..LogFilters::default()
            }
        );
        assert!(!f.is_filtered());
        // A mode without a level sends nothing.
        assert!(f.query().to_pairs().is_empty());
        assert!(!url(&[("at", "5")]).is_filtered());
    }

    #[test]
    fn datetime_inputs_are_local_time() {
        let ms = 1_764_583_509_000; // 2025-12-01T10:05:09Z
        assert_eq!(input_value(ms, 0), "2025-12-01T10:05:09");
        assert_eq!(input_value(ms, 60), "2025-12-01T11:05:09");
        assert_eq!(parse_input("2025-12-01T11:05:09", |_| 60), Some(ms));
        assert_eq!(parse_input("2025-12-01T10:05", |_| 0), Some(ms - 9_000));
        assert_eq!(parse_input("", |_| 0), None);
        assert_eq!(parse_input("soon", |_| 0), None);
    }
}
