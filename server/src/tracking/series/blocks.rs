//! Rows of `metric_blocks` to and from [`Block`]s.

use api_types as json;
use rusqlite::{params, Connection, OptionalExtension, Row};

use super::block::Block;
use crate::Error;

/// The columns after `(series_id, level, block)`, in [`from_row`]'s order.
const COLUMNS: &str = "n, lo_step, hi_step, lo_ts, hi_ts, \
    first_step, first_ts, first_value, last_step, last_ts, last_value, \
    min_step, min_ts, min_value, max_step, max_ts, max_value, \
    nan_step, nan_ts, pinf_step, pinf_ts, ninf_step, ninf_ts";

/// The blocks of series `sid` at `level` numbered `from..=to` that exist, in order.
pub fn read(
    c: &Connection,
    sid: i64,
    level: u32,
    from: i64,
    to: i64,
) -> Result<Vec<(i64, Block)>, Error> {
    let sql = format!(
        "SELECT block, {COLUMNS} FROM metric_blocks
          WHERE series_id = ?1 AND level = ?2 AND block BETWEEN ?3 AND ?4 ORDER BY block"
    );
    let mut stmt = c.prepare_cached(&sql)?;
    let rows = stmt.query_map(params![sid, level, from, to], |r| {
        Ok((r.get(0)?, from_row(r, 1)?))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One block, when it exists.
pub fn read_one(c: &Connection, sid: i64, level: u32, block: i64) -> Result<Option<Block>, Error> {
    let sql = format!(
        "SELECT {COLUMNS} FROM metric_blocks WHERE series_id = ?1 AND level = ?2 AND block = ?3"
    );
    Ok(c.prepare_cached(&sql)?
        .query_row(params![sid, level, block], |r| from_row(r, 0))
        .optional()?)
}

/// Writes a block's summary (inserted, or replacing the stored one).
pub fn write(c: &Connection, sid: i64, level: u32, block: i64, b: &Block) -> Result<(), Error> {
    let sql = format!(
        "INSERT INTO metric_blocks (series_id, level, block, {COLUMNS})
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                 ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)
         ON CONFLICT (series_id, level, block) DO UPDATE SET
           n = excluded.n, lo_step = excluded.lo_step, hi_step = excluded.hi_step,
           lo_ts = excluded.lo_ts, hi_ts = excluded.hi_ts,
           first_step = excluded.first_step, first_ts = excluded.first_ts,
           first_value = excluded.first_value, last_step = excluded.last_step,
           last_ts = excluded.last_ts, last_value = excluded.last_value,
           min_step = excluded.min_step, min_ts = excluded.min_ts,
           min_value = excluded.min_value, max_step = excluded.max_step,
           max_ts = excluded.max_ts, max_value = excluded.max_value,
           nan_step = excluded.nan_step, nan_ts = excluded.nan_ts,
           pinf_step = excluded.pinf_step, pinf_ts = excluded.pinf_ts,
           ninf_step = excluded.ninf_step, ninf_ts = excluded.ninf_ts"
    );
    let full = |p: Option<json::SeriesPoint>| {
        (
            p.map(|p| p.step),
            p.map(|p| p.timestamp),
            p.map(|p| p.value.0),
        )
    };
    let at = |p: Option<json::SeriesPoint>| (p.map(|p| p.step), p.map(|p| p.timestamp));
    let (fs, ft, fv) = full(b.first);
    let (ls, lt, lv) = full(b.last);
    let (mns, mnt, mnv) = full(b.min);
    let (mxs, mxt, mxv) = full(b.max);
    let (ns, nt) = at(b.nan);
    let (ps, pt) = at(b.pinf);
    let (qs, qt) = at(b.ninf);
    let n = i64::try_from(b.n).unwrap_or(i64::MAX);
    c.prepare_cached(&sql)?.execute(params![
        sid, level, block, n, b.steps.0, b.steps.1, b.times.0, b.times.1, fs, ft, fv, ls, lt, lv,
        mns, mnt, mnv, mxs, mxt, mxv, ns, nt, ps, pt, qs, qt
    ])?;
    Ok(())
}

/// A [`Block`] from the row's columns from `at` on, in [`COLUMNS`] order.
fn from_row(r: &Row, at: usize) -> rusqlite::Result<Block> {
    let full = |i: usize| -> rusqlite::Result<Option<json::SeriesPoint>> {
        let step: Option<i64> = r.get(at + i)?;
        let timestamp: Option<i64> = r.get(at + i + 1)?;
        let value: Option<f64> = r.get(at + i + 2)?;
        Ok(match (step, timestamp, value) {
            (Some(step), Some(timestamp), Some(value)) => Some(point(step, timestamp, value)),
            _ => None,
        })
    };
    let odd = |i: usize, value: f64| -> rusqlite::Result<Option<json::SeriesPoint>> {
        let step: Option<i64> = r.get(at + i)?;
        let timestamp: Option<i64> = r.get(at + i + 1)?;
        Ok(step.zip(timestamp).map(|(s, t)| point(s, t, value)))
    };
    Ok(Block {
        n: r.get::<_, i64>(at)?.max(0) as u64,
        steps: (r.get(at + 1)?, r.get(at + 2)?),
        times: (r.get(at + 3)?, r.get(at + 4)?),
        first: full(5)?,
        last: full(8)?,
        min: full(11)?,
        max: full(14)?,
        nan: odd(17, f64::NAN)?,
        pinf: odd(19, f64::INFINITY)?,
        ninf: odd(21, f64::NEG_INFINITY)?,
    })
}

fn point(step: i64, timestamp: i64, value: f64) -> json::SeriesPoint {
    json::SeriesPoint {
        step,
        timestamp,
        value: json::F64(value),
    }
}
