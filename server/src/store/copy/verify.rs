//! Checks a copied table before the commit: the same number of rows on both sides, and
//! the same values in a sample spread over the table (every k-th row in key order),
//! column by column.

use crate::db::{Conn, Value};

use super::plan::Table;
use super::{quote, CopyError};

/// Rows compared per table, at most.
pub(crate) const SAMPLE: u64 = 200;

/// Verifies `t` after `copied` rows went from `src` to `dst`; returns the rows compared.
pub(super) fn table(src: &Conn, dst: &Conn, t: &Table, copied: u64) -> Result<u64, CopyError> {
    let (n_src, n_dst) = (count(src, &t.name)?, count(dst, &t.name)?);
    if n_src != copied || n_dst != copied {
        return Err(CopyError::Mismatch(format!(
            "{}: {n_src} rows in {}, {copied} copied, {n_dst} in PostgreSQL",
            t.name, t.database
        )));
    }
    if copied == 0 {
        return Ok(0);
    }
    let stride = copied.div_ceil(SAMPLE);
    let exprs: Vec<String> = t.columns.iter().map(|(s, _)| s.expr()).collect();
    let names: Vec<String> = t.columns.iter().map(|(_, c)| quote(c)).collect();
    let want = sample(src, t, &exprs, stride)?;
    let got = sample(dst, t, &names, stride)?;
    if want.len() != got.len() {
        return Err(CopyError::Mismatch(format!(
            "{}: {} sampled rows in {}, {} in PostgreSQL",
            t.name,
            want.len(),
            t.database,
            got.len()
        )));
    }
    for (a, b) in want.iter().zip(&got) {
        if let Some(i) = (0..a.len()).find(|&i| !same(&a[i], &b[i])) {
            let key: Vec<String> = t.key.0.iter().map(|&k| show(&a[k])).collect();
            return Err(CopyError::Mismatch(format!(
                "{} (key {}): column {} is {} in {} but {} in PostgreSQL",
                t.name,
                key.join(", "),
                t.columns[i].1,
                show(&a[i]),
                t.database,
                show(&b[i])
            )));
        }
    }
    Ok(want.len() as u64)
}

fn count(conn: &Conn, table: &str) -> Result<u64, CopyError> {
    conn.query_row(&format!("SELECT count(*) FROM {}", quote(table)), [], |r| {
        r.get(0)
    })
    .map_err(CopyError::db(format!("counting {table}")))
}

/// Every `stride`-th row of `t` in key order (the first, then every stride after it),
/// reading `exprs` (one per copied column).
fn sample(
    conn: &Conn,
    t: &Table,
    exprs: &[String],
    stride: u64,
) -> Result<Vec<Vec<Value>>, CopyError> {
    // NULLs last on both engines (SQLite sorts them first, PostgreSQL last); key columns
    // of a primary key are never NULL, so the usual case keeps the plain, indexed order.
    let order: Vec<String> = t
        .key
        .0
        .iter()
        .map(|&k| match t.key.1 {
            true => format!("{e} IS NULL, {e}", e = exprs[k]),
            false => exprs[k].clone(),
        })
        .collect();
    let inner: Vec<String> = exprs
        .iter()
        .enumerate()
        .map(|(i, e)| format!("{e} AS c{i}"))
        .collect();
    let outer: Vec<String> = (0..exprs.len()).map(|i| format!("c{i}")).collect();
    let sql = format!(
        "SELECT {} FROM (SELECT {}, row_number() OVER (ORDER BY {}) AS rl_n FROM {}) s \
         WHERE (rl_n - 1) % {stride} = 0 ORDER BY rl_n",
        outer.join(", "),
        inner.join(", "),
        order.join(", "),
        quote(&t.name)
    );
    let width = exprs.len();
    conn.prepare(&sql)
        .and_then(|mut s| {
            s.query_map([], |r| (0..width).map(|i| r.get::<_, Value>(i)).collect())?
                .collect()
        })
        .map_err(CopyError::db(format!("sampling {}", t.name)))
}

