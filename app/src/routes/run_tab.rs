//! The tabs of the run page, as they appear in its URL (`/runs/:id?tab=`).

use std::fmt;
use std::str::FromStr;

/// A tab of the run page. The default tab has no `?tab=` value. To add one:
/// a variant here, its spelling in [`RunTab::value`], [`RunTab::ALL`] and
/// [`RunTab::label`], and its content in `pages::run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunTab {
    /// Parameters, tags and latest metric values (no `?tab=`).
    Overview,
    /// One chart per metric (`?tab=metrics`).
    Metrics,
    /// The `system/...` metrics grouped into GPU, CPU, memory, disk and network
    /// (`?tab=system`).
    System,
    /// The output of the job that produced the run, live, with filters in the URL
    /// (`?tab=logs`).
    Logs,
    /// The run's files: a lazy tree, downloads and previews (`?tab=artifacts`, the
    /// previewed file in `&file=`).
    Artifacts,
}

/// A `?tab=` value that names no tab of the run page.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the run page has no tab named “{0}”")]
pub struct UnknownTab(pub String);

impl RunTab {
    /// Every tab, in the order they are shown.
    pub const ALL: [RunTab; 5] = [
        RunTab::Overview,
        RunTab::Metrics,
        RunTab::System,
        RunTab::Logs,
        RunTab::Artifacts,
    ];

    /// The tab named by `?tab=` (absent or empty: the default tab).
    pub fn from_query(value: Option<&str>) -> Result<Self, UnknownTab> {
        match value {
            None | Some("") => Ok(RunTab::Overview),
            Some(v) => v.parse(),
        }
    }

    /// How the tab is spelled in the URL.
    pub fn value(self) -> &'static str {
        match self {
            RunTab::Overview => "overview",
            RunTab::Metrics => "metrics",
            RunTab::System => "system",
            RunTab::Logs => "logs",
            RunTab::Artifacts => "artifacts",
        }
    }

    /// The `?tab=` value linking to this tab (`None` for the default tab, so its links
    /// stay short).
    pub fn query_value(self) -> Option<&'static str> {
        (self != RunTab::Overview).then(|| self.value())
    }

    /// The tab's visible name.
    pub fn label(self) -> &'static str {
        match self {
            RunTab::Overview => "Overview",
            RunTab::Metrics => "Metrics",
            RunTab::System => "System metrics",
            RunTab::Logs => "Logs",
            RunTab::Artifacts => "Artifacts",
        }
    }
}

impl FromStr for RunTab {
    type Err = UnknownTab;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RunTab::ALL
            .into_iter()
            .find(|t| t.value() == s)
            .ok_or_else(|| UnknownTab(s.to_owned()))
    }
}

impl fmt::Display for RunTab {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_round_trip_through_the_url() {
        for tab in RunTab::ALL {
            assert_eq!(tab.to_string().parse::<RunTab>(), Ok(tab));
            assert_eq!(RunTab::from_query(tab.query_value()), Ok(tab));
        }
        assert_eq!(RunTab::from_query(None), Ok(RunTab::Overview));
        assert_eq!(RunTab::from_query(Some("")), Ok(RunTab::Overview));
        assert_eq!(RunTab::Metrics.query_value(), Some("metrics"));
        assert_eq!(RunTab::from_query(Some("system")), Ok(RunTab::System));
        assert_eq!(RunTab::System.label(), "System metrics");
        assert_eq!(RunTab::Overview.query_value(), None);
        assert_eq!(RunTab::from_query(Some("logs")), Ok(RunTab::Logs));
        assert_eq!(RunTab::Logs.label(), "Logs");
        assert_eq!(RunTab::from_query(Some("artifacts")), Ok(RunTab::Artifacts));
    }

    #[test]
    fn unknown_tabs_are_errors_not_the_metrics_tab() {
        for bad in [
            "Logs",
            "Metrics",
            "metrics ",
            "Artifacts",
            "System",
            "files",
        ] {
            assert_eq!(
                RunTab::from_query(Some(bad)),
                Err(UnknownTab(bad.to_owned()))
            );
        }
        assert!(UnknownTab("files".into()).to_string().contains("“files”"));
    }
}
