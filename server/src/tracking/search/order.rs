//! order_by clauses of runs search compiled to LEFT JOINs and ORDER BY terms, with
//! MLflow's rules: missing values last (NaN after values), then `start_time DESC` and
//! `run_id ASC` as tie-breakers.

use crate::db::Value;

use super::fields::{Attr, Field};
use super::Sql;
use crate::tracking::filter::parse_order_by;
use crate::Error;

/// Joins to add to the FROM clause and the ORDER BY term list.
pub(super) struct Order {
    pub joins: Sql,
    pub terms: String,
}

/// Compiles the order_by list.
pub(super) fn compile(order_by: &[String]) -> Result<Order, Error> {
    let mut joins = Sql::default();
    let mut terms: Vec<String> = Vec::new();
    let mut seen: Vec<Field> = Vec::new();
    for (i, clause) in order_by.iter().enumerate() {
        let (ident, asc) = parse_order_by(clause)?;
        let field = Field::resolve(&ident)?;
        if seen.contains(&field) {
            return Err(Error::InvalidParameter(format!(
                "`order_by` contains duplicate fields: {order_by:?}"
            )));
        }
        let dir = if asc { "ASC" } else { "DESC" };
        let alias = format!("o{i}");
        let join = |table: &str, joins: &mut Sql, key: &str| {
            joins.text.push_str(&format!(
                " LEFT JOIN {table} {alias} ON {alias}.run_uuid = r.run_uuid AND {alias}.key = ?"
            ));
            joins.params.push(Value::Text(key.to_string()));
        };
        match &field {
            Field::Metric(k) => {
                join("latest_metrics", &mut joins, k);
                terms.push(format!(
                    "CASE WHEN {alias}.run_uuid IS NULL THEN 2 WHEN {alias}.is_nan = 1 THEN 1 \
                     ELSE 0 END, {alias}.value {dir}"
                ));
            }
            Field::Param(k) | Field::Tag(k) => {
                let table = if matches!(field, Field::Param(_)) {
                    "params"
                } else {
                    "tags"
                };
                join(table, &mut joins, k);
                terms.push(format!("{alias}.value IS NULL, {alias}.value {dir}"));
            }
            Field::Attr(a) => {
                let col = a.column();
                terms.push(format!("r.{col} IS NULL, r.{col} {dir}"));
            }
            Field::Dataset(_) => {
                return Err(Error::InvalidParameter(format!(
                    "Invalid order_by clause '{clause}': datasets are not orderable"
                )))
            }
        }
        seen.push(field);
    }
    if !seen.contains(&Field::Attr(Attr::StartTime)) {
        terms.push("r.start_time DESC".to_string());
    }
    if !seen.contains(&Field::Attr(Attr::RunId)) {
        terms.push("r.run_uuid ASC".to_string());
    }
    Ok(Order {
        joins,
        terms: terms.join(", "),
    })
}
