//! order_by clauses of runs search compiled to LEFT JOINs and sort keys, with MLflow's
//! rules: missing values last (NaN after values), then `start_time DESC` and `run_id ASC`
//! as tie-breakers. The keys are plain expressions with a direction, so the same list
//! gives the ORDER BY, the values a page's last row is selected with, and the keyset
//! condition that starts the next page after that row (see [`Order::after`]).

use crate::db::Value;

use super::fields::{Attr, Field};
use super::Sql;
use crate::tracking::filter::parse_order_by;
use crate::Error;

/// One ORDER BY term: an expression over `r` and the joins, never user text.
pub(super) struct SortKey {
    pub expr: String,
    pub desc: bool,
}

/// Joins to add to the FROM clause and the sort keys, most significant first. The last
/// key is `r.run_uuid`, so the order is total.
pub(super) struct Order {
    pub joins: Sql,
    pub keys: Vec<SortKey>,
    /// When the first clause orders by a metric, param or tag: that table and key, and
    /// the joins of the other clauses (see [`Ranked`]).
    pub ranked: Option<Ranked>,
}

/// A first order clause on a metric, param or tag (`o0`): its first two keys are the
/// "missing last" rank and `o0.value`. Within one rank the value order is the
/// `(key, [is_nan,] value)` index's, so a page of that rank can walk the index instead
/// of looking up every run's value and sorting them all (`runs::ranked_rows`).
pub(super) struct Ranked {
    /// `latest_metrics`, `params` or `tags`.
    pub table: &'static str,
    /// The metric, param or tag key.
    pub key: String,
    /// Ranks with a row: `is_nan = 0` then `is_nan = 1` for a metric; one for a param or
    /// tag (`None`: no NaN column). The rank after them is the runs without the key.
    pub present: Vec<Option<i64>>,
    /// The value order.
    pub desc: bool,
    /// The joins of the clauses after the first.
    pub rest_joins: Sql,
}

impl Order {
    /// The ORDER BY term list.
    pub(crate) fn terms(&self) -> String {
        terms(&self.keys)
    }

    /// The keys as a select list.
    pub(crate) fn select(&self) -> String {
        let exprs: Vec<&str> = self.keys.iter().map(|k| k.expr.as_str()).collect();
        exprs.join(", ")
    }

    /// The condition "sorts after the row whose keys are `last`" (one value per key),
    /// nested as `k0 > v0 OR (k0 = v0 AND (k1 > v1 OR ...))` because the keys mix
    /// directions, which a row-value comparison cannot. A NULL value only appears where the
    /// key's "missing" rank before it is equal, so there it compares as equal to NULL and
    /// nothing sorts after it within the rank.
    pub(crate) fn after(&self, last: &[Value]) -> Sql {
        after(&self.keys, last)
    }
}

/// The sort-key terms of `keys` as an ORDER BY list.
pub(super) fn terms(keys: &[SortKey]) -> String {
    let term = |k: &SortKey| format!("{} {}", k.expr, if k.desc { "DESC" } else { "ASC" });
    keys.iter().map(term).collect::<Vec<_>>().join(", ")
}

/// [`Order::after`] over the keys `keys` and their values `last`.
pub(super) fn after(keys: &[SortKey], last: &[Value]) -> Sql {
    let mut sql = Sql::default();
    let n = keys.len().min(last.len());
    // The first key's bound again, on its own: implied by what follows, but a plain range
    // an index can seek to (`start_time <= ?` for the default order), where SQLite would
    // otherwise read both arms of the OR and sort what remains.
    if let (Some(key), Some(value)) = (keys.first(), last.first()) {
        if !matches!(value, Value::Null) {
            let cmp = if key.desc { "<=" } else { ">=" };
            sql.text.push_str(&format!("{} {cmp} ? AND ", key.expr));
            sql.params.push(value.clone());
        }
    }
    let mut open = 0;
    for (i, (key, value)) in keys.iter().zip(last).take(n).enumerate() {
        sql.text.push_str(if i > 0 { " AND (" } else { "(" });
        open += 1;
        let expr = &key.expr;
        if matches!(value, Value::Null) {
            sql.text.push_str(&format!("{expr} IS NULL"));
            if i + 1 == n {
                // Equal on every key is the row itself: not after it.
                sql.text.push_str(" AND 1 = 0");
            }
            continue;
        }
        let cmp = if key.desc { "<" } else { ">" };
        sql.text.push_str(&format!("{expr} {cmp} ?"));
        sql.params.push(value.clone());
        if i + 1 < n {
            sql.text.push_str(&format!(" OR ({expr} = ?"));
            sql.params.push(value.clone());
            open += 1;
        }
    }
    sql.text.push_str(&")".repeat(open));
    sql
}

