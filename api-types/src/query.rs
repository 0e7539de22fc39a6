//! Query strings of the app API's GET and DELETE requests, as types. The server parses a
//! request's query into these (answering 400 with the parameter's name when a value is
//! malformed); the app builds its request URLs from them with [`to_pairs`](ExperimentListQuery::to_pairs),
//! which writes exactly what the server reads (repeated keys in order, one key per list item).

use serde::{Deserialize, Serialize};

use crate::{ExperimentSort, PrincipalKind, RunTableColumns, XAxis};

/// `GET /api/v1/experiments?q=&sort=&desc=&offset=&limit=`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ExperimentListQuery {
    /// Case-insensitive substring of the name.
    pub q: Option<String>,
    /// Sort key (last update when absent).
    pub sort: Option<ExperimentSort>,
    /// Descending? (Default: ascending for `name`, descending otherwise.)
    pub desc: Option<bool>,
    /// Rows to skip.
    pub offset: Option<u64>,
    /// Page size, 1 to 500 (50 when absent).
    pub limit: Option<u64>,
}

impl ExperimentListQuery {
    /// The query string's `(key, value)` pairs.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        push(&mut out, "q", self.q.clone());
        push(
            &mut out,
            "sort",
            self.sort.map(|s| sort_name(s).to_string()),
        );
        push(&mut out, "desc", self.desc.map(|d| d.to_string()));
        push(&mut out, "offset", self.offset.map(|o| o.to_string()));
        push(&mut out, "limit", self.limit.map(|l| l.to_string()));
        out
    }
}

/// Which runs a runs table shows (MLflow's view type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RunView {
    /// Active runs (the default).
    #[default]
    Active,
    /// Deleted runs.
    Deleted,
    /// Both.
    All,
}

impl RunView {
    /// The query-string spelling: `active`, `deleted` or `all`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunView::Active => "active",
            RunView::Deleted => "deleted",
            RunView::All => "all",
        }
    }

    /// Parses [`RunView::as_str`]'s spelling.
    pub fn parse(s: &str) -> Option<RunView> {
        [RunView::Active, RunView::Deleted, RunView::All]
            .into_iter()
            .find(|v| v.as_str() == s)
    }
}

/// Runs a runs-table page carries when the query names no `limit`.
pub const RUN_PAGE_DEFAULT: u32 = 200;
/// Most runs one runs-table page carries.
pub const RUN_PAGE_MAX: u32 = 1000;

/// `GET /api/v1/experiments/{id}/runs?filter=&order_by=&view=&params=&metrics=&tags=&limit=&page_token=`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RunTableQuery {
    /// An MLflow search filter, e.g. `metrics.loss < 0.5 AND params.optimizer = 'adam'`.
    pub filter: Option<String>,
    /// MLflow order_by clauses in priority order (one `order_by` parameter each).
    pub order_by: Vec<String>,
    /// Active, deleted or all runs.
    pub view: RunView,
    /// The param, metric and tag columns to fill.
    pub columns: RunTableColumns,
    /// Page size, 1 to [`RUN_PAGE_MAX`] ([`RUN_PAGE_DEFAULT`] when absent).
    #[serde(default)]
    pub limit: Option<u32>,
    /// The previous page's `next_page_token` (the first page when absent).
    #[serde(default)]
    pub page_token: Option<String>,
}

impl RunTableQuery {
    /// The query string's `(key, value)` pairs; each column key is sent verbatim as one
    /// `param`/`metric`/`tag` parameter, so keys with commas survive.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        push(&mut out, "filter", self.filter.clone());
        out.extend(self.order_by.iter().map(|c| ("order_by", c.clone())));
        if self.view != RunView::Active {
            out.push(("view", self.view.as_str().to_string()));
        }
        let c = &self.columns;
        out.extend(c.params.iter().map(|k| ("param", k.clone())));
        out.extend(c.metrics.iter().map(|k| ("metric", k.clone())));
        out.extend(c.tags.iter().map(|k| ("tag", k.clone())));
        push(&mut out, "limit", self.limit.map(|n| n.to_string()));
        push(&mut out, "page_token", self.page_token.clone());
        out
    }
}

