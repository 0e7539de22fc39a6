//! The PostgreSQL side around the rows: that it is empty, the Default experiment a fresh
//! open made, triggers, and the sequences behind the copied ids.

use crate::db::{Conn, OptionalExtension};

use super::catalog::{target_tables, BOOKKEEPING};
use super::plan::Table;
use super::{quote, CopyError};

/// Refuses a database that holds anything beyond what a fresh open writes: the
/// migrations' bookkeeping and the Default experiment `0`.
pub(super) fn ensure_empty(dst: &Conn) -> Result<(), CopyError> {
    let mut full = Vec::new();
    for table in target_tables(dst)? {
        if BOOKKEEPING.contains(&table.as_str()) {
            continue;
        }
        let only_fresh = if table == "experiments" {
            " WHERE experiment_id <> 0"
        } else {
            ""
        };
        let sql = format!(
            "SELECT EXISTS (SELECT 1 FROM {}{only_fresh})",
            quote(&table)
        );
        let rows: bool = dst
            .query_row(&sql, [], |r| r.get(0))
            .map_err(CopyError::db(format!("checking that {table} is empty")))?;
        if rows {
            full.push(table);
        }
    }
    match full.is_empty() {
        true => Ok(()),
        false => Err(CopyError::NotEmpty(full)),
    }
}

/// Removes the Default experiment a fresh open created: the source's own experiment `0`
/// (its name, times, tags and runs) takes its place.
pub(super) fn clear_fresh_rows(dst: &Conn) -> Result<(), CopyError> {
    dst.execute("DELETE FROM experiments WHERE experiment_id = 0", [])
        .map_err(CopyError::db("removing the fresh Default experiment"))?;
    Ok(())
}

/// Triggers that only check rows (they raise, and write nothing): a copy leaves them on.
/// `metric_points_series_check` stands for the foreign key of a point to its series
/// (migration 13).
const CHECKS: &[&str] = &["metric_points_series_check"];

/// Disables the triggers that would fire on the copy's INSERTs, as `table.trigger`.
///
/// The schema has none that derive rows (its four triggers on `users` and `groups` fire
/// AFTER DELETE and remove the grants of a deleted principal; the INSERT triggers of
/// [`CHECKS`] only check, and stay on: the copied points are checked as the foreign key
/// they stand for would check them), and the derived tables are written by the
/// application, not by triggers. A trigger added later that derives rows
/// on INSERT would derive them a second time on top of the copied ones, so the copy turns
/// it off (`ALTER TABLE ... DISABLE TRIGGER`, inside the transaction: the owner may) and
/// [`enable_triggers`] turns it back on before the commit.
pub(super) fn disable_insert_triggers(
    dst: &Conn,
    tables: &[Table],
) -> Result<Vec<String>, CopyError> {
    let mut disabled = Vec::new();
    for t in tables {
        // tgtype bit 2: fires on INSERT. Internal triggers enforce foreign keys.
        let names: Vec<String> = dst
            .prepare(
                "SELECT tgname::text FROM pg_trigger
                  WHERE tgrelid = to_regclass(quote_ident(?1)) AND NOT tgisinternal
                    AND (tgtype::int & 4) <> 0 AND tgenabled <> 'D'
                  ORDER BY tgname",
            )
            .and_then(|mut s| s.query_map([&t.name], |r| r.get(0))?.collect())
            .map_err(CopyError::db(format!("reading the triggers of {}", t.name)))?;
        for name in names.into_iter().filter(|n| !CHECKS.contains(&n.as_str())) {
            alter_trigger(dst, &t.name, &name, "DISABLE")?;
            disabled.push(format!("{}.{name}", t.name));
        }
    }
    Ok(disabled)
}

/// Enables again what [`disable_insert_triggers`] disabled.
pub(super) fn enable_triggers(dst: &Conn, disabled: &[String]) -> Result<(), CopyError> {
    for qualified in disabled {
        if let Some((table, name)) = qualified.split_once('.') {
            alter_trigger(dst, table, name, "ENABLE")?;
        }
    }
    Ok(())
}

fn alter_trigger(dst: &Conn, table: &str, name: &str, what: &str) -> Result<(), CopyError> {
    let sql = format!(
        "ALTER TABLE {} {what} TRIGGER {}",
        quote(table),
        quote(name)
    );
    dst.execute_batch(&sql)
        .map_err(CopyError::db(format!("{what} TRIGGER {name} on {table}")))
}

/// Moves every sequence behind a copied column past the highest copied id and past
/// SQLite's AUTOINCREMENT high-water mark (`sqlite_sequence`: `log_chunks` ids never go
/// back, even when the newest chunks were purged), so the next insert gets a fresh id.
/// Returns `table.column` and the last id handed out, for each sequence moved.
pub(super) fn advance_sequences<'a>(
    dst: &Conn,
    tables: &[Table],
    source: impl Fn(&Table) -> &'a Conn,
) -> Result<Vec<(String, i64)>, CopyError> {
    let mut moved = Vec::new();
    for t in tables {
        for (i, sequence) in &t.sequences {
            let column = &t.columns[*i].1;
            let max: Option<i64> = dst
                .query_row(
                    &format!("SELECT max({}) FROM {}", quote(column), quote(&t.name)),
                    [],
                    |r| r.get(0),
                )
                .map_err(CopyError::db(format!("reading the highest {}", t.name)))?;
            let mark = match t.rowid == Some(*i) {
                true => autoincrement_mark(source(t), &t.name)?,
                false => None,
            };
            let last = max.max(mark);
            // A sequence starts at 1: with no id at or above it there is nothing to pass.
            let Some(last) = last.filter(|&l| l >= 1) else {
                continue;
            };
            dst.query_row(
                "SELECT setval(CAST(?1 AS TEXT)::regclass, ?2, true)",
                crate::db::params![sequence, last],
                |r| r.get::<_, i64>(0),
            )
            .map_err(CopyError::db(format!("setting {sequence}")))?;
            moved.push((format!("{}.{column}", t.name), last));
        }
    }
    Ok(moved)
}

/// The highest id SQLite ever gave `table` (AUTOINCREMENT tables only).
fn autoincrement_mark(src: &Conn, table: &str) -> Result<Option<i64>, CopyError> {
    let context = || format!("reading the AUTOINCREMENT mark of {table}");
    let has_sequence: bool = src
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence')",
            [],
            |r| r.get(0),
        )
        .map_err(CopyError::db(context()))?;
    if !has_sequence {
        return Ok(None);
    }
    src.query_row(
        "SELECT seq FROM sqlite_sequence WHERE name = ?1",
        [table],
        |r| r.get(0),
    )
    .optional()
    .map_err(CopyError::db(context()))
}
