//! The points of each lowest-level block, packed in one row (`metric_chunks`), so that a
//! chart reads the block straddling a pixel-column boundary as one row instead of up to
//! 64 (measured on PostgreSQL at 10,000,000 points: those reads were half a chart's
//! statement time, about 50,000 rows).
//!
//! A chunk holds every point of block `step >> MIN_LEVEL` of its series, in reading
//! order, or does not exist: blocks holding more than [`MAX_POINTS`] (a step re-logged
//! many times), and blocks that had points before chunks were kept, have none, and a
//! chart reads their points from `metric_points` as before. A reader takes a chunk only
//! when it holds as many points as the block's summary counts.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::db::{params, params_from_iter, Conn, Dialect, Value};
use crate::store::sql::{json_array, json_int_list};
use crate::tracking::model::to_stored;
use crate::Error;
use api_types as json;

use super::block::MIN_LEVEL;

/// The most points a chunk holds (four times a block's steps: a few re-logged steps fit).
pub const MAX_POINTS: u64 = 4 << MIN_LEVEL;

/// Bytes a point takes: step, timestamp and the value's bits, big-endian.
const POINT_BYTES: usize = 24;

/// The first byte of a chunk.
const FORMAT: u8 = 1;

/// The order a chart reads points in: `ORDER BY step, timestamp, is_nan, value` of the
/// stored form (NaN stored as `(is_nan = 1, value = 0)`).
pub fn reading_order(a: &json::SeriesPoint, b: &json::SeriesPoint) -> Ordering {
    let key = |p: &json::SeriesPoint| {
        let (is_nan, v) = to_stored(p.value.0);
        (p.step, p.timestamp, is_nan, v)
    };
    let (a, b) = (key(a), key(b));
    (a.0, a.1, a.2)
        .cmp(&(b.0, b.1, b.2))
        .then(a.3.total_cmp(&b.3))
}

/// `points` (in reading order) as a chunk.
fn encode(points: &[json::SeriesPoint]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + points.len() * POINT_BYTES);
    out.push(FORMAT);
    for p in points {
        out.extend(p.step.to_be_bytes());
        out.extend(p.timestamp.to_be_bytes());
        out.extend(p.value.0.to_bits().to_be_bytes());
    }
    out
}

/// The points of a chunk; `None` when it is not one [`encode`] wrote.
fn decode(bytes: &[u8]) -> Option<Vec<json::SeriesPoint>> {
    let (&format, rest) = bytes.split_first()?;
    if format != FORMAT || rest.len() % POINT_BYTES != 0 {
        return None;
    }
    let word = |b: &[u8]| <[u8; 8]>::try_from(b).ok();
    rest.chunks_exact(POINT_BYTES)
        .map(|p| {
            Some(json::SeriesPoint {
                step: i64::from_be_bytes(word(&p[..8])?),
                timestamp: i64::from_be_bytes(word(&p[8..16])?),
                value: json::F64(f64::from_bits(u64::from_be_bytes(word(&p[16..])?))),
            })
        })
        .collect()
}