/// `GET /api/v1/runs/{id}/series?key=&x=&width=&x_min=&x_max=`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SeriesQuery {
    /// The metric key (required).
    pub key: String,
    /// What x measures.
    pub x: XAxis,
    /// Pixel columns, 1 to 10,000 (1,000 when absent).
    pub width: Option<u32>,
    /// Left end of the x range (the series' first x when absent); finite.
    pub x_min: Option<f64>,
    /// Right end of the x range (the series' last x when absent); finite.
    pub x_max: Option<f64>,
}

impl SeriesQuery {
    /// The query string's `(key, value)` pairs.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = vec![("key", self.key.clone())];
        if self.x != XAxis::Step {
            out.push(("x", axis_name(self.x).to_string()));
        }
        push(&mut out, "width", self.width.map(|w| w.to_string()));
        push(&mut out, "x_min", self.x_min.map(|v| v.to_string()));
        push(&mut out, "x_max", self.x_max.map(|v| v.to_string()));
        out
    }
}

/// `GET /api/v1/principals?q=`: the Share dialog's picker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PrincipalQuery {
    /// Case-insensitive substring of the user or group name.
    pub q: Option<String>,
}

impl PrincipalQuery {
    /// The query string's `(key, value)` pairs.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        push(&mut out, "q", self.q.clone());
        out
    }
}

/// `DELETE /api/v1/experiments/{id}/access?kind=&name=`: whose grant to revoke.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevokeQuery {
    /// User or group.
    pub kind: PrincipalKind,
    /// Its name.
    pub name: String,
}

impl RevokeQuery {
    /// The query string's `(key, value)` pairs.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let kind = match self.kind {
            PrincipalKind::User => "user",
            PrincipalKind::Group => "group",
        };
        vec![("kind", kind.to_string()), ("name", self.name.clone())]
    }
}

/// The query-string spelling of a sort key (its serde name).
fn sort_name(sort: ExperimentSort) -> &'static str {
    match sort {
        ExperimentSort::Name => "name",
        ExperimentSort::LastUpdate => "last_update",
        ExperimentSort::Created => "created",
        ExperimentSort::Runs => "runs",
    }
}

/// The query-string spelling of an x axis (its serde name).
pub(crate) fn axis_name(axis: XAxis) -> &'static str {
    match axis {
        XAxis::Step => "step",
        XAxis::Wall => "wall",
        XAxis::Relative => "relative",
    }
}

fn push(out: &mut Vec<(&'static str, String)>, key: &'static str, value: Option<String>) {
    if let Some(v) = value.filter(|v| !v.is_empty()) {
        out.push((key, v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_match_serde() {
        for s in [
            ExperimentSort::Name,
            ExperimentSort::LastUpdate,
            ExperimentSort::Created,
            ExperimentSort::Runs,
        ] {
            assert_eq!(serde_json::to_value(s).unwrap(), sort_name(s));
        }
        for a in [XAxis::Step, XAxis::Wall, XAxis::Relative] {
            assert_eq!(serde_json::to_value(a).unwrap(), axis_name(a));
        }
        for v in [RunView::Active, RunView::Deleted, RunView::All] {
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
            assert_eq!(RunView::parse(v.as_str()), Some(v));
        }
    }

    #[test]
    fn run_table_pairs_repeat_keys_in_order() {
        let q = RunTableQuery {
            filter: Some("metrics.loss < 1".into()),
            order_by: vec!["metrics.loss ASC".into(), "start_time DESC".into()],
            view: RunView::All,
            columns: RunTableColumns {
                params: vec!["a,b".into()],
                metrics: vec!["loss".into()],
                tags: vec![],
            },
            limit: Some(500),
            page_token: Some("eyJx".into()),
        };
        assert_eq!(
            q.to_pairs(),
            vec![
                ("filter", "metrics.loss < 1".to_string()),
                ("order_by", "metrics.loss ASC".to_string()),
                ("order_by", "start_time DESC".to_string()),
                ("view", "all".to_string()),
                ("param", "a,b".to_string()),
                ("metric", "loss".to_string()),
                ("limit", "500".to_string()),
                ("page_token", "eyJx".to_string()),
            ]
        );
    }
}
