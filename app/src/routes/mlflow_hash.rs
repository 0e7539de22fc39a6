//! MLflow's UI routes with a hash (`http://host/#/experiments/5/runs/<id>`), as the mlflow
//! client prints them ("View run … at …") and as bookmarks and notebooks keep them, mapped
//! to the same view in runlens. The hash never reaches the server, so the app rewrites it
//! at start (and when only the hash changes), before routing.
//!
//! | MLflow                                                  | runlens                                       |
//! |---------------------------------------------------------|-----------------------------------------------|
//! | `#/`, `#/experiments`                                   | `/`                                           |
//! | `#/experiments/N` (and any tail but a run or a model)   | `/experiments/N`                              |
//! | `#/experiments/N/runs/ID`                               | `/runs/ID`                                    |
//! | `…/runs/ID/model-metrics`, `/system-metrics`            | `/runs/ID?tab=metrics`, `?tab=system`         |
//! | `…/runs/ID/artifacts/PATH` (`artifactPath/PATH`)        | `/runs/ID?tab=artifacts&file=PATH`            |
//! | `#/experiments/N/models/M` (a logged model)             | `/logged-models/M`                            |
//! | `#/metric/KEY?runs=[..]&experiments=[..]` (or `metric=`)| `/experiments/N?view=charts&sel=..&q=KEY`     |
//! | `#/compare-runs?runs=[..]&experiments=[..]`             | `/experiments/N?view=compare&sel=..`          |
//! | `#/compare-experiments/..?experiments=[..]`             | `/experiments/N` (the first)                  |
//! | `#/models`, `#/models/NAME` (`/versions/V`)             | `/models`, `/models/NAME`                     |
//!
//! MLflow writes the run and experiment lists of its query as JSON arrays
//! (`runs=["a","b"]`, percent-encoded or not); a bare comma list is read too.

use super::{AppRoute, RunTab};
use crate::query::{decode_component, Query};

/// Most runs carried into `sel=` (the workspace keeps at most this many).
const MAX_RUNS: usize = 100;

/// Decodes one path segment (`%XX` only: a `+` in a path is a plus).
fn segment(s: &str) -> String {
    decode_component(&s.replace('+', "%2B"))
}

