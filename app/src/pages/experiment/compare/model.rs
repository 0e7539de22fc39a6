//! The compared runs as data: one column per run, params, latest metrics and tags per
//! key, the diff rows of the table, and the columns (`params.<key>` or `metrics.<key>`)
//! the charts can plot. Pure functions, no signals.

use api_types as json;

use crate::format;

/// A plottable column: a param or a metric.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ColumnRef {
    /// A param's value.
    Param(String),
    /// A metric's latest value.
    Metric(String),
}

impl ColumnRef {
    /// Parses `params.<key>` or `metrics.<key>`.
    pub fn parse(s: &str) -> Option<ColumnRef> {
        if let Some(k) = s.strip_prefix("params.").filter(|k| !k.is_empty()) {
            Some(ColumnRef::Param(k.to_owned()))
        } else {
            s.strip_prefix("metrics.")
                .filter(|k| !k.is_empty())
                .map(|k| ColumnRef::Metric(k.to_owned()))
        }
    }

    /// The URL spelling, `params.<key>` or `metrics.<key>`.
    pub fn query_value(&self) -> String {
        match self {
            ColumnRef::Param(k) => format!("params.{k}"),
            ColumnRef::Metric(k) => format!("metrics.{k}"),
        }
    }

    /// The key without its kind.
    pub fn key(&self) -> &str {
        match self {
            ColumnRef::Param(k) | ColumnRef::Metric(k) => k,
        }
    }
}

/// One compared run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunCol {
    /// Run id.
    pub id: String,
    /// Run name.
    pub name: String,
    /// `#rrggbb`.
    pub color: String,
}

/// The compared runs and their values, aligned with `runs`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Compared {
    /// The runs, in selection order.
    pub runs: Vec<RunCol>,
    /// Params: key and value per run.
    pub params: Vec<(String, Vec<Option<String>>)>,
    /// Metrics: key and latest value per run.
    pub metrics: Vec<(String, Vec<Option<f64>>)>,
    /// Tags: key and value per run.
    pub tags: Vec<(String, Vec<Option<String>>)>,
}

impl Compared {
    /// The rows of `table` for the ids of `order` (in that order; ids the table lacks are
    /// left out), coloured by `color`.
    pub fn from_table(
        table: &json::RunTable,
        order: &[String],
        color: impl Fn(&str) -> String,
    ) -> Compared {
        let rows: Vec<&json::RunRow> = order
            .iter()
            .filter_map(|id| table.rows.iter().find(|r| &r.run_id == id))
            .collect();
        let runs = rows
            .iter()
            .map(|r| RunCol {
                id: r.run_id.clone(),
                name: r.run_name.clone(),
                color: color(&r.run_id),
            })
            .collect();
        let c = &table.columns;
        let params = c
            .params
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let vals = rows.iter().map(|r| r.params.get(i).cloned().flatten());
                (k.clone(), vals.collect())
            })
            .collect();
        let metrics = c
            .metrics
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let vals = rows
                    .iter()
                    .map(|r| r.metrics.get(i).copied().flatten().map(|v| v.0));
                (k.clone(), vals.collect())
            })
            .collect();
        let tags = c
            .tags
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let vals = rows.iter().map(|r| r.tags.get(i).cloned().flatten());
                (k.clone(), vals.collect())
            })
            .collect();
        Compared {
            runs,
            params,
            metrics,
            tags,
        }
    }

    /// The values of a column, one per run (`None` where a run lacks it): params as text,
    /// metrics as numbers.
    pub fn values(&self, c: &ColumnRef) -> Vec<Option<Value>> {
        let none = || vec![None; self.runs.len()];
        match c {
            ColumnRef::Param(k) => self
                .params
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.iter().map(|s| s.clone().map(Value::Text)).collect())
                .unwrap_or_else(none),
            ColumnRef::Metric(k) => self
                .metrics
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.iter().map(|n| n.map(Value::Number)).collect())
                .unwrap_or_else(none),
        }
    }

    /// Every plottable column that at least one run has: params, then metrics.
    pub fn columns(&self) -> Vec<ColumnRef> {
        let has = |v: &[Option<String>]| v.iter().any(Option::is_some);
        let params = self
            .params
            .iter()
            .filter(|(_, v)| has(v))
            .map(|(k, _)| ColumnRef::Param(k.clone()));
        let metrics = self
            .metrics
            .iter()
            .filter(|(_, v)| v.iter().any(Option::is_some))
            .map(|(k, _)| ColumnRef::Metric(k.clone()));
        params.chain(metrics).collect()
    }

    /// Params whose values differ between the runs.
    pub fn differing_params(&self) -> Vec<String> {
        self.params
            .iter()
            .filter(|(_, v)| differs(v))
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// The diff table's rows: params, then metrics, then tags.
    pub fn diff_rows(&self) -> Vec<DiffRow> {
        let text = |section, k: &String, v: &[Option<String>]| {
            DiffRow::new(section, k, v, |s: &String| s.clone())
        };
        let params = self.params.iter().map(|(k, v)| text(Section::Params, k, v));
        let metrics = self
            .metrics
            .iter()
            .map(|(k, v)| DiffRow::new(Section::Metrics, k, v, |n: &f64| format::value(*n)));
        let tags = self.tags.iter().map(|(k, v)| text(Section::Tags, k, v));
        params.chain(metrics).chain(tags).collect()
    }
}

