//! Rows of `metric_summaries` to and from [`Block`]s.

use std::collections::HashMap;

use crate::db::Value;
use crate::db::{params, params_from_iter, Conn, OptionalExtension, Row, Stmt};

use super::block::{Block, LEVELS};
use crate::Error;

/// The columns after `(series_id, level, block)`, in [`from_row`]'s order: the summary
/// in [`Block::encode`]'s form.
pub(super) const COLUMNS: &str = "summary";

/// Values in a row: the key's three and the summary.
const ROW_VALUES: usize = 4;

/// What an upsert sets from the row it would have inserted.
const SET: &str = "summary = excluded.summary";

/// Reads a series' blocks by level and range with one prepared statement (a chart reads
/// many small ranges).
pub struct Reader<'c> {
    stmt: Stmt<'c>,
}

impl<'c> Reader<'c> {
    /// Prepares the statement.
    pub fn new(c: &'c Conn) -> Result<Self, Error> {
        let sql = format!(
            "SELECT block, {COLUMNS} FROM metric_summaries
              WHERE series_id = ?1 AND level = ?2 AND block BETWEEN ?3 AND ?4 ORDER BY block"
        );
        Ok(Reader {
            stmt: c.prepare_cached(&sql)?,
        })
    }

    /// The blocks of series `sid` at `level` numbered `from..=to` that exist, in order.
    pub fn read(
        &mut self,
        sid: i64,
        level: u32,
        from: i64,
        to: i64,
    ) -> Result<Vec<(i64, Block)>, Error> {
        let rows = self.stmt.query_map(params![sid, level, from, to], |r| {
            Ok((r.get(0)?, from_row(r, 1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// Those of the blocks `wanted` (`(level, block)`) of series `sid` that exist, with one
/// statement for every level (each level's range from its first to its last wanted block;
/// a level whose wanted blocks lie far apart is read block by block instead).
pub fn read_wanted(
    c: &Conn,
    sid: i64,
    wanted: &[(u32, i64)],
) -> Result<HashMap<(u32, i64), Block>, Error> {
    let mut found = HashMap::new();
    if wanted.is_empty() {
        return Ok(found);
    }
    // Per level: first, last and how many wanted.
    let mut ranges: Vec<(i64, i64, i64)> = vec![(0, 0, 0); LEVELS.len()];
    for (level, block) in wanted {
        let Some(i) = LEVELS.iter().position(|k| k == level) else {
            continue;
        };
        let r = &mut ranges[i];
        *r = if r.2 == 0 {
            (*block, *block, 1)
        } else {
            (r.0.min(*block), r.1.max(*block), r.2 + 1)
        };
    }
    let mut args: Vec<Value> = vec![Value::Integer(sid)];
    for (i, &(first, last, count)) in ranges.iter().enumerate() {
        let dense = count > 0 && last.saturating_sub(first) < 2 * count;
        if count > 0 && !dense {
            for (level, block) in wanted.iter().filter(|(k, _)| *k == LEVELS[i]) {
                if let Some(b) = read_one(c, sid, *level, *block)? {
                    found.insert((*level, *block), b);
                }
            }
        }
        // An empty range for a level not read here.
        let (first, last) = if dense { (first, last) } else { (1, 0) };
        args.extend([Value::Integer(first), Value::Integer(last)]);
    }
    let mut stmt = c.prepare_cached(&union_sql())?;
    let rows = stmt.query_map(params_from_iter(args), |r| {
        Ok(((r.get::<_, u32>(0)?, r.get::<_, i64>(1)?), from_row(r, 2)?))
    })?;
    for row in rows {
        let (key, b) = row?;
        found.insert(key, b);
    }
    Ok(found)
}

/// One `SELECT level, block, COLUMNS` per level, its range in parameters from `?2` on.
fn union_sql() -> String {
    LEVELS
        .iter()
        .enumerate()
        .map(|(i, k)| {
            format!(
                "SELECT level, block, {COLUMNS} FROM metric_summaries
                  WHERE series_id = ?1 AND level = {k} AND block BETWEEN ?{} AND ?{}",
                2 + 2 * i,
                3 + 2 * i
            )
        })
        .collect::<Vec<_>>()
        .join(" UNION ALL ")
}

/// One block, when it exists.
fn read_one(c: &Conn, sid: i64, level: u32, block: i64) -> Result<Option<Block>, Error> {
    let sql = format!(
        "SELECT {COLUMNS} FROM metric_summaries WHERE series_id = ?1 AND level = ?2 AND block = ?3"
    );
    Ok(c.prepare_cached(&sql)?
        .query_row(params![sid, level, block], |r| from_row(r, 0))
        .optional()?)
}

/// Writes the summaries `(level, block, summary)` of series `sid`, each inserted or
/// replacing the stored one, several rows a statement.
pub fn write_all(c: &Conn, sid: i64, rows: &[(u32, i64, Block)]) -> Result<(), Error> {
    let mut rest = rows;
    while !rest.is_empty() {
        // Statements of 16, 4 or 1 rows: few distinct statements for the cache.
        let n = [16, 4, 1]
            .into_iter()
            .find(|n| *n <= rest.len())
            .unwrap_or(1);
        let (now, later) = rest.split_at(n);
        let mut args: Vec<Value> = Vec::with_capacity(n * ROW_VALUES);
        for (level, block, b) in now {
            push_row(&mut args, sid, *level, *block, b);
        }
        c.prepare_cached(&write_sql(n))?
            .execute(params_from_iter(args))?;
        rest = later;
    }
    Ok(())
}

/// The upsert of `rows` rows.
fn write_sql(rows: usize) -> String {
    let values: Vec<String> = (0..rows)
        .map(|r| {
            let p: Vec<String> = (1..=ROW_VALUES)
                .map(|i| format!("?{}", r * ROW_VALUES + i))
                .collect();
            format!("({})", p.join(", "))
        })
        .collect();
    format!(
        "INSERT INTO metric_summaries (series_id, level, block, {COLUMNS}) VALUES {}
         ON CONFLICT (series_id, level, block) DO UPDATE SET {SET}",
        values.join(", ")
    )
}

/// A row's values, in the order of the key and [`COLUMNS`].
fn push_row(args: &mut Vec<Value>, sid: i64, level: u32, block: i64, b: &Block) {
    args.extend([
        Value::Integer(sid),
        Value::Integer(i64::from(level)),
        Value::Integer(block),
        Value::Blob(b.encode()),
    ]);
}

/// A [`Block`] from the row's column `at` ([`COLUMNS`]).
pub(super) fn from_row(r: &Row, at: usize) -> crate::db::Result<Block> {
    let bytes: &[u8] = r.get_ref(at)?.as_blob()?;
    Block::decode(bytes).map_err(|e| crate::db::DbError::column(at, e))
}
