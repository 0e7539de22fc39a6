//! The app's routes in one place, so links and the router agree.
//!
//! The router's patterns (`path!` in `lib.rs`) are literals; they are mirrored here as
//! [`AppRoute::PATTERNS`] and the unit tests check that every built path fits its pattern.

pub mod mlflow_hash;
mod run_tab;
mod safe_path;

pub use mlflow_hash::mlflow_target;
pub use run_tab::{RunTab, UnknownTab};
pub use safe_path::{normalize_path, safe_path};

use crate::query::{encode_component, Query};

/// Longest `next` followed after signing in (longer ones are not links the app makes).
const MAX_NEXT_LEN: usize = 4096;

/// Where to go after signing in: `next` as a canonical same-origin path (see
/// [`normalize_path`]: dot segments resolved, nothing that the browser would read as
/// another host), unless it is the sign-in page itself or too long; else `/`.
pub fn safe_next(next: &str) -> String {
    if next.len() > MAX_NEXT_LEN {
        return "/".to_owned();
    }
    match normalize_path(next) {
        Some(path) if safe_path::decoded_path(&path) != AppRoute::SIGN_IN => path,
        _ => "/".to_owned(),
    }
}

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
    /// `/signin?next=`: the sign-in page, returning to `next` afterwards.
    SignIn {
        /// Where to go after signing in (sanitised by [`safe_next`]).
        next: String,
    },
    /// `/settings`: the user's API tokens.
    Settings,
    /// `/gpus?nodes=a,b`: the GPU resources panel of some nodes.
    Gpus {
        /// The node names.
        nodes: Vec<String>,
    },
    /// `/logged-models/:id`: one logged model (MLflow 3).
    LoggedModel {
        /// Model id (`m-...`).
        id: String,
    },
    /// `/models`: the registered models.
    Models,
    /// `/models/:name`: one registered model and its versions.
    RegisteredModel {
        /// Registered model name.
        name: String,
    },
    /// `/models/:name/versions/:version`: one version of a registered model.
    ModelVersion {
        /// Registered model name.
        name: String,
        /// Version number as text.
        version: String,
    },
}

impl AppRoute {
    /// The router patterns, in the order of the variants.
    pub const PATTERNS: [&'static str; 10] = [
        "/",
        "/experiments/:id",
        "/runs/:id",
        "/signin",
        "/settings",
        "/gpus",
        "/logged-models/:id",
        "/models",
        "/models/:name",
        "/models/:name/versions/:version",
    ];

    /// Paths under this prefix are chrome-less pages for other sites' iframes, shown
    /// without header or session (the server lets the embed origin frame only these).
    pub const EMBED_PREFIX: &'static str = "/embed/";

    /// The embeddable GPU panel; its links (with their signature) come from the server.
    pub const EMBED_GPUS: &'static str = "/embed/gpus";

    /// Path of the sign-in page without a query.
    pub const SIGN_IN: &'static str = "/signin";

    /// The path of this page (no query string).
    pub fn path(&self) -> String {
        match self {
            AppRoute::Experiments => "/".to_owned(),
            AppRoute::Experiment { id } => format!("/experiments/{}", encode_component(id)),
            AppRoute::Run { id } => format!("/runs/{}", encode_component(id)),
            AppRoute::SignIn { .. } => Self::SIGN_IN.to_owned(),
            AppRoute::Settings => "/settings".to_owned(),
            AppRoute::Gpus { .. } => "/gpus".to_owned(),
            AppRoute::LoggedModel { id } => format!("/logged-models/{}", encode_component(id)),
            AppRoute::Models => "/models".to_owned(),
            AppRoute::RegisteredModel { name } => format!("/models/{}", encode_component(name)),
            AppRoute::ModelVersion { name, version } => format!(
                "/models/{}/versions/{}",
                encode_component(name),
                encode_component(version)
            ),
        }
    }