/// A value of a plotted column.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A param's text.
    Text(String),
    /// A metric's number.
    Number(f64),
}

/// Whether the values are not all equal (a missing value differs from any present one).
pub fn differs<T: PartialEq>(v: &[Option<T>]) -> bool {
    v.iter().any(|x| *x != v[0])
}

/// Part of the diff table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// Params.
    Params,
    /// Latest metrics.
    Metrics,
    /// User tags.
    Tags,
}

impl Section {
    /// The section's heading.
    pub fn label(self) -> &'static str {
        match self {
            Section::Params => "Params",
            Section::Metrics => "Metrics",
            Section::Tags => "Tags",
        }
    }
}

/// One row of the diff table.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffRow {
    /// Which part.
    pub section: Section,
    /// The key.
    pub key: String,
    /// Shown value per run (`None` = the run lacks it).
    pub cells: Vec<Option<String>>,
    /// Whether the runs' values differ.
    pub differs: bool,
    /// Per run: whether its value differs from the first run's.
    pub cell_differs: Vec<bool>,
}

impl DiffRow {
    fn new<T: PartialEq>(
        section: Section,
        key: &str,
        values: &[Option<T>],
        show: impl Fn(&T) -> String,
    ) -> DiffRow {
        let d = !values.is_empty() && differs(values);
        DiffRow {
            section,
            key: key.to_owned(),
            cells: values.iter().map(|v| v.as_ref().map(&show)).collect(),
            differs: d,
            cell_differs: values.iter().map(|v| d && *v != values[0]).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_types::F64;

    fn table() -> json::RunTable {
        let row = |id: &str, lr: &str, opt: Option<&str>, loss: f64| json::RunRow {
            run_id: id.into(),
            run_name: format!("run-{id}"),
            status: "FINISHED".into(),
            start_time: 0,
            end_time: Some(1),
            user_id: "u".into(),
            parent_run_id: None,
            params: vec![Some(lr.into()), opt.map(Into::into)],
            metrics: vec![Some(F64(loss))],
            tags: vec![Some("e2e".into())],
        };
        json::RunTable {
            columns: json::RunTableColumns {
                params: vec!["lr".into(), "optimizer".into()],
                metrics: vec!["loss".into()],
                tags: vec!["team".into()],
            },
            rows: vec![
                row("a", "0.1", Some("adam"), 0.5),
                row("b", "0.01", Some("adam"), 0.25),
                row("c", "0.001", None, 0.5),
            ],
            total: 3,
            next_page_token: None,
        }
    }

    fn compared() -> Compared {
        let order = ["c".to_owned(), "a".to_owned(), "zz".to_owned()];
        Compared::from_table(&table(), &order, |id| format!("#{id}{id}{id}000"))
    }

    #[test]
    fn runs_follow_the_selection_order() {
        let c = compared();
        let ids: Vec<&str> = c.runs.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["c", "a"]);
        assert_eq!(c.runs[0].name, "run-c");
        assert_eq!(
            c.params[0],
            ("lr".into(), vec![Some("0.001".into()), Some("0.1".into())])
        );
        assert_eq!(c.metrics[0].1, vec![Some(0.5), Some(0.5)]);
    }

    #[test]
    fn diff_rows_mark_differences() {
        let c = compared();
        let rows = c.diff_rows();
        let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["lr", "optimizer", "loss", "team"]);
        let lr = &rows[0];
        assert!(lr.differs);
        assert_eq!(lr.cell_differs, [false, true]);
        // A missing value differs from a present one.
        assert!(rows[1].differs);
        assert_eq!(rows[1].cells, [None, Some("adam".into())]);
        // Equal metric and tag rows do not differ.
        assert!(!rows[2].differs);
        assert_eq!(rows[2].cells, [Some("0.5".into()), Some("0.5".into())]);
        assert!(!rows[3].differs);
        assert_eq!(rows[3].cell_differs, [false, false]);
        assert_eq!(c.differing_params(), ["lr", "optimizer"]);
    }

    #[test]
    fn columns_and_values() {
        let c = compared();
        assert_eq!(
            c.columns(),
            [
                ColumnRef::Param("lr".into()),
                ColumnRef::Param("optimizer".into()),
                ColumnRef::Metric("loss".into())
            ]
        );
        assert_eq!(
            c.values(&ColumnRef::Metric("loss".into())),
            [Some(Value::Number(0.5)), Some(Value::Number(0.5))]
        );
        assert_eq!(c.values(&ColumnRef::Param("nope".into())), [None, None]);
    }

    #[test]
    fn column_refs_parse() {
        for s in ["params.lr", "metrics.a.b"] {
            assert_eq!(ColumnRef::parse(s).unwrap().query_value(), s);
        }
        assert_eq!(ColumnRef::parse("tags.x"), None);
        assert_eq!(ColumnRef::parse("params."), None);
        assert_eq!(ColumnRef::parse("metrics.loss").unwrap().key(), "loss");
    }
}
