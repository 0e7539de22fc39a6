//! `logged-models/search`: MLflow's filter over a logged model's attributes, metrics,
//! params and tags (AND-ed comparisons), its order_by (attributes or `metrics.<key>`,
//! nulls last, then newest first and by id) and offset paging. Deleted models never match.

use crate::db::{Conn, Engine, Value};

use super::logged::{self, LoggedModel, Status, COLUMNS};
use crate::db::sql::{ilike, integer_column_vs, like, like_pattern};
use crate::tracking::filter::{excerpt, parse_filter, Clause, Ident, Literal, Op};
use crate::Error;

/// Default page size (MLflow's `SEARCH_LOGGED_MODEL_MAX_RESULTS_DEFAULT`).
pub(crate) const DEFAULT_MAX_RESULTS: usize = 100;

/// One order_by entry (MLflow `SearchLoggedModels.OrderBy`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OrderBy {
    /// An attribute (`creation_time`, `name`, ...) or `metrics.<key>`.
    pub field_name: String,
    /// Ascending (the default) or descending.
    pub ascending: bool,
    /// For metrics: only values computed on this dataset.
    pub dataset_name: Option<String>,
    /// For metrics: only values computed on this dataset digest.
    pub dataset_digest: Option<String>,
}

/// A dataset restriction (MLflow `SearchLoggedModels.Dataset`): metric filters (or, with
/// none, the models themselves) only count metrics computed on one of these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DatasetFilter {
    /// Dataset name (required).
    pub name: String,
    /// Its digest, if given.
    pub digest: Option<String>,
}

/// A search request.
#[derive(Debug, Clone, Default)]
pub(crate) struct Query {
    /// Experiments to search.
    pub experiment_ids: Vec<i64>,
    /// MLflow filter string ("" = none).
    pub filter: String,
    /// Dataset restrictions.
    pub datasets: Vec<DatasetFilter>,
    /// Ordering.
    pub order_by: Vec<OrderBy>,
    /// Rows to skip.
    pub offset: usize,
    /// Page size.
    pub limit: usize,
}

/// A SQL fragment with its bound values.
struct Sql {
    text: String,
    params: Vec<Value>,
}

/// An attribute column of `logged_models` and whether it is numeric.
fn attribute(key: &str) -> Option<(&'static str, bool)> {
    let key = key.trim_matches('`');
    Some(match key {
        "model_id" => ("model_id", false),
        "experiment_id" => ("experiment_id", false),
        "name" => ("name", false),
        "artifact_location" | "artifact_uri" => ("artifact_location", false),
        "status" => ("status", false),
        "status_message" => ("status_message", false),
        "model_type" => ("model_type", false),
        "source_run_id" => ("source_run_id", false),
        "creation_timestamp_ms" | "creation_timestamp" | "creation_time" => ("creation_time", true),
        "last_updated_timestamp_ms" | "last_updated_timestamp" => ("last_updated_time", true),
        _ => return None,
    })
}

fn invalid_entity(kind: &str) -> Error {
    Error::InvalidParameter(format!(
        "Invalid entity type: '{kind}'. Expected one of ['attributes', 'metrics', 'params', \
         'tags']."
    ))
}

