//! Runs search: MLflow filter strings and order_by clauses compiled to parameterised SQL
//! over `runs` (user values are always bound, never spliced into the SQL text).

use crate::db::Conn;
use crate::db::Value;

use super::fields::Field;
use super::{order, Sql};
use crate::store::sql::{ilike, like, like_pattern, Dialect};
use crate::tracking::filter::{parse_filter, Clause, Literal, Op};
use crate::tracking::ViewType;
use crate::Error;

/// Run ids of the experiments' runs matching an MLflow filter string ("" = all), ordered by
/// MLflow order_by clauses (e.g. ["metrics.loss ASC", "start_time DESC"]) with MLflow's
/// tie-breakers, skipping `offset`, at most `limit`. Bad filter/order_by → Error::InvalidParameter.
pub fn search_run_ids(
    conn: &Conn,
    experiment_ids: &[i64],
    filter: &str,
    order_by: &[String],
    view: ViewType,
    offset: usize,
    limit: usize,
) -> Result<Vec<String>, Error> {
    let clauses = parse_filter(filter)?;
    let wheres = clauses
        .iter()
        .map(|c| compile_clause(conn.dialect(), c))
        .collect::<Result<Vec<Sql>, Error>>()?;
    let order = order::compile(order_by)?;
    if experiment_ids.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let mut sql = Sql::default();
    sql.text.push_str("SELECT r.run_uuid FROM runs r");
    sql.text.push_str(&order.joins.text);
    sql.params.extend(order.joins.params);
    let marks = vec!["?"; experiment_ids.len()].join(",");
    sql.text.push_str(&format!(
        " WHERE r.experiment_id IN ({marks}) AND {}",
        view.sql_condition("r.lifecycle_stage")
    ));
    sql.params
        .extend(experiment_ids.iter().map(|id| Value::Integer(*id)));
    for w in wheres {
        sql.text.push_str(" AND ");
        sql.text.push_str(&w.text);
        sql.params.extend(w.params);
    }
    sql.text.push_str(" ORDER BY ");
    sql.text.push_str(&order.terms);
    sql.text.push_str(" LIMIT ? OFFSET ?");
    sql.params
        .push(Value::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
    sql.params
        .push(Value::Integer(i64::try_from(offset).unwrap_or(i64::MAX)));
    let mut stmt = conn.prepare_cached(&sql.text)?;
    let ids = stmt
        .query_map(crate::db::params_from_iter(sql.params), |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(ids)
}

/// Compiles one filter clause to a boolean SQL expression over the run `r`.
fn compile_clause(d: Dialect, clause: &Clause) -> Result<Sql, Error> {
    let field = Field::resolve(&clause.ident)?;
    field.check_op(clause.op)?;
    let value = field.bind_value(clause)?;
    let (cmp, value) = comparison(d, clause.op, value);
    let sub = |table: &str, extra: &str| {
        format!(
            "EXISTS (SELECT 1 FROM {table} x WHERE x.run_uuid = r.run_uuid AND x.key = ?{extra} \
             AND x.value {cmp})"
        )
    };
    let (text, key) = match &field {
        Field::Metric(k) => (sub("latest_metrics", " AND x.is_nan = 0"), Some(k)),
        Field::Param(k) => (sub("params", ""), Some(k)),
        Field::Tag(k) => (sub("tags", ""), Some(k)),
        Field::Attr(a) => (format!("r.{} {cmp}", a.column()), None),
        // Any of the run's dataset inputs (`dataset_inputs`, `datasets`, `input_tags`).
        Field::Dataset(k) => (dataset_exists(k, &cmp), None),
    };
    let mut params: Vec<Value> = key.map(|k| Value::Text(k.clone())).into_iter().collect();
    params.extend(value);
    Ok(Sql { text, params })
}

/// Whether one of the run `r`'s dataset inputs has `key` (`name`, `digest` or `context`,
/// the input's `mlflow.data.context` tag) satisfying `cmp`.
fn dataset_exists(key: &str, cmp: &str) -> String {
    let from = "dataset_inputs x JOIN datasets d ON d.dataset_id = x.dataset_id";
    match key {
        "context" => format!(
            "EXISTS (SELECT 1 FROM dataset_inputs x JOIN input_tags t ON t.input_id = x.input_id \
             WHERE x.run_uuid = r.run_uuid AND t.key = 'mlflow.data.context' AND t.value {cmp})"
        ),
        "digest" => format!(
            "EXISTS (SELECT 1 FROM {from} WHERE x.run_uuid = r.run_uuid AND d.digest {cmp})"
        ),
        _ => {
            format!("EXISTS (SELECT 1 FROM {from} WHERE x.run_uuid = r.run_uuid AND d.name {cmp})")
        }
    }
}

/// The SQL comparison for `op` (with its placeholders) and the values it binds.
/// LIKE is case-sensitive in MLflow but not in SQLite: see [`like`].
fn comparison(d: Dialect, op: Op, value: Literal) -> (String, Vec<Value>) {
    let one = |v: Literal| match v {
        Literal::Number(n) => vec![Value::Real(n)],
        Literal::Str(s) => vec![Value::Text(s)],
        Literal::List(items) => items.into_iter().map(Value::Text).collect(),
    };
    match op {
        Op::Like => {
            let pattern = match value {
                Literal::Str(s) => like_pattern(d, &s),
                other => return ("= ?".to_string(), one(other)),
            };
            (like(d).to_string(), vec![Value::Text(pattern)])
        }
        Op::In | Op::NotIn => {
            let values = one(value);
            let marks = vec!["?"; values.len()].join(",");
            let not = if op == Op::NotIn { "NOT " } else { "" };
            (format!("{not}IN ({marks})"), values)
        }
        Op::ILike => (ilike(d).to_string(), one(value)),
        Op::Ne => ("<> ?".to_string(), one(value)),
        other => (format!("{} ?", other.as_str()), one(value)),
    }
}
