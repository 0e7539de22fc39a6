//! Runs-table columns: which params/metrics/tags are shown (URL `?params=&metrics=&tags=`)
//! and how a column maps to MLflow's `order_by` grammar (URL `?sort=`).

use api_types as json;

use super::colcode;
use crate::query::Query;

/// Default sort of the runs table (repeated in `app/index.html`'s early request: see
/// `api::tracking::list_runs_default_columns`).
pub const DEFAULT_SORT: &str = "attributes.start_time DESC";

/// A sortable column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    /// A run attribute such as `start_time`.
    Attr(&'static str),
    /// A param key.
    Param(String),
    /// A metric key (latest value).
    Metric(String),
    /// A tag key.
    Tag(String),
}

impl Column {
    /// The identifier in MLflow's order_by/filter grammar.
    pub fn ident(&self) -> String {
        match self {
            Column::Attr(a) => format!("attributes.{a}"),
            Column::Param(k) => format!("params.`{k}`"),
            Column::Metric(k) => format!("metrics.`{k}`"),
            Column::Tag(k) => format!("tags.`{k}`"),
        }
    }

    /// Sort state of this column under `sort`: `Some(true)` when descending.
    pub fn state(&self, sort: &str) -> Option<bool> {
        let (ident, dir) = sort.trim().rsplit_once(' ').unwrap_or((sort.trim(), "ASC"));
        (ident == self.ident()).then(|| dir.eq_ignore_ascii_case("DESC"))
    }

    /// The clause after clicking this column: flips a sorted column, else starts with the
    /// natural direction (metrics and times descending, text ascending).
    pub fn clicked(&self, sort: &str) -> String {
        let desc = match self.state(sort) {
            Some(d) => !d,
            None => matches!(self, Column::Metric(_) | Column::Attr("start_time")),
        };
        format!("{} {}", self.ident(), if desc { "DESC" } else { "ASC" })
    }
}

/// Columns shown when the URL names none ([`json::RunTableColumns::defaults`]).
pub fn default_columns(d: &json::ExperimentDetail) -> json::RunTableColumns {
    json::RunTableColumns::defaults(&d.param_keys, &d.metric_keys)
}

/// The columns for the URL values (`None` = key absent, use the default; the values are
/// [`colcode`] encoded).
pub fn columns_from(
    d: &json::ExperimentDetail,
    params: Option<String>,
    metrics: Option<String>,
    tags: Option<String>,
) -> json::RunTableColumns {
    let def = default_columns(d);
    json::RunTableColumns {
        params: params
            .and_then(|s| colcode::decode(&s, &d.param_keys))
            .unwrap_or(def.params),
        metrics: metrics
            .and_then(|s| colcode::decode(&s, &d.metric_keys))
            .unwrap_or(def.metrics),
        tags: tags
            .and_then(|s| colcode::decode(&s, &d.tag_keys))
            .unwrap_or(def.tags),
    }
}

/// Writes `cols` into the URL query: each group compactly, or not at all when it is the
/// default choice.
pub fn columns_to_query(q: &mut Query, d: &json::ExperimentDetail, cols: &json::RunTableColumns) {
    let def = default_columns(d);
    let same = |a: &[String], b: &[String]| {
        let (mut a, mut b) = (a.to_vec(), b.to_vec());
        a.sort();
        b.sort();
        a == b
    };
    let groups = [
        ("params", &cols.params, &def.params, &d.param_keys),
        ("metrics", &cols.metrics, &def.metrics, &d.metric_keys),
        ("tags", &cols.tags, &def.tags, &d.tag_keys),
    ];
    for (key, chosen, default, all) in groups {
        let value = (!same(chosen, default)).then(|| colcode::encode(chosen, all));
        q.set(key, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_by_clauses() {
        let loss = Column::Metric("loss".into());
        assert_eq!(loss.clicked(DEFAULT_SORT), "metrics.`loss` DESC");
        assert_eq!(loss.clicked("metrics.`loss` DESC"), "metrics.`loss` ASC");
        assert_eq!(loss.state("metrics.`loss` DESC"), Some(true));
        assert_eq!(Column::Param("lr".into()).clicked(""), "params.`lr` ASC");
        assert_eq!(Column::Attr("start_time").state(DEFAULT_SORT), Some(true));
        assert_eq!(Column::Attr("run_name").state(DEFAULT_SORT), None);
        assert_eq!(Column::Tag("a b".into()).ident(), "tags.`a b`");
    }

    #[test]
    fn columns_default_and_from_url() {
        let d = json::ExperimentDetail {
            experiment: json::ExperimentSummary {
                id: "1".into(),
                name: "e".into(),
                lifecycle_stage: "active".into(),
                creation_time: 0,
                last_update_time: 0,
                run_count: 0,
                description: None,
            },
            tags: vec![],
            param_keys: vec!["a".into(), "b".into()],
            metric_keys: vec!["loss".into(), "system/cpu".into()],
            tag_keys: vec!["t".into()],
            can_edit: false,
        };
        let c = columns_from(&d, None, None, None);
        assert_eq!(
            (c.params.len(), c.metrics, c.tags.len()),
            (2, vec!["loss".to_owned()], 0)
        );
        let c = columns_from(
            &d,
            Some(String::new()),
            Some("x, y".into()),
            Some("t".into()),
        );
        assert_eq!((c.params.len(), c.metrics.len(), c.tags.len()), (0, 2, 1));
        let mut q = Query::new();
        columns_to_query(&mut q, &d, &c);
        assert_eq!(q.encode(), "params=&metrics=x,y&tags=t");
        columns_to_query(&mut q, &d, &columns_from(&d, None, None, None));
        assert_eq!(q.encode(), "");
    }
}
