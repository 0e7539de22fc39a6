//! Migration 9's data step: every row of `metric_blocks` (a block summary in 23 columns,
//! written by runlens up to schema 8) rewritten into `metric_summaries` as one value, in
//! the form `Block::encode` gives (`tracking/series/block.rs`, format 1). It runs in the
//! migration's transaction, before migration 10 drops the old table.
//!
//! The encoding is written out here rather than borrowed from `Block`: a migration is
//! history and must keep writing format 1 whatever later code does (a test checks that
//! the two agree: `tracking::series::tests::the_migrations_backfill_what_ingest_keeps`).

use crate::db::{params, params_from_iter, Conn, Row, Value};
use crate::Error;

/// Rows read a page (keyset pages: memory stays bounded however many rows there are).
const PAGE: i64 = 10_000;

/// Rows written a statement.
const ROWS_PER_INSERT: usize = 100;

/// The old table's columns after the key: `n`, the extents, then step, timestamp and value
/// of first, last, min and max, then step and timestamp of the first NaN, +inf and -inf.
const OLD_COLUMNS: &str = "n, lo_step, hi_step, lo_ts, hi_ts, \
    first_step, first_ts, first_value, last_step, last_ts, last_value, \
    min_step, min_ts, min_value, max_step, max_ts, max_value, \
    nan_step, nan_ts, pinf_step, pinf_ts, ninf_step, ninf_ts";

/// Copies every summary of `metric_blocks` into `metric_summaries`; returns how many.
pub(crate) fn repack_blocks(c: &Conn) -> Result<u64, Error> {
    let sql = format!(
        "SELECT series_id, level, block, {OLD_COLUMNS} FROM metric_blocks
          WHERE (series_id, level, block) > (?1, ?2, ?3)
          ORDER BY series_id, level, block LIMIT {PAGE}"
    );
    let mut after = (i64::MIN, i64::MIN, i64::MIN);
    let mut copied = 0;
    loop {
        let page: Vec<[Value; 4]> = c
            .prepare_cached(&sql)?
            .query_map(params![after.0, after.1, after.2], |r| {
                Ok([
                    Value::Integer(r.get(0)?),
                    Value::Integer(r.get(1)?),
                    Value::Integer(r.get(2)?),
                    Value::Blob(encode(r)?),
                ])
            })?
            .collect::<Result<_, _>>()?;
        let Some([Value::Integer(s), Value::Integer(l), Value::Integer(b), _]) = page.last() else {
            return Ok(copied);
        };
        after = (*s, *l, *b);
        copied += page.len() as u64;
        for rows in page.chunks(ROWS_PER_INSERT) {
            let values = vec!["(?, ?, ?, ?)"; rows.len()].join(", ");
            c.prepare_cached(&format!(
                "INSERT INTO metric_summaries (series_id, level, block, summary) VALUES {values}"
            ))?
            .execute(params_from_iter(rows.iter().flatten().cloned()))?;
        }
    }
}

/// The summary in the row's columns from 3 on, encoded (format 1, big-endian): a format
/// byte, a byte whose bits say which of first, last, min, max, NaN, +inf and -inf are
/// present, `n`, the step and time extents, then step, timestamp and value bits of each
/// present finite point and step and timestamp of each present non-finite one.
fn encode(r: &Row) -> crate::db::Result<Vec<u8>> {
    let int = |i: usize| r.get::<_, Option<i64>>(3 + i);
    let mut present = 0u8;
    let mut points = Vec::new();
    for (bit, i) in [5, 8, 11, 14].into_iter().enumerate() {
        let value: Option<f64> = r.get(3 + i + 2)?;
        if let (Some(step), Some(ts), Some(value)) = (int(i)?, int(i + 1)?, value) {
            present |= 1 << bit;
            points.extend(step.to_be_bytes());
            points.extend(ts.to_be_bytes());
            points.extend(value.to_bits().to_be_bytes());
        }
    }
    for (bit, i) in [17, 19, 21].into_iter().enumerate() {
        if let (Some(step), Some(ts)) = (int(i)?, int(i + 1)?) {
            present |= 1 << (4 + bit);
            points.extend(step.to_be_bytes());
            points.extend(ts.to_be_bytes());
        }
    }
    let mut out = vec![1, present];
    out.extend((int(0)?.unwrap_or(0).max(0) as u64).to_be_bytes());
    for i in 1..=4 {
        out.extend(int(i)?.unwrap_or(0).to_be_bytes());
    }
    out.extend(points);
    Ok(out)
}