/// Folds `new` (points just stored, none of them stored before) into the chunks of their
/// blocks. `stored(b)` is how many points block `b` held before. A block with no points
/// before gets a chunk of the new ones; one with points gets them added to its chunk
/// when that chunk holds all of those; a block past [`MAX_POINTS`], or one whose earlier
/// points have no chunk, is left without (its chunk, if any, is dropped).
pub fn update(
    c: &Conn,
    sid: i64,
    new: &[json::SeriesPoint],
    stored: impl Fn(i64) -> u64,
) -> Result<(), Error> {
    let mut by_block: Vec<(i64, Vec<json::SeriesPoint>)> = Vec::new();
    for p in new {
        let b = p.step >> MIN_LEVEL;
        match by_block.last_mut() {
            Some((last, points)) if *last == b => points.push(*p),
            _ => by_block.push((b, vec![*p])),
        }
    }
    by_block.sort_by_key(|(b, _)| *b);
    let had: Vec<i64> = by_block
        .iter()
        .map(|(b, _)| *b)
        .filter(|b| stored(*b) > 0)
        .collect();
    let mut old = read(c, sid, &had)?;
    let mut write: Vec<(i64, Vec<u8>)> = Vec::new();
    let mut drop: Vec<i64> = Vec::new();
    for (b, mut points) in by_block {
        let before = stored(b);
        let whole = match old.remove(&b) {
            Some(prior) if prior.len() as u64 == before => {
                points.extend(prior);
                true
            }
            _ => before == 0,
        };
        if whole && points.len() as u64 <= MAX_POINTS {
            points.sort_by(reading_order);
            write.push((b, encode(&points)));
        } else if before > 0 {
            drop.push(b);
        }
    }
    for rows in write.chunks(16) {
        let values = vec!["(?, ?, ?)"; rows.len()].join(", ");
        let args = rows.iter().flat_map(|(b, bytes)| {
            [
                Value::Integer(sid),
                Value::Integer(*b),
                Value::Blob(bytes.clone()),
            ]
        });
        c.prepare_cached(&format!(
            "INSERT INTO metric_chunks (series_id, block, points) VALUES {values}
             ON CONFLICT (series_id, block) DO UPDATE SET points = excluded.points"
        ))?
        .execute(params_from_iter(args))?;
    }
    for b in drop {
        c.prepare_cached("DELETE FROM metric_chunks WHERE series_id = ?1 AND block = ?2")?
            .execute(params![sid, b])?;
    }
    Ok(())
}

/// The chunks of `blocks` (lowest-level block numbers) of series `sid` that exist, in
/// reading order, with one statement; a chunk that cannot be read is left out (its
/// points are then read from `metric_points`).
pub fn read(
    c: &Conn,
    sid: i64,
    blocks: &[i64],
) -> Result<HashMap<i64, Vec<json::SeriesPoint>>, Error> {
    let mut found = HashMap::new();
    if blocks.is_empty() {
        return Ok(found);
    }
    let d = c.dialect();
    let sql = match d {
        Dialect::Sqlite => format!(
            "SELECT block, points FROM metric_chunks
              WHERE series_id = ?1 AND block IN {}",
            json_int_list(d, "?2")
        ),
        // One primary-key lookup per block, in the generic plan too.
        Dialect::Postgres => format!(
            "SELECT c.block, c.points FROM unnest(ARRAY{}) AS w(block)
               CROSS JOIN LATERAL (
                 SELECT block, points FROM metric_chunks
                  WHERE series_id = ?1 AND block = w.block) AS c",
            json_int_list(d, "?2")
        ),
    };
    let mut stmt = c.prepare_cached(&sql)?;
    let mut rows = stmt.query(params![sid, json_array(blocks)?])?;
    while let Some(r) = rows.next()? {
        let block: i64 = r.get(0)?;
        if let Some(points) = decode(r.get_ref(1)?.as_blob()?) {
            found.insert(block, points);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_reads_back_in_reading_order() {
        let pt = |step, timestamp, value| json::SeriesPoint {
            step,
            timestamp,
            value: json::F64(value),
        };
        let mut points = vec![
            pt(3, 1, f64::NAN),
            pt(3, 1, 2.0),
            pt(-1, 9, f64::NEG_INFINITY),
            pt(3, 0, -0.5),
            pt(i64::MAX, i64::MIN, f64::INFINITY),
        ];
        points.sort_by(reading_order);
        let steps: Vec<(i64, i64)> = points.iter().map(|p| (p.step, p.timestamp)).collect();
        assert_eq!(
            steps,
            [(-1, 9), (3, 0), (3, 1), (3, 1), (i64::MAX, i64::MIN)]
        );
        assert_eq!(
            points[2].value.0, 2.0,
            "a NaN after the number at its step and time"
        );
        let bytes = encode(&points);
        assert_eq!(bytes.len(), 1 + 5 * POINT_BYTES);
        let back = decode(&bytes).unwrap();
        assert_eq!(format!("{back:?}"), format!("{points:?}"));
        assert!(decode(&bytes[..bytes.len() - 1]).is_none());
        assert!(decode(&[2]).is_none());
        assert_eq!(decode(&[FORMAT]).unwrap().len(), 0);
    }
}
