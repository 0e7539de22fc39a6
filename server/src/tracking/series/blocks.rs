//! Rows of `metric_summaries` to and from [`Block`]s.

use std::collections::{BTreeMap, HashMap};

use crate::db::sql::{json_array, json_int_list};
use crate::db::{params, params_from_iter, Conn, Engine, OptionalExtension, Row, Stmt, Value};

use super::axis::Axis;
use super::block::{top_level, Block, MIN_LEVEL};
use crate::Error;

/// The top level of series `sid` ([`top_level`] of its stored steps, from the ends of its
/// index; the lowest level when it has no points): a reader starts at or below it, since no
/// summary exists above. Levels only rise as points are added, and a write that raises it
/// writes the new levels in the same transaction as its points, so a reader that asks first
/// and reads the summaries after finds every level up to the answer.
pub(crate) fn stored_top(c: &Conn, sid: i64) -> Result<u32, Error> {
    Ok(Axis::Step
        .stored_extent(c, sid)?
        .map_or(MIN_LEVEL, top_level))
}

/// The columns after `(series_id, level, block)`, in [`from_row`]'s order: the summary
/// in [`Block::encode`]'s form.
pub(super) const COLUMNS: &str = "summary";

/// Values in a row: the key's three and the summary.
const ROW_VALUES: usize = 4;

/// What an upsert sets from the row it would have inserted.
const SET: &str = "summary = excluded.summary";

/// Reads a series' blocks by level and range with one prepared statement (a chart reads
/// many small ranges).
pub(crate) struct Reader<'c> {
    stmt: Stmt<'c>,
}

impl<'c> Reader<'c> {
    /// Prepares the statement.
    pub(crate) fn new(c: &'c Conn) -> Result<Self, Error> {
        let sql = format!(
            "SELECT block, {COLUMNS} FROM metric_summaries
              WHERE series_id = ?1 AND level = ?2 AND block BETWEEN ?3 AND ?4 ORDER BY block"
        );
        Ok(Reader {
            stmt: c.prepare_cached(&sql)?,
        })
    }

    /// The blocks of series `sid` at `level` numbered `from..=to` that exist, in order.
    pub(crate) fn read(
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

/// Those of the blocks `wanted` (`(series, level, block)`) that exist, with one statement
/// whatever the number of series: each series' level is read as one range, from its first
/// to its last wanted block (a level whose wanted blocks lie far apart is read block by
/// block instead).
pub(crate) fn read_wanted(
    c: &Conn,
    wanted: &[(i64, u32, i64)],
) -> Result<HashMap<(i64, u32, i64), Block>, Error> {
    let mut found = HashMap::new();
    if wanted.is_empty() {
        return Ok(found);
    }
    // (series, level) -> (first, last, count) of its wanted blocks.
    let mut spans: BTreeMap<(i64, u32), (i64, i64, i64)> = BTreeMap::new();
    for &(sid, level, block) in wanted {
        spans
            .entry((sid, level))
            .and_modify(|r| *r = (r.0.min(block), r.1.max(block), r.2 + 1))
            .or_insert((block, block, 1));
    }
    let mut ranges: Vec<(i64, u32, i64, i64)> = Vec::new();
    for ((sid, level), (first, last, count)) in spans {
        if last.saturating_sub(first) < 2 * count {
            ranges.push((sid, level, first, last));
            continue;
        }
        for &(s, k, block) in wanted {
            if (s, k) == (sid, level) {
                if let Some(b) = read_one(c, sid, level, block)? {
                    found.insert((sid, level, block), b);
                }
            }
        }
    }
    if ranges.is_empty() {
        return Ok(found);
    }
    let d = c.engine();
    let sql = match d {
        // Each range one index range scan: the series, level and ends of the range come
        // from the list's element ([sid, level, first, last]).
        Engine::Sqlite => format!(
            "SELECT s.series_id, s.level, s.block, s.{COLUMNS} FROM json_each(?1) AS r
               CROSS JOIN metric_summaries AS s
              WHERE s.series_id = r.value ->> 0 AND s.level = r.value ->> 1
                AND s.block BETWEEN r.value ->> 2 AND r.value ->> 3"
        ),
        // A lateral join with a LIMIT: one index range scan a range in the generic plan
        // too (see `cover::read_children`).
        Engine::Postgres => format!(
            "SELECT r.sid, r.level, b.block, b.{COLUMNS}
               FROM unnest(ARRAY{}, ARRAY{}, ARRAY{}, ARRAY{}) AS r(sid, level, lo, hi)
               CROSS JOIN LATERAL (
                 SELECT block, {COLUMNS} FROM metric_summaries
                  WHERE series_id = r.sid AND level = r.level AND block BETWEEN r.lo AND r.hi
                  LIMIT r.hi - r.lo + 1
               ) AS b",
            json_int_list(d, "?1"),
            json_int_list(d, "?2"),
            json_int_list(d, "?3"),
            json_int_list(d, "?4")
        ),
    };
    let args: Vec<String> = match d {
        Engine::Sqlite => {
            let quads: Vec<[i64; 4]> = ranges
                .iter()
                .map(|&(sid, k, lo, hi)| [sid, i64::from(k), lo, hi])
                .collect();
            vec![json_array(&quads)?]
        }
        Engine::Postgres => vec![
            json_array(&ranges.iter().map(|r| r.0).collect::<Vec<_>>())?,
            json_array(&ranges.iter().map(|r| r.1).collect::<Vec<_>>())?,
            json_array(&ranges.iter().map(|r| r.2).collect::<Vec<_>>())?,
            json_array(&ranges.iter().map(|r| r.3).collect::<Vec<_>>())?,
        ],
    };
    let mut stmt = c.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(args), |r| {
        Ok((
            (
                r.get::<_, i64>(0)?,
                r.get::<_, u32>(1)?,
                r.get::<_, i64>(2)?,
            ),
            from_row(r, 3)?,
        ))
    })?;
    for row in rows {
        let (key, b) = row?;
        found.insert(key, b);
    }
    Ok(found)
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

/// Writes the summaries `(series, level, block, summary)`, each inserted or replacing the
/// stored one, several rows a statement.
pub(crate) fn write_all(c: &Conn, rows: &[(i64, u32, i64, Block)]) -> Result<(), Error> {
    let mut rest = rows;
    while !rest.is_empty() {
        // Statements of 64, 16, 4 or 1 rows: few distinct statements for the cache.
        let n = [64, 16, 4, 1]
            .into_iter()
            .find(|n| *n <= rest.len())
            .unwrap_or(1);
        let (now, later) = rest.split_at(n);
        let mut args: Vec<Value> = Vec::with_capacity(n * ROW_VALUES);
        for (sid, level, block, b) in now {
            push_row(&mut args, *sid, *level, *block, b);
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