    /// The full link (path and query) of this page.
    pub fn href(&self) -> String {
        match self {
            AppRoute::SignIn { next } => match safe_next(next) {
                next if next != "/" => Query::new().with("next", next).url(Self::SIGN_IN),
                _ => self.path(),
            },
            AppRoute::Gpus { nodes } => Query::new().with("nodes", nodes.join(",")).url("/gpus"),
            _ => self.path(),
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

    /// Link to a logged model page.
    pub fn logged_model(id: impl Into<String>) -> String {
        AppRoute::LoggedModel { id: id.into() }.path()
    }

    /// Link to a registered model page.
    pub fn registered_model(name: impl Into<String>) -> String {
        AppRoute::RegisteredModel { name: name.into() }.path()
    }

    /// Link to a model version page.
    pub fn model_version(name: impl Into<String>, version: impl Into<String>) -> String {
        AppRoute::ModelVersion {
            name: name.into(),
            version: version.into(),
        }
        .path()
    }
}

#[cfg(test)]
mod tests {
    use super::{safe_next, AppRoute};

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
            AppRoute::SignIn { next: "/".into() },
            AppRoute::Settings,
            AppRoute::Gpus {
                nodes: vec!["a".into()],
            },
            AppRoute::LoggedModel {
                id: "m-0123".into(),
            },
            AppRoute::Models,
            AppRoute::RegisteredModel {
                name: "churn model/v2".into(),
            },
            AppRoute::ModelVersion {
                name: "churn model/v2".into(),
                version: "3".into(),
            },
        ];
        for (route, pattern) in routes.iter().zip(AppRoute::PATTERNS) {
            assert!(fits(pattern, &route.path()), "{route:?} vs {pattern}");
        }
    }

    #[test]
    fn gpus_link_names_the_nodes() {
        let r = AppRoute::Gpus {
            nodes: vec!["node-1".into(), "node-2".into()],
        };
        assert_eq!(r.href(), "/gpus?nodes=node-1,node-2");
        assert!(AppRoute::EMBED_GPUS.starts_with(AppRoute::EMBED_PREFIX));
    }

    #[test]
    fn ids_are_escaped() {
        assert_eq!(AppRoute::experiment("a/b c"), "/experiments/a%2Fb%20c");
        assert!(!fits("/experiments/:id", "/experiments/"));
        assert_eq!(AppRoute::registered_model("a/b"), "/models/a%2Fb");
        assert_eq!(AppRoute::logged_model("m-1"), "/logged-models/m-1");
    }

    #[test]
    fn next_keeps_only_same_origin_paths() {
        for ok in [
            "/",
            "/experiments/3?filter=a%20b&tab=metrics",
            "/runs/x#top",
            "/settings",
            "/signin-help",
        ] {
            assert_eq!(safe_next(ok), ok);
        }
        assert_eq!(safe_next("/x/../settings"), "/settings");
        for bad in [
            "",
            "https://evil.example/",
            "//evil.example/x",
            "/\\evil.example",
            "/\\/evil",
            "javascript:alert(1)",
            "experiments/3",
            "/signin",
            "/signin/",
            "/signin?next=/x",
            "/%73ignin?next=/x",
            "/x/../signin",
            "/a\nb",
            "/a\\b",
            // Dot segments the browser resolves to another host.
            "/..//evil.example",
            "/%2e%2e//evil.example",
            "/.//evil.example",
            "/%2F%2Fevil.example",
        ] {
            assert_eq!(safe_next(bad), "/", "{bad:?}");
        }
        assert_eq!(safe_next(&format!("/{}", "a".repeat(5000))), "/");
    }

    #[test]
    fn sign_in_link_carries_next() {
        let r = AppRoute::SignIn {
            next: "/experiments/1?tab=metrics".into(),
        };
        assert_eq!(r.href(), "/signin?next=/experiments/1?tab%3Dmetrics");
        assert_eq!(AppRoute::SignIn { next: "//x".into() }.href(), "/signin");
        assert_eq!(
            AppRoute::SignIn {
                next: "/..//evil.example".into()
            }
            .href(),
            "/signin"
        );
    }
}
