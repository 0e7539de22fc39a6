//! What to copy: every table of the two SQLite files (from `sqlite_master`) matched with
//! its PostgreSQL counterpart column by column, in foreign-key order.

use std::collections::{BTreeMap, BTreeSet};

use crate::db::Conn;

use super::catalog::{
    source_columns, source_parents, source_tables, target_columns, target_foreign_keys,
    target_tables, BOOKKEEPING,
};
use super::{quote, CopyError};

/// The SQLite file a table lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Database {
    /// `runlens.db`, the store.
    Store,
    /// `logs.db`, the job runs' log lines.
    Logs,
}

impl std::fmt::Display for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Database::Store => "runlens.db",
            Database::Logs => "logs.db",
        })
    }
}

/// Where a copied column's values come from in SQLite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// A column of the same name.
    Column(String),
    /// The implicit rowid, for a PostgreSQL-only identity column that stands in for it
    /// (`run_models.seq`: the order rows were inserted in).
    Rowid,
}

impl Source {
    /// The expression that reads it.
    pub(super) fn expr(&self) -> String {
        match self {
            Source::Column(c) => quote(c),
            Source::Rowid => "rowid".to_owned(),
        }
    }
}

/// One table to copy.
#[derive(Clone, Debug)]
pub(super) struct Table {
    /// The name, the same on both sides.
    pub name: String,
    /// The SQLite file it comes from.
    pub database: Database,
    /// The copied columns: where each comes from, and its PostgreSQL name.
    pub columns: Vec<(Source, String)>,
    /// An INSERT must say `OVERRIDING SYSTEM VALUE` (it writes a GENERATED ALWAYS column).
    pub overriding: bool,
    /// The columns (indexes into `columns`) that order the rows the same way on both
    /// sides: the primary key, else the rowid, else all of them; and whether they may be
    /// NULL (only the last case).
    pub key: (Vec<usize>, bool),
    /// Columns (indexes) backed by a sequence, with the sequence's name.
    pub sequences: Vec<(usize, String)>,
    /// The column (index) holding SQLite's rowid, whose AUTOINCREMENT high-water mark
    /// (`sqlite_sequence`) the sequence must also pass.
    pub rowid: Option<usize>,
}

/// The tables in copying order, and the PostgreSQL tables that have no source.
pub(super) struct Plan {
    pub tables: Vec<Table>,
    pub target_only: Vec<String>,
}

/// Matches the tables of `main` and `logs` with those of `dst` and orders them.
pub(super) fn plan(main: &Conn, logs: &Conn, dst: &Conn) -> Result<Plan, CopyError> {
    let mut tables = BTreeMap::new();
    let mut parents: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (db, conn) in [(Database::Store, main), (Database::Logs, logs)] {
        for name in source_tables(conn)? {
            let table = match_table(conn, dst, db, &name)?;
            if let Some(other) = tables.insert(name.clone(), table) {
                return Err(CopyError::Schema(format!(
                    "table {name} is in both {} and {db}",
                    other.database
                )));
            }
            parents.insert(name.clone(), source_parents(conn, &name)?);
        }
    }
    for (child, parent) in target_foreign_keys(dst)? {
        if let Some(p) = parents.get_mut(&child) {
            p.insert(parent);
        }
    }
    let target_only = target_tables(dst)?
        .into_iter()
        .filter(|t| !tables.contains_key(t) && !BOOKKEEPING.contains(&t.as_str()))
        .collect();
    let order = foreign_key_order(parents)?;
    let tables = order
        .into_iter()
        .filter_map(|name| tables.remove(&name))
        .collect();
    Ok(Plan {
        tables,
        target_only,
    })
}

/// Parents before children (Kahn's algorithm; ties by name, so the order is stable).
fn foreign_key_order(
    mut parents: BTreeMap<String, BTreeSet<String>>,
) -> Result<Vec<String>, CopyError> {
    let known: BTreeSet<String> = parents.keys().cloned().collect();
    for p in parents.values_mut() {
        p.retain(|name| known.contains(name));
    }
    let mut order = Vec::with_capacity(parents.len());
    while !parents.is_empty() {
        let ready: Vec<String> = parents
            .iter()
            .filter(|(_, p)| p.is_empty())
            .map(|(name, _)| name.clone())
            .collect();
        if ready.is_empty() {
            let stuck: Vec<&str> = parents.keys().map(String::as_str).collect();
            return Err(CopyError::Schema(format!(
                "the foreign keys among {} form a cycle",
                stuck.join(", ")
            )));
        }
        for name in ready {
            parents.remove(&name);
            for p in parents.values_mut() {
                p.remove(&name);
            }
            order.push(name);
        }
    }
    Ok(order)
}

