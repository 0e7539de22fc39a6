//! The chart view's URL keys (pure functions over [`Query`]):
//!
//! | key      | meaning                                                              |
//! |----------|----------------------------------------------------------------------|
//! | `x`      | `step` (default), `wall` or `relative`                               |
//! | `x_key`  | another metric as the x axis (overrides `x`)                         |
//! | `zoom`   | `<min>:<max>`: one x range for every panel                           |
//! | `q`      | metric name search (case-insensitive, every word must match)         |
//! | `log`    | `1`: log y axis                                                      |
//! | `smooth` | EMA weight in `[0, 0.99]`                                            |
//! | `sys`    | `1`: `system/` metrics get panels too                                |
//!
//! `x`, `log` and `smooth` are the run page's keys, so the two pages read alike.

use api_types as json;

use crate::query::Query;

/// Prefix of system metrics (CPU, memory, GPUs…).
pub const SYSTEM_PREFIX: &str = "system/";

/// The x axis of the chart view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XChoice {
    /// Step, wall time or time since the run's start.
    Axis(json::XAxis),
    /// The value of another metric at the same step.
    Metric(String),
}

impl XChoice {
    /// The axis the server reduces on and labels follow (another metric labels as numbers).
    pub fn axis(&self) -> json::XAxis {
        match self {
            XChoice::Axis(a) => *a,
            XChoice::Metric(_) => json::XAxis::Step,
        }
    }

    /// The metric used as x, if any.
    pub fn x_key(&self) -> Option<String> {
        match self {
            XChoice::Metric(k) => Some(k.clone()),
            XChoice::Axis(_) => None,
        }
    }
}

/// Everything the URL says about the chart view.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartSettings {
    /// The x axis.
    pub x: XChoice,
    /// One zoom for every panel.
    pub zoom: Option<(f64, f64)>,
    /// Metric name search.
    pub search: String,
    /// Log y axis.
    pub log_y: bool,
    /// EMA weight.
    pub smoothing: f64,
    /// Whether `system/` metrics are shown.
    pub system: bool,
}

/// Parses `x=`.
pub fn parse_axis(s: Option<&str>) -> json::XAxis {
    match s {
        Some("wall") => json::XAxis::Wall,
        Some("relative") => json::XAxis::Relative,
        _ => json::XAxis::Step,
    }
}

/// The `x=` value of an axis (`None` for the default, step).
pub fn axis_value(a: json::XAxis) -> Option<String> {
    match a {
        json::XAxis::Step => None,
        json::XAxis::Wall => Some("wall".into()),
        json::XAxis::Relative => Some("relative".into()),
    }
}

/// Parses `zoom=<min>:<max>` (finite, min < max).
pub fn parse_zoom(s: &str) -> Option<(f64, f64)> {
    let (lo, hi) = s.split_once(':')?;
    let (lo, hi): (f64, f64) = (lo.parse().ok()?, hi.parse().ok()?);
    (lo.is_finite() && hi.is_finite() && lo < hi).then_some((lo, hi))
}

/// The `zoom=` value of a range.
pub fn zoom_value(range: Option<(f64, f64)>) -> Option<String> {
    range.map(|(lo, hi)| format!("{lo}:{hi}"))
}

/// Parses `smooth=` into `[0, 0.99]`.
pub fn parse_smoothing(s: Option<&str>) -> f64 {
    s.and_then(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite())
        .unwrap_or(0.0)
        .clamp(0.0, 0.99)
}

impl ChartSettings {
    /// Reads the settings from the page's query.
    pub fn from_query(q: &Query) -> Self {
        let x = match q.get("x_key").filter(|k| !k.is_empty()) {
            Some(k) => XChoice::Metric(k.to_owned()),
            None => XChoice::Axis(parse_axis(q.get("x"))),
        };
        ChartSettings {
            x,
            zoom: q.get("zoom").and_then(parse_zoom),
            search: q.get("q").unwrap_or_default().to_owned(),
            log_y: q.get("log").is_some_and(|v| v == "1" || v == "true"),
            smoothing: parse_smoothing(q.get("smooth")),
            system: q.get("sys").is_some_and(|v| v == "1"),
        }
    }
}

