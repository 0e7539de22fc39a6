//! The app's routes in one place, so links and the router agree.
//!
//! The router's patterns (`path!` in `lib.rs`) are literals; they are mirrored here as
//! [`AppRoute::PATTERNS`] and the unit tests check that every built path fits its pattern.

use crate::query::encode_component;

/// A page of the app, with what it needs to build its link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppRoute {
    /// `/`: the experiments list.
    Experiments,
    /// `/experiments/:id`: one experiment and its runs.
    Experiment {
        /// Experiment id.
        id: String,
    },
    /// `/runs/:id`: one run.
    Run {
        /// Run id.
        id: String,
    },
}

impl AppRoute {
    /// The router patterns, in the order of the variants.
    pub const PATTERNS: [&'static str; 3] = ["/", "/experiments/:id", "/runs/:id"];

    /// The path of this page (no query string).
    pub fn path(&self) -> String {
        match self {
            AppRoute::Experiments => "/".to_owned(),
            AppRoute::Experiment { id } => format!("/experiments/{}", encode_component(id)),
            AppRoute::Run { id } => format!("/runs/{}", encode_component(id)),
        }
    }

    /// Link to an experiment page.
    pub fn experiment(id: impl Into<String>) -> String {
        AppRoute::Experiment { id: id.into() }.path()
    }

    /// Link to a run page.
    pub fn run(id: impl Into<String>) -> String {
        AppRoute::Run { id: id.into() }.path()
    }
}

#[cfg(test)]
mod tests {
    use super::AppRoute;

    fn fits(pattern: &str, path: &str) -> bool {
        let (p, q): (Vec<_>, Vec<_>) = (pattern.split('/').collect(), path.split('/').collect());
        p.len() == q.len()
            && p.iter()
                .zip(&q)
                .all(|(a, b)| a.starts_with(':') && !b.is_empty() || a == b)
    }

    #[test]
    fn paths_fit_the_router_patterns() {
        let routes = [
            AppRoute::Experiments,
            AppRoute::Experiment { id: "12".into() },
            AppRoute::Run {
                id: "0123456789abcdef0123456789abcdef".into(),
            },
        ];
        for (route, pattern) in routes.iter().zip(AppRoute::PATTERNS) {
            assert!(fits(pattern, &route.path()), "{route:?} vs {pattern}");
        }
    }

    #[test]
    fn ids_are_escaped() {
        assert_eq!(AppRoute::experiment("a/b c"), "/experiments/a%2Fb%20c");
        assert!(!fits("/experiments/:id", "/experiments/"));
    }
}