/// A list value: a JSON array of strings (or numbers), else comma-separated; empty items
/// and repeats dropped.
fn list(value: Option<&str>) -> Vec<String> {
    let value = value.unwrap_or_default().trim();
    let items: Vec<String> = match serde_json::from_str::<Vec<serde_json::Value>>(value) {
        Ok(arr) => arr
            .into_iter()
            .filter_map(|v| match v {
                serde_json::Value::String(s) => Some(s),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .collect(),
        Err(_) => value.split(',').map(str::to_owned).collect(),
    };
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let item = item.trim().to_owned();
        if !item.is_empty() && !out.contains(&item) && out.len() < MAX_RUNS {
            out.push(item);
        }
    }
    out
}

/// A single value that MLflow may have written as a JSON string (`metric="loss"`).
fn scalar(value: &str) -> String {
    serde_json::from_str::<String>(value).unwrap_or_else(|_| value.to_owned())
}

/// The run page of `id`, on the tab MLflow's `tail` (segments after the id) names.
fn run_target(id: &str, tail: &[String]) -> String {
    let path = AppRoute::run(id);
    let (tab, file) = match tail.first().map(String::as_str) {
        Some("model-metrics" | "metrics") => (Some(RunTab::Metrics), None),
        Some("system-metrics") => (Some(RunTab::System), None),
        Some("artifacts" | "artifactPath") => {
            let file = tail[1..].join("/");
            (Some(RunTab::Artifacts), (!file.is_empty()).then_some(file))
        }
        _ => (None, None),
    };
    Query::new()
        .with_opt("tab", tab.and_then(RunTab::query_value))
        .with_opt("file", file)
        .url(&path)
}

/// `/experiments/N?view=…&sel=…` for the experiments and runs of a metric or compare link;
/// without an experiment, the first run's page; without either, `None`.
fn workspace_target(q: &Query, view: &str, metric: Option<String>) -> Option<String> {
    let runs = list(q.get("runs"));
    match list(q.get("experiments")).first() {
        Some(exp) => Some(
            Query::new()
                .with("view", view)
                .with_opt("sel", (!runs.is_empty()).then(|| runs.join(",")))
                .with_opt("q", metric.filter(|m| !m.is_empty()))
                .url(&AppRoute::experiment(exp.clone())),
        ),
        None => runs.first().map(|r| {
            let tab = (view == "charts").then_some(RunTab::Metrics);
            Query::new()
                .with_opt("tab", tab.and_then(RunTab::query_value))
                .url(&AppRoute::run(r.clone()))
        }),
    }
}

/// The metric of a metric link: `#/metric/KEY`, else `metric=` (maybe a JSON string),
/// else the first of `plot_metric_keys=`.
fn metric_key(path_tail: &[String], q: &Query) -> Option<String> {
    let from_path = path_tail.join("/");
    if !from_path.is_empty() {
        return Some(from_path);
    }
    q.get("metric")
        .map(scalar)
        .or_else(|| list(q.get("plot_metric_keys")).into_iter().next())
}

/// The runlens path (with query) showing what MLflow's hash route `hash` (with or without
/// its leading `#`) shows; `None` when `hash` is not an MLflow route (a plain `#anchor`).
pub fn mlflow_target(hash: &str) -> Option<String> {
    let route = hash.strip_prefix('#').unwrap_or(hash).strip_prefix('/')?;
    let (path, query) = route.split_once('?').unwrap_or((route, ""));
    let q = Query::parse(query);
    let segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(segment)
        .collect();
    let parts: Vec<&str> = segs.iter().map(String::as_str).collect();
    match parts.as_slice() {
        [] | ["experiments"] => Some(AppRoute::Experiments.path()),
        ["experiments", _, "runs", run, ..] => Some(run_target(run, &segs[4..])),
        ["experiments", _, "models", model, ..] => Some(AppRoute::logged_model(*model)),
        ["experiments", exp, ..] => Some(AppRoute::experiment(*exp)),
        ["metric", ..] => workspace_target(&q, "charts", metric_key(&segs[1..], &q)),
        ["compare-runs", ..] => workspace_target(&q, "compare", None),
        ["compare-experiments", ..] => list(q.get("experiments"))
            .first()
            .map(|e| AppRoute::experiment(e.clone())),
        ["models"] => Some(AppRoute::Models.path()),
        ["models", name, ..] => Some(AppRoute::registered_model(*name)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::mlflow_target;

    const RUN: &str = "0123456789abcdef0123456789abcdef";

    fn t(hash: &str) -> Option<String> {
        mlflow_target(hash)
    }

    #[test]
    fn run_links_printed_by_the_client_open_the_run() {
        assert_eq!(
            t(&format!("#/experiments/5/runs/{RUN}")),
            Some(format!("/runs/{RUN}"))
        );
        assert_eq!(
            t(&format!("#/experiments/5/runs/{RUN}/overview")),
            Some(format!("/runs/{RUN}"))
        );
        assert_eq!(
            t(&format!("#/experiments/5/runs/{RUN}/model-metrics")),
            Some(format!("/runs/{RUN}?tab=metrics"))
        );
        assert_eq!(
            t(&format!("#/experiments/5/runs/{RUN}/system-metrics")),
            Some(format!("/runs/{RUN}?tab=system"))
        );
        assert_eq!(
            t(&format!(
                "#/experiments/5/runs/{RUN}/artifacts/model/MLmodel"
            )),
            Some(format!("/runs/{RUN}?tab=artifacts&file=model/MLmodel"))
        );
        assert_eq!(
            t(&format!(
                "#/experiments/5/runs/{RUN}/artifactPath/a%20b.txt"
            )),
            Some(format!("/runs/{RUN}?tab=artifacts&file=a+b.txt"))
        );
    }

    #[test]
    fn experiment_links() {
        assert_eq!(t("#/experiments/5"), Some("/experiments/5".into()));
        assert_eq!(t("#/experiments/5/"), Some("/experiments/5".into()));
        assert_eq!(
            t("#/experiments/5?searchFilter=metrics.loss%3C1&orderByKey=x"),
            Some("/experiments/5".into())
        );
        assert_eq!(t("#/experiments/5/s"), Some("/experiments/5".into()));
        assert_eq!(t("#/experiments/5/runs"), Some("/experiments/5".into()));
        assert_eq!(t("#/experiments/5/traces"), Some("/experiments/5".into()));
        assert_eq!(t("#/"), Some("/".into()));
        assert_eq!(t("#/experiments"), Some("/".into()));
        assert_eq!(
            t("#/experiments/5/models/m-0123"),
            Some("/logged-models/m-0123".into())
        );
        assert_eq!(
            t("#/compare-experiments/s?experiments=%5B%222%22%2C%223%22%5D"),
            Some("/experiments/2".into())
        );
    }

    #[test]
    fn metric_links_open_the_chart_view_with_the_runs_selected() {
        // MLflow 1.x/2.x: the key in the path, lists as percent-encoded JSON.
        assert_eq!(
            t("#/metric/loss?runs=%5B%22aa%22%2C%22bb%22%5D&experiments=%5B%225%22%5D&plot_metric_keys=%5B%22loss%22%5D"),
            Some("/experiments/5?view=charts&sel=aa,bb&q=loss".into())
        );
        // The form of the issue: key in `metric=`, raw JSON.
        assert_eq!(
            t(r#"#/metric?runs=["aa","bb","cc"]&metric="val loss"&experiments=["7"]"#),
            Some("/experiments/7?view=charts&sel=aa,bb,cc&q=val+loss".into())
        );
        assert_eq!(
            t("#/metric?runs=aa&metric=acc&experiments=7"),
            Some("/experiments/7?view=charts&sel=aa&q=acc".into())
        );
        assert_eq!(
            t("#/metric/train%2Floss?runs=[\"aa\"]&experiments=[\"1\"]"),
            Some("/experiments/1?view=charts&sel=aa&q=train/loss".into())
        );
        assert_eq!(
            t("#/metric?runs=[\"aa\"]&plot_metric_keys=[\"f1\"]&experiments=[1]"),
            Some("/experiments/1?view=charts&sel=aa&q=f1".into())
        );
        // No experiment: the run's own charts.
        assert_eq!(
            t("#/metric/loss?runs=[\"aa\"]"),
            Some("/runs/aa?tab=metrics".into())
        );
        assert_eq!(t("#/metric/loss"), None);
    }

    #[test]
    fn compare_links_open_the_compare_view() {
        assert_eq!(
            t(r#"#/compare-runs?runs=["aa","bb","aa"]&experiments=["3"]"#),
            Some("/experiments/3?view=compare&sel=aa,bb".into())
        );
        assert_eq!(
            t("#/compare-runs?runs=%5B%22aa%22%5D&experiments=%5B%223%22%2C%224%22%5D"),
            Some("/experiments/3?view=compare&sel=aa".into())
        );
        assert_eq!(
            t("#/compare-runs?experiments=[\"3\"]"),
            Some("/experiments/3?view=compare".into())
        );
    }

    #[test]
    fn model_links() {
        assert_eq!(t("#/models"), Some("/models".into()));
        assert_eq!(t("#/models/churn"), Some("/models/churn".into()));
        assert_eq!(
            t("#/models/churn%20model/versions/3"),
            Some("/models/churn%20model".into())
        );
    }

    #[test]
    fn other_fragments_are_left_alone() {
        for h in [
            "",
            "#",
            "#top",
            "#section-2",
            "#/unknown/page",
            "experiments/5",
        ] {
            assert_eq!(t(h), None, "{h:?}");
        }
        // Ids are escaped, never path syntax.
        assert_eq!(
            t("#/experiments/5/runs/..%2F..%2Fsettings"),
            Some("/runs/..%2F..%2Fsettings".into())
        );
    }
}