/// Sets the x axis; the zoom is dropped (its units change).
pub fn set_x(q: &mut Query, x: &XChoice) {
    match x {
        XChoice::Axis(a) => {
            q.set("x", axis_value(*a));
            q.set("x_key", None);
        }
        XChoice::Metric(k) => {
            q.set("x", None);
            q.set("x_key", Some(k.clone()));
        }
    }
    q.set("zoom", None);
}

/// Whether `key` matches the search: every whitespace-separated word is in it, ignoring case.
pub fn matches(key: &str, search: &str) -> bool {
    let key = key.to_lowercase();
    search
        .split_whitespace()
        .all(|w| key.contains(&w.to_lowercase()))
}

/// The keys that get a panel: `system/` ones only when `system` is on, and matching `search`.
pub fn panel_keys(keys: &[String], search: &str, system: bool) -> Vec<String> {
    keys.iter()
        .filter(|k| system || !k.starts_with(SYSTEM_PREFIX))
        .filter(|k| matches(k, search))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_through_the_query() {
        let q = Query::parse("?x=relative&zoom=10:20.5&q=loss&log=1&smooth=0.6&sys=1");
        let s = ChartSettings::from_query(&q);
        assert_eq!(s.x, XChoice::Axis(json::XAxis::Relative));
        assert_eq!(s.zoom, Some((10.0, 20.5)));
        assert_eq!(
            (s.search.as_str(), s.log_y, s.smoothing, s.system),
            ("loss", true, 0.6, true)
        );
        let d = ChartSettings::from_query(&Query::new());
        assert_eq!(d.x, XChoice::Axis(json::XAxis::Step));
        assert_eq!(
            (d.zoom, d.log_y, d.smoothing, d.system),
            (None, false, 0.0, false)
        );
        let mut q = Query::parse("?x=wall&zoom=1:2");
        set_x(&mut q, &XChoice::Metric("epoch".into()));
        assert_eq!(q.encode(), "x_key=epoch");
        let s = ChartSettings::from_query(&q);
        assert_eq!(
            (s.x.axis(), s.x.x_key()),
            (json::XAxis::Step, Some("epoch".into()))
        );
        set_x(&mut q, &XChoice::Axis(json::XAxis::Wall));
        assert_eq!(q.encode(), "x=wall");
    }

    #[test]
    fn bad_values_fall_back() {
        assert_eq!(parse_zoom("20:10"), None);
        assert_eq!(parse_zoom("a:1"), None);
        assert_eq!(parse_zoom("1:inf"), None);
        assert_eq!(parse_zoom("-5:1e3"), Some((-5.0, 1000.0)));
        assert_eq!(
            parse_zoom(&zoom_value(Some((0.5, 7.25))).unwrap()),
            Some((0.5, 7.25))
        );
        assert_eq!(parse_smoothing(Some("5")), 0.99);
        assert_eq!(parse_smoothing(Some("NaN")), 0.0);
        assert_eq!(parse_axis(Some("bogus")), json::XAxis::Step);
    }

    #[test]
    fn search_and_system_keys() {
        let keys: Vec<String> = ["loss", "val/loss", "acc", "system/cpu_utilization"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            panel_keys(&keys, "", false),
            vec!["loss", "val/loss", "acc"]
        );
        assert_eq!(panel_keys(&keys, "LOSS", false), vec!["loss", "val/loss"]);
        assert_eq!(panel_keys(&keys, "val loss", false), vec!["val/loss"]);
        assert_eq!(
            panel_keys(&keys, "cpu", true),
            vec!["system/cpu_utilization"]
        );
        assert!(panel_keys(&keys, "cpu", false).is_empty());
    }
}
