//! The rows of one table, read from SQLite and written to PostgreSQL a few hundred per
//! INSERT (one round trip each), with explicit column lists.

use crate::db::{Conn, Value};

use super::plan::Table;
use super::{quote, CopyError};

/// Rows per INSERT: enough to make round trips cheap, few enough to keep statements small.
const ROWS_PER_INSERT: usize = 500;
/// PostgreSQL's limit on the parameters of one statement.
const MAX_PARAMS: usize = 65_535;
/// Bytes of values per INSERT before it is sent early (log chunks are blobs).
const MAX_BYTES: usize = 8 << 20;

/// Copies every row of `t` from `src` to `dst`; returns how many.
pub(super) fn copy_table(src: &Conn, dst: &Conn, t: &Table) -> Result<u64, CopyError> {
    let width = t.columns.len();
    let per_insert = (MAX_PARAMS / width).clamp(1, ROWS_PER_INSERT);
    let select = format!(
        "SELECT {} FROM {}",
        t.columns
            .iter()
            .map(|(s, _)| s.expr())
            .collect::<Vec<_>>()
            .join(", "),
        quote(&t.name)
    );
    let reading = || format!("reading {} from {}", t.name, t.database);
    let mut read = src.prepare(&select).map_err(CopyError::db(reading()))?;
    let mut rows = read.query([]).map_err(CopyError::db(reading()))?;
    let mut full = dst
        .prepare(&insert_sql(t, per_insert))
        .map_err(CopyError::db(format!(
            "preparing the INSERT into {}",
            t.name
        )))?;
    let mut batch: Vec<Value> = Vec::with_capacity(per_insert * width);
    let (mut bytes, mut copied) = (0, 0u64);
    while let Some(row) = rows.next().map_err(CopyError::db(reading()))? {
        for i in 0..width {
            let v = row.get_ref(i).map_err(CopyError::db(reading()))?;
            let v = v.to_owned_value();
            bytes += size(&v);
            batch.push(v);
        }
        let n = batch.len() / width;
        if n == per_insert || bytes >= MAX_BYTES {
            match n == per_insert {
                true => full.execute(batch.as_slice()),
                false => dst.execute(&insert_sql(t, n), batch.as_slice()),
            }
            .map_err(CopyError::db(format!("copying {}", t.name)))?;
            copied += n as u64;
            batch.clear();
            bytes = 0;
        }
    }
    if !batch.is_empty() {
        let n = batch.len() / width;
        dst.execute(&insert_sql(t, n), batch.as_slice())
            .map_err(CopyError::db(format!("copying {}", t.name)))?;
        copied += n as u64;
    }
    Ok(copied)
}

/// `INSERT INTO t (a, b) [OVERRIDING SYSTEM VALUE] VALUES (?, ?), (?, ?)...` for `rows`
/// rows.
fn insert_sql(t: &Table, rows: usize) -> String {
    let names: Vec<String> = t.columns.iter().map(|(_, c)| quote(c)).collect();
    let tuple = format!("({})", vec!["?"; names.len()].join(", "));
    let overriding = match t.overriding {
        true => " OVERRIDING SYSTEM VALUE",
        false => "",
    };
    format!(
        "INSERT INTO {} ({}){overriding} VALUES {}",
        quote(&t.name),
        names.join(", "),
        vec![tuple.as_str(); rows].join(", ")
    )
}

/// About how many bytes a value takes in a statement.
fn size(v: &Value) -> usize {
    match v {
        Value::Text(s) => s.len(),
        Value::Blob(b) => b.len(),
        _ => 8,
    }
}

#[cfg(test)]
mod tests {
    use super::super::plan::{Database, Source};
    use super::*;

    #[test]
    fn inserts_name_their_columns_and_override_identities() {
        let t = Table {
            name: "run_models".into(),
            database: Database::Store,
            columns: vec![
                (Source::Column("run_uuid".into()), "run_uuid".into()),
                (Source::Rowid, "seq".into()),
            ],
            overriding: true,
            key: (vec![1], false),
            sequences: vec![],
            rowid: Some(1),
        };
        assert_eq!(
            insert_sql(&t, 2),
            "INSERT INTO \"run_models\" (\"run_uuid\", \"seq\") OVERRIDING SYSTEM VALUE \
             VALUES (?, ?), (?, ?)"
        );
    }
}