/// Equal as stored values: integers and reals by number (NaN equals NaN), text and
/// bytes by bytes.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Real(x), Value::Real(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::Integer(i), Value::Real(f)) | (Value::Real(f), Value::Integer(i)) => {
            *i as f64 == *f
        }
        (Value::Text(s), Value::Blob(b)) | (Value::Blob(b), Value::Text(s)) => {
            s.as_bytes() == b.as_slice()
        }
        _ => a == b,
    }
}

/// A value for a message, long ones cut.
fn show(v: &Value) -> String {
    let s = match v {
        Value::Null => "NULL".to_owned(),
        Value::Integer(i) => i.to_string(),
        Value::Real(f) => f.to_string(),
        Value::Text(s) => format!("{s:?}"),
        Value::Blob(b) => format!("{} bytes", b.len()),
    };
    match s.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::super::plan::{Database, Source};
    use super::*;

    /// `t (k TEXT PRIMARY KEY, v REAL)` with `rows` in a fresh in-memory database.
    fn db(rows: &[(&str, f64)]) -> Conn {
        let c = Conn::open_sqlite(":memory:").unwrap();
        c.execute_batch("CREATE TABLE t (k TEXT PRIMARY KEY, v REAL)")
            .unwrap();
        for (k, v) in rows {
            c.execute(
                "INSERT INTO t (k, v) VALUES (?1, ?2)",
                crate::db::params![k, v],
            )
            .unwrap();
        }
        c
    }

    fn table() -> Table {
        let col = |c: &str| (Source::Column(c.into()), c.to_owned());
        Table {
            name: "t".into(),
            database: Database::Store,
            columns: vec![col("k"), col("v")],
            overriding: false,
            key: (vec![0], false),
            sequences: vec![],
            rowid: None,
        }
    }

    #[test]
    fn a_faithful_copy_passes_and_samples_at_most_the_limit() {
        let keys: Vec<String> = (0..1000).map(|i| format!("k{i:04}")).collect();
        let rows: Vec<(&str, f64)> = keys.iter().map(|k| (k.as_str(), 0.5)).collect();
        let (a, b) = (db(&rows), db(&rows));
        let sampled = super::table(&a, &b, &table(), 1000).unwrap();
        assert_eq!(sampled, SAMPLE);
    }

    #[test]
    fn a_different_value_or_count_fails_naming_it() {
        let a = db(&[("a", 1.0), ("b", f64::INFINITY)]);
        let b = db(&[("a", 1.0), ("b", f64::NEG_INFINITY)]);
        let err = super::table(&a, &b, &table(), 2).unwrap_err().to_string();
        assert!(err.contains("t (key \"b\"): column v is inf"), "{err}");
        let c = db(&[("a", 1.0)]);
        let err = super::table(&a, &c, &table(), 2).unwrap_err().to_string();
        assert!(
            err.contains("2 rows in runlens.db, 2 copied, 1 in PostgreSQL"),
            "{err}"
        );
    }

    #[test]
    fn values_compare_as_stored() {
        assert!(same(&Value::Real(f64::NAN), &Value::Real(f64::NAN)));
        assert!(same(
            &Value::Real(f64::INFINITY),
            &Value::Real(f64::INFINITY)
        ));
        assert!(!same(
            &Value::Real(f64::INFINITY),
            &Value::Real(f64::NEG_INFINITY)
        ));
        assert!(same(&Value::Integer(3), &Value::Real(3.0)));
        assert!(same(
            &Value::Text("ab".into()),
            &Value::Blob(b"ab".to_vec())
        ));
        assert!(!same(&Value::Null, &Value::Integer(0)));
        assert!(!same(&Value::Text("a".into()), &Value::Text("b".into())));
    }

    #[test]
    fn long_values_are_cut() {
        assert_eq!(show(&Value::Text("x".repeat(200))).chars().count(), 81);
        assert_eq!(show(&Value::Blob(vec![0; 5])), "5 bytes");
    }
}
