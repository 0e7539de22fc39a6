//! Experiments search: MLflow's experiments filter grammar (`name`, `creation_time`,
//! `last_update_time`, `tags.<key>`) and order_by, compiled to parameterised SQL.

use crate::db::{Conn, Engine, Value};

use crate::db::sql::{ilike, integer_column_vs, like, like_pattern};
use crate::permissions::ReadableSql;
use crate::tracking::experiments::{from_row, with_tags, COLUMNS};
use crate::tracking::filter::{parse_filter, parse_order_by, Clause, Ident, Literal, Op};
use crate::tracking::model::Experiment;
use crate::tracking::ViewType;
use crate::Error;

/// What an experiments-search identifier refers to.
enum Field {
    /// A column of `experiments` (fixed identifier) and whether it is numeric.
    Column(&'static str, bool),
    /// An experiment tag.
    Tag(String),
}

fn resolve(ident: &Ident, ordering: bool) -> Result<Field, Error> {
    let key = ident.key.as_str();
    match ident.kind.as_deref() {
        Some("tag" | "tags") if !ordering => Ok(Field::Tag(ident.key.clone())),
        None | Some("attribute" | "attributes" | "attr") => match key {
            "name" => Ok(Field::Column("name", false)),
            "creation_time" => Ok(Field::Column("creation_time", true)),
            "last_update_time" => Ok(Field::Column("last_update_time", true)),
            "experiment_id" if ordering => Ok(Field::Column("experiment_id", true)),
            _ => Err(Error::InvalidParameter(format!(
                "Invalid attribute key '{key}' specified. Valid keys are \
                 'name', 'creation_time', 'last_update_time'"
            ))),
        },
        Some(other) => Err(Error::InvalidParameter(format!(
            "Invalid entity type '{other}'. Valid values are ['tag', 'attribute']"
        ))),
    }
}

fn compile_clause(d: Engine, c: &Clause) -> Result<(String, Vec<Value>), Error> {
    let field = resolve(&c.ident, false)?;
    let numeric = matches!(field, Field::Column(_, true));
    let op_ok = if numeric {
        c.op.is_numeric()
    } else {
        matches!(c.op, Op::Eq | Op::Ne | Op::Like | Op::ILike)
    };
    if !op_ok {
        return Err(Error::InvalidParameter(format!(
            "Invalid comparator '{}' for '{}'",
            c.op.as_str(),
            c.ident.key
        )));
    }
    let value = match (&c.value, numeric) {
        (Literal::Number(n), true) => Value::Real(*n),
        (Literal::Str(s), false) if c.op == Op::Like => Value::Text(like_pattern(d, s)),
        (Literal::Str(s), false) => Value::Text(s.clone()),
        _ => {
            return Err(Error::InvalidParameter(format!(
                "Invalid value for '{}': expected {}",
                c.ident.key,
                if numeric {
                    "a number"
                } else {
                    "a quoted string"
                }
            )))
        }
    };
    let cmp = match c.op {
        Op::Like => like(d).to_string(),
        Op::ILike => ilike(d).to_string(),
        Op::Ne => "<> ?".to_string(),
        op => format!("{} ?", op.as_str()),
    };
    Ok(match field {
        Field::Column(col, _) => match value {
            // A time: an integer column.
            Value::Real(n) => {
                let (col, bound) = integer_column_vs(&format!("e.{col}"), n);
                (format!("{col} {cmp}"), vec![bound])
            }
            value => (format!("e.{col} {cmp}"), vec![value]),
        },
        Field::Tag(key) => (
            format!(
                "EXISTS (SELECT 1 FROM experiment_tags t WHERE t.experiment_id = e.experiment_id \
                 AND t.key = ? AND t.value {cmp})"
            ),
            vec![Value::Text(key), value],
        ),
    })
}

fn compile_order(order_by: &[String]) -> Result<String, Error> {
    let mut terms = Vec::new();
    let mut cols: Vec<&str> = Vec::new();
    for clause in order_by {
        let (ident, asc) = parse_order_by(clause)?;
        let Field::Column(col, _) = resolve(&ident, true)? else {
            return Err(Error::InvalidParameter(format!(
                "Invalid order_by clause '{clause}'"
            )));
        };
        if cols.contains(&col) {
            return Err(Error::InvalidParameter(format!(
                "`order_by` contains duplicate fields: {order_by:?}"
            )));
        }
        cols.push(col);
        terms.push(format!("e.{col} {}", if asc { "ASC" } else { "DESC" }));
    }
    if cols.is_empty() {
        terms.push("e.creation_time DESC".to_string());
    }
    if !cols.contains(&"experiment_id") {
        terms.push("e.experiment_id ASC".to_string());
    }
    Ok(terms.join(", "))
}

/// Experiments that `readable` admits (see `permissions::readable_sql`, over the columns
/// `e.experiment_id` and `e.name`) matching `filter` in `view`, ordered by `order_by` (default
/// newest first), skipping `offset`, at most `limit`, with their tags.
pub(crate) fn search_experiments(
    conn: &Conn,
    readable: &ReadableSql,
    filter: &str,
    order_by: &[String],
    view: ViewType,
    offset: usize,
    limit: usize,
) -> Result<Vec<Experiment>, Error> {
    let mut sql = format!(
        "SELECT {} FROM experiments e WHERE {}",
        COLUMNS
            .split(", ")
            .map(|c| format!("e.{c}"))
            .collect::<Vec<_>>()
            .join(", "),
        view.sql_condition("e.lifecycle_stage")
    );
    sql.push_str(&format!(" AND {}", readable.sql));
    let mut params: Vec<Value> = readable.params.clone();
    for clause in parse_filter(filter)? {
        let (text, values) = compile_clause(conn.engine(), &clause)?;
        sql.push_str(" AND ");
        sql.push_str(&text);
        params.extend(values);
    }
    sql.push_str(&format!(
        " ORDER BY {} LIMIT ? OFFSET ?",
        compile_order(order_by)?
    ));
    params.push(Value::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
    params.push(Value::Integer(i64::try_from(offset).unwrap_or(i64::MAX)));
    let mut stmt = conn.prepare_cached(&sql)?;
    let exps = stmt
        .query_map(crate::db::params_from_iter(params), from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    exps.into_iter().map(|e| with_tags(conn, e)).collect()
}