/// Matches `name`'s SQLite columns with its PostgreSQL columns. Every SQLite column must
/// exist there; a PostgreSQL-only column must be an identity or have a default.
fn match_table(src: &Conn, dst: &Conn, db: Database, name: &str) -> Result<Table, CopyError> {
    let source = source_columns(src, name)?;
    let target = target_columns(dst, name)?;
    if target.is_empty() {
        return Err(CopyError::Schema(format!(
            "table {name} of {db} has no counterpart in the PostgreSQL database; \
             nothing was copied (is this runlens older than the data dir?)"
        )));
    }
    let mut columns = Vec::new();
    for (col, _, _) in &source {
        if !target.iter().any(|t| &t.name == col) {
            return Err(CopyError::Schema(format!(
                "column {name}.{col} of {db} has no counterpart in the PostgreSQL database"
            )));
        }
        columns.push((Source::Column(col.clone()), col.clone()));
    }
    let integer_key = match source.iter().filter(|c| c.2 > 0).collect::<Vec<_>>()[..] {
        [(col, ty, _)] if ty.eq_ignore_ascii_case("INTEGER") => Some(col.clone()),
        _ => None,
    };
    let has_rowid = src
        .prepare(&format!("SELECT rowid FROM {}", quote(name)))
        .is_ok();
    let mut rowid = integer_key
        .filter(|_| has_rowid)
        .and_then(|k| columns.iter().position(|(_, c)| *c == k));
    for t in target
        .iter()
        .filter(|t| !source.iter().any(|s| s.0 == t.name))
    {
        if !t.identity.is_empty() && has_rowid && rowid.is_none() {
            rowid = Some(columns.len());
            columns.push((Source::Rowid, t.name.clone()));
        } else if t.required && t.identity.is_empty() {
            return Err(CopyError::Schema(format!(
                "column {name}.{} of the PostgreSQL database has no value in {db} and no default",
                t.name
            )));
        }
    }
    let mut key: Vec<(i64, usize)> = source
        .iter()
        .enumerate()
        .filter(|(_, c)| c.2 > 0)
        .map(|(i, c)| (c.2, i))
        .collect();
    key.sort_unstable();
    let key = match (key.is_empty(), rowid) {
        (false, _) => (key.into_iter().map(|(_, i)| i).collect(), false),
        (true, Some(r)) => (vec![r], false),
        (true, None) => ((0..columns.len()).collect(), true),
    };
    let find = |n: &str| target.iter().find(|t| t.name == n);
    Ok(Table {
        name: name.to_owned(),
        database: db,
        overriding: columns
            .iter()
            .any(|(_, c)| find(c).is_some_and(|t| t.identity == "a")),
        sequences: columns
            .iter()
            .enumerate()
            .filter_map(|(i, (_, c))| Some((i, find(c)?.sequence.clone()?)))
            .collect(),
        columns,
        key,
        rowid,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(&str, &[&str])]) -> BTreeMap<String, BTreeSet<String>> {
        edges
            .iter()
            .map(|(c, ps)| (c.to_string(), ps.iter().map(|p| p.to_string()).collect()))
            .collect()
    }

    #[test]
    fn parents_come_before_children() {
        let order = foreign_key_order(graph(&[
            ("tags", &["runs"]),
            ("runs", &["experiments"]),
            ("experiments", &[]),
            ("input_tags", &["dataset_inputs"]),
            ("dataset_inputs", &["runs", "datasets"]),
            ("datasets", &["experiments", "elsewhere"]),
        ]))
        .unwrap();
        let at = |t: &str| order.iter().position(|n| n == t).unwrap();
        assert_eq!(order.len(), 6);
        assert!(at("experiments") < at("runs") && at("runs") < at("tags"));
        assert!(at("datasets") < at("dataset_inputs") && at("runs") < at("dataset_inputs"));
        assert!(at("dataset_inputs") < at("input_tags"));
    }

    #[test]
    fn a_cycle_is_refused() {
        let err = foreign_key_order(graph(&[("a", &["b"]), ("b", &["a"]), ("c", &[])]));
        assert!(matches!(err, Err(CopyError::Schema(m)) if m.contains("a, b")));
    }
}