/// What a filter identifier names.
enum Target {
    Attr(&'static str, bool),
    Metric(String),
    Param(String),
    Tag(String),
}

fn target(ident: &Ident) -> Result<Target, Error> {
    match ident.kind.as_deref() {
        None | Some("attributes") | Some("attribute") | Some("attr") => {
            let (col, numeric) = attribute(&ident.key).ok_or_else(|| {
                Error::InvalidParameter(format!("Invalid attribute key '{}'.", ident.key))
            })?;
            Ok(Target::Attr(col, numeric))
        }
        Some("metrics") | Some("metric") => Ok(Target::Metric(ident.key.clone())),
        Some("params") | Some("param") | Some("parameters") => Ok(Target::Param(ident.key.clone())),
        Some("tags") | Some("tag") => Ok(Target::Tag(ident.key.clone())),
        Some(other) => Err(invalid_entity(other)),
    }
}

fn describe(ident: &Ident) -> String {
    match &ident.kind {
        Some(k) => format!("{k}.{}", ident.key),
        None => ident.key.clone(),
    }
}

/// The SQL comparison (`<op> ?`) of a clause and its bound values; numeric targets take
/// `= != < <= > >=` and a number, others `= != LIKE ILIKE IN NOT IN` and strings.
fn comparison(d: Engine, c: &Clause, numeric: bool) -> Result<(String, Vec<Value>), Error> {
    let ops: &[Op] = if numeric {
        &[Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge]
    } else {
        &[Op::Eq, Op::Ne, Op::Like, Op::ILike, Op::In, Op::NotIn]
    };
    if !ops.contains(&c.op) {
        let names: Vec<&str> = ops.iter().map(|o| o.as_str()).collect();
        return Err(Error::InvalidParameter(format!(
            "Invalid comparison operator for {}: '{}'. Expected one of {names:?}.",
            describe(&c.ident),
            c.op.as_str()
        )));
    }
    let mismatch = || {
        Error::InvalidParameter(format!(
            "Invalid value for {}: expected a {}.",
            describe(&c.ident),
            if numeric { "number" } else { "quoted string" }
        ))
    };
    Ok(match (&c.value, c.op) {
        (Literal::Number(n), _) if numeric => {
            (format!("{} ?", c.op.as_str()), vec![Value::Real(*n)])
        }
        (Literal::List(items), Op::In | Op::NotIn) if !numeric => {
            let marks = vec!["?"; items.len()].join(",");
            let not = if c.op == Op::NotIn { "NOT " } else { "" };
            let values = items.iter().cloned().map(Value::Text).collect();
            (format!("{not}IN ({marks})"), values)
        }
        (Literal::Str(s), Op::Like) if !numeric => {
            (like(d).into(), vec![Value::Text(like_pattern(d, s))])
        }
        (Literal::Str(s), Op::ILike) if !numeric => (ilike(d).into(), vec![Value::Text(s.clone())]),
        (Literal::Str(s), Op::Eq | Op::Ne) if !numeric => {
            (format!("{} ?", c.op.as_str()), vec![Value::Text(s.clone())])
        }
        _ => return Err(mismatch()),
    })
}

/// `(dataset_name = ? [AND dataset_digest = ?]) OR ...` over the metric row `x`.
fn dataset_condition(datasets: &[DatasetFilter]) -> Option<Sql> {
    if datasets.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    let mut params = Vec::new();
    for d in datasets {
        params.push(Value::Text(d.name.clone()));
        match &d.digest {
            Some(digest) => {
                parts.push("(x.dataset_name = ? AND x.dataset_digest = ?)");
                params.push(Value::Text(digest.clone()));
            }
            None => parts.push("(x.dataset_name = ?)"),
        }
    }
    Some(Sql {
        text: format!("({})", parts.join(" OR ")),
        params,
    })
}

fn compile_clause(d: Engine, c: &Clause, datasets: Option<&Sql>) -> Result<Sql, Error> {
    let exists = |table: &str, cmp: String, extra: &str| {
        format!(
            "EXISTS (SELECT 1 FROM {table} x WHERE x.model_id = m.model_id AND x.key = ?{extra} \
             AND x.value {cmp})"
        )
    };
    Ok(match target(&c.ident)? {
        Target::Attr("status", _) => {
            // Compared by name (`LOGGED_MODEL_READY`) or number, stored as a number.
            let (cmp, values) = comparison(d, c, false)?;
            let values = values
                .into_iter()
                .map(|v| match v {
                    Value::Text(t) => Value::Integer(Status::parse(&t).map_or(-1, Status::number)),
                    other => other,
                })
                .collect();
            Sql {
                text: format!("m.status {cmp}"),
                params: values,
            }
        }
        Target::Attr(col, numeric) => {
            let (cmp, mut params) = comparison(d, c, numeric)?;
            let mut col = match col {
                // Stored as a number, compared as MLflow's string id.
                "experiment_id" => "CAST(m.experiment_id AS TEXT)".to_string(),
                other => format!("m.{other}"),
            };
            // A time: an integer column.
            if let [Value::Real(n)] = params[..] {
                let bound;
                (col, bound) = integer_column_vs(&col, n);
                params = vec![bound];
            }
            Sql {
                text: format!("{col} {cmp}"),
                params,
            }
        }
        Target::Metric(key) => {
            let (cmp, values) = comparison(d, c, true)?;
            let mut params = vec![Value::Text(key)];
            let mut extra = " AND x.is_nan = 0".to_string();
            if let Some(d) = datasets {
                extra.push_str(&format!(" AND {}", d.text));
                params.extend(d.params.iter().cloned());
            }
            params.extend(values);
            Sql {
                text: exists("logged_model_metrics", cmp, &extra),
                params,
            }
        }
        Target::Param(key) | Target::Tag(key) => {
            let table = match target(&c.ident)? {
                Target::Param(_) => "logged_model_params",
                _ => "logged_model_tags",
            };
            let (cmp, values) = comparison(d, c, false)?;
            let mut params = vec![Value::Text(key)];
            params.extend(values);
            Sql {
                text: exists(table, cmp, ""),
                params,
            }
        }
    })
}

/// The ORDER BY expressions (with their bound values) of `order_by`, then MLflow's tie
/// breakers (newest first, then by id).
fn compile_order(order_by: &[OrderBy]) -> Result<Sql, Error> {
    let mut parts = Vec::new();
    let mut params = Vec::new();
    let (mut has_time, mut has_id) = (false, false);
    for ob in order_by {
        let dir = if ob.ascending { "ASC" } else { "DESC" };
        let expr = match ob.field_name.split_once('.') {
            None => {
                let (col, _) = attribute(&ob.field_name).ok_or_else(|| {
                    Error::InvalidParameter(format!(
                        "Invalid order by field name: {}",
                        excerpt(&ob.field_name)
                    ))
                })?;
                has_time |= col == "creation_time";
                has_id |= col == "model_id";
                format!("m.{col}")
            }
            Some(("metrics", key)) => {
                // The latest value of the key (by time, then step), optionally on a dataset.
                let mut cond = String::from("x.key = ?");
                let mut binds = vec![Value::Text(key.to_string())];
                if let Some(n) = &ob.dataset_name {
                    cond.push_str(" AND x.dataset_name = ?");
                    binds.push(Value::Text(n.clone()));
                }
                if let Some(d) = &ob.dataset_digest {
                    cond.push_str(" AND x.dataset_digest = ?");
                    binds.push(Value::Text(d.clone()));
                }
                let latest = format!(
                    "(SELECT CASE WHEN x.is_nan = 1 THEN NULL ELSE x.value END \
                     FROM logged_model_metrics x WHERE x.model_id = m.model_id AND {cond} \
                     ORDER BY x.timestamp DESC, x.step DESC, x.run_uuid ASC LIMIT 1)"
                );
                // The subquery appears twice (nulls last, then the value): bound twice.
                params.extend(binds.iter().cloned());
                params.extend(binds);
                parts.push(format!("{latest} IS NULL ASC"));
                parts.push(format!("{latest} {dir}"));
                continue;
            }
            Some(_) => {
                return Err(Error::InvalidParameter(format!(
                    "Invalid order by field name: {}. Only metrics are supported.",
                    excerpt(&ob.field_name)
                )))
            }
        };
        parts.push(format!("{expr} IS NULL ASC"));
        parts.push(format!("{expr} {dir}"));
    }
    if !has_time {
        parts.push("m.creation_time DESC".into());
    }
    if !has_id {
        parts.push("m.model_id ASC".into());
    }
    Ok(Sql {
        text: parts.join(", "),
        params,
    })
}

/// One page of matching models (with params, tags and metrics) and whether more follow.
pub(crate) fn search(conn: &Conn, q: &Query) -> Result<(Vec<LoggedModel>, bool), Error> {
    let datasets = dataset_condition(&q.datasets);
    let mut conds = vec!["m.lifecycle_stage = 'active'".to_string()];
    let mut params: Vec<Value> = Vec::new();
    let marks = vec!["?"; q.experiment_ids.len()].join(",");
    conds.push(format!("m.experiment_id IN ({marks})"));
    params.extend(q.experiment_ids.iter().map(|&id| Value::Integer(id)));
    let clauses = parse_filter(&q.filter)?;
    for c in &clauses {
        let sql = compile_clause(conn.engine(), c, datasets.as_ref())?;
        conds.push(sql.text);
        params.extend(sql.params);
    }
    let has_metric_filter = clauses
        .iter()
        .any(|c| matches!(target(&c.ident), Ok(Target::Metric(_))));
    if let (Some(d), false) = (&datasets, has_metric_filter) {
        conds.push(format!(
            "EXISTS (SELECT 1 FROM logged_model_metrics x WHERE x.model_id = m.model_id AND {})",
            d.text
        ));
        params.extend(d.params.iter().cloned());
    }
    let order = compile_order(&q.order_by)?;
    params.extend(order.params);
    params.push(Value::Integer(q.limit as i64 + 1));
    params.push(Value::Integer(q.offset as i64));
    let sql = format!(
        "SELECT {} FROM logged_models m WHERE {} ORDER BY {} LIMIT ? OFFSET ?",
        prefixed_columns(),
        conds.join(" AND "),
        order.text
    );
    let mut found = conn
        .prepare(&sql)?
        .query_map(crate::db::params_from_iter(params), logged::from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    let more = found.len() > q.limit;
    found.truncate(q.limit);
    Ok((logged::load(conn, found)?, more))
}

fn prefixed_columns() -> String {
    COLUMNS
        .split(',')
        .map(|c| format!("m.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}