/// The "missing last" rank of a nullable expression (0 = has a value), as an integer so
/// it compares the same in SQLite and PostgreSQL.
fn missing_rank(expr: &str) -> String {
    format!("CASE WHEN {expr} IS NULL THEN 1 ELSE 0 END")
}

/// Compiles the order_by list.
pub(super) fn compile(order_by: &[String]) -> Result<Order, Error> {
    let mut joins = Sql::default();
    let mut keys: Vec<SortKey> = Vec::new();
    let mut seen: Vec<Field> = Vec::new();
    let mut ranked: Option<Ranked> = None;
    let asc = |expr: String| SortKey { expr, desc: false };
    for (i, clause) in order_by.iter().enumerate() {
        let (ident, up) = parse_order_by(clause)?;
        let field = Field::resolve(&ident)?;
        if seen.contains(&field) {
            return Err(Error::InvalidParameter(format!(
                "`order_by` contains duplicate fields: {order_by:?}"
            )));
        }
        if let Field::Dataset(_) = field {
            return Err(Error::InvalidParameter(format!(
                "Invalid order_by clause '{clause}': datasets are not orderable"
            )));
        }
        // Run ids are unique: the clauses after one cannot change the order, so they add no
        // key, and `r.run_uuid` stays the last key (a page's token ends with the run id).
        if seen.contains(&Field::Attr(Attr::RunId)) {
            seen.push(field);
            continue;
        }
        let alias = format!("o{i}");
        let join = |table: &str, joins: &mut Sql, key: &str| {
            joins.text.push_str(&format!(
                " LEFT JOIN {table} {alias} ON {alias}.run_uuid = r.run_uuid AND {alias}.key = ?"
            ));
            joins.params.push(Value::Text(key.to_string()));
        };
        let value = |expr: String| SortKey { expr, desc: !up };
        if i == 0 {
            ranked = match &field {
                Field::Metric(k) => Some(("latest_metrics", k, vec![Some(0), Some(1)])),
                Field::Param(k) => Some(("params", k, vec![None])),
                Field::Tag(k) => Some(("tags", k, vec![None])),
                _ => None,
            }
            .map(|(table, key, present)| Ranked {
                table,
                key: key.clone(),
                present,
                desc: !up,
                rest_joins: Sql::default(),
            });
        }
        let before = joins.text.len();
        let params_before = joins.params.len();
        match &field {
            Field::Metric(k) => {
                join("latest_metrics", &mut joins, k);
                keys.push(asc(format!(
                    "CASE WHEN {alias}.run_uuid IS NULL THEN 2 WHEN {alias}.is_nan = 1 THEN 1 \
                     ELSE 0 END"
                )));
                keys.push(value(format!("{alias}.value")));
            }
            Field::Param(k) | Field::Tag(k) => {
                let table = if matches!(field, Field::Param(_)) {
                    "params"
                } else {
                    "tags"
                };
                join(table, &mut joins, k);
                keys.push(asc(missing_rank(&format!("{alias}.value"))));
                keys.push(value(format!("{alias}.value")));
            }
            Field::Attr(a) => {
                let col = format!("r.{}", a.column());
                // Only end_time may be NULL (a running run); the others are NOT NULL
                // columns, whose bare key lets an index give the order.
                if *a == Attr::EndTime {
                    keys.push(asc(missing_rank(&col)));
                }
                keys.push(value(col));
            }
            Field::Dataset(_) => {} // refused above
        }
        if i > 0 {
            if let Some(r) = ranked.as_mut() {
                r.rest_joins.text.push_str(&joins.text[before..]);
                r.rest_joins
                    .params
                    .extend(joins.params[params_before..].iter().cloned());
            }
        }
        seen.push(field);
    }
    // MLflow's tie-breakers, where the clauses leave ties: an order with the run id is
    // total already.
    if !seen.contains(&Field::Attr(Attr::RunId)) {
        if !seen.contains(&Field::Attr(Attr::StartTime)) {
            keys.push(SortKey {
                expr: "r.start_time".into(),
                desc: true,
            });
        }
        keys.push(asc("r.run_uuid".into()));
    }
    Ok(Order {
        joins,
        keys,
        ranked,
    })
}
