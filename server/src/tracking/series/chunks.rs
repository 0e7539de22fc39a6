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

use crate::db::sql::{json_array, json_int_list};
use crate::db::{params, params_from_iter, Conn, Engine, Value};
use crate::tracking::model::to_stored;
use crate::Error;
use api_types as json;

use super::block::MIN_LEVEL;

/// The most points a chunk holds (four times a block's steps: a few re-logged steps fit).
pub(crate) const MAX_POINTS: u64 = 4 << MIN_LEVEL;

/// The first byte of a chunk.
const FORMAT: u8 = 1;

/// The order a chart reads points in: `ORDER BY step, timestamp, is_nan, value` of the
/// stored form (NaN stored as `(is_nan = 1, value = 0)`).
pub(crate) fn reading_order(a: &json::SeriesPoint, b: &json::SeriesPoint) -> Ordering {
    let key = |p: &json::SeriesPoint| {
        let (is_nan, v) = to_stored(p.value.0);
        (p.step, p.timestamp, is_nan, v)
    };
    let (a, b) = (key(a), key(b));
    (a.0, a.1, a.2)
        .cmp(&(b.0, b.1, b.2))
        .then(a.3.total_cmp(&b.3))
}

/// `points` (in reading order) as a chunk: after the format byte, each point as the
/// differences of its step and timestamp from the previous point's (zigzag varints: one
/// or two bytes for a series logged step after step) and its value's bits (8 bytes,
/// big-endian). About 11 bytes a point, so a full block (700 bytes) stays inside its
/// B-tree page on SQLite, where a row over ~1,000 bytes spills to an overflow page of its
/// own (measured: 1.5 KB chunks doubled the database).
fn encode(points: &[json::SeriesPoint]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + points.len() * 12);
    out.push(FORMAT);
    let (mut step, mut ts) = (0i64, 0i64);
    for p in points {
        varint(&mut out, zigzag(p.step.wrapping_sub(step)));
        varint(&mut out, zigzag(p.timestamp.wrapping_sub(ts)));
        out.extend(p.value.0.to_bits().to_be_bytes());
        (step, ts) = (p.step, p.timestamp);
    }
    out
}

/// The points of a chunk; `None` when it is not one [`encode`] wrote.
fn decode(bytes: &[u8]) -> Option<Vec<json::SeriesPoint>> {
    let (&format, mut rest) = bytes.split_first()?;
    if format != FORMAT {
        return None;
    }
    let mut points = Vec::new();
    let (mut step, mut ts) = (0i64, 0i64);
    while !rest.is_empty() {
        step = step.wrapping_add(unzigzag(read_varint(&mut rest)?));
        ts = ts.wrapping_add(unzigzag(read_varint(&mut rest)?));
        let (bits, tail) = rest.split_first_chunk::<8>()?;
        rest = tail;
        points.push(json::SeriesPoint {
            step,
            timestamp: ts,
            value: json::F64(f64::from_bits(u64::from_be_bytes(*bits))),
        });
    }
    Some(points)
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Appends `v` seven bits a byte, low first, the high bit set on all but the last.
fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a [`varint`] off the front of `bytes`; `None` when it is cut short or too long.
fn read_varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        v |= u64::from(b & 0x7f).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// The points one write adds to one series, for [`update`].
pub(crate) struct Change<'a> {
    /// The series.
    pub sid: i64,
    /// Points just stored, none of them stored before, in reading order (so each block's
    /// points are together).
    pub new: &'a [json::SeriesPoint],
}

/// Folds each change's new points into the chunks of their blocks, for every series with
/// one statement to read and one for each 16 chunks written. `stored(sid, b)` is how many
/// points block `b` of series `sid` held before. A block with no points before gets a
/// chunk of the new ones; one with points gets them added to its chunk when that chunk
/// holds all of those; a block past [`MAX_POINTS`], or one whose earlier points have no
/// chunk, is left without (its chunk, if any, is dropped).
pub(crate) fn update(
    c: &Conn,
    changes: &[Change],
    stored: impl Fn(i64, i64) -> u64,
) -> Result<(), Error> {
    // (series, block, its new points), in the changes' order and each series' block order.
    let mut by_block: Vec<(i64, i64, Vec<json::SeriesPoint>)> = Vec::new();
    for ch in changes {
        for p in ch.new {
            let b = p.step >> MIN_LEVEL;
            match by_block.last_mut() {
                Some((sid, last, points)) if *sid == ch.sid && *last == b => points.push(*p),
                _ => by_block.push((ch.sid, b, vec![*p])),
            }
        }
    }
    let had: Vec<(i64, i64)> = by_block
        .iter()
        .map(|(sid, b, _)| (*sid, *b))
        .filter(|(sid, b)| stored(*sid, *b) > 0)
        .collect();
    let mut old = read_pairs(c, &had)?;
    let mut write: Vec<(i64, i64, Vec<u8>)> = Vec::new();
    let mut drop: Vec<(i64, i64)> = Vec::new();
    for (sid, b, mut points) in by_block {
        let before = stored(sid, b);
        let whole = match old.remove(&(sid, b)) {
            Some(prior) if prior.len() as u64 == before => {
                points.extend(prior);
                true
            }
            _ => before == 0,
        };
        if whole && points.len() as u64 <= MAX_POINTS {
            points.sort_by(reading_order);
            write.push((sid, b, encode(&points)));
        } else if before > 0 {
            drop.push((sid, b));
        }
    }
    let mut write = write.into_iter();
    loop {
        let rows: Vec<(i64, i64, Vec<u8>)> = write.by_ref().take(16).collect();
        if rows.is_empty() {
            break;
        }
        let values = vec!["(?, ?, ?)"; rows.len()].join(", ");
        let args = rows.into_iter().flat_map(|(sid, b, bytes)| {
            [Value::Integer(sid), Value::Integer(b), Value::Blob(bytes)]
        });
        c.prepare_cached(&format!(
            "INSERT INTO metric_chunks (series_id, block, points) VALUES {values}
             ON CONFLICT (series_id, block) DO UPDATE SET points = excluded.points"
        ))?
        .execute(params_from_iter(args))?;
    }
    for (sid, b) in drop {
        c.prepare_cached("DELETE FROM metric_chunks WHERE series_id = ?1 AND block = ?2")?
            .execute(params![sid, b])?;
    }
    Ok(())
}

/// The chunks `(series, block)` of `wanted` that exist, in reading order, with one
/// statement; a chunk that cannot be read is left out.
fn read_pairs(
    c: &Conn,
    wanted: &[(i64, i64)],
) -> Result<HashMap<(i64, i64), Vec<json::SeriesPoint>>, Error> {
    let mut found = HashMap::new();
    if wanted.is_empty() {
        return Ok(found);
    }
    let d = c.engine();
    let (sql, args) = match d {
        // One primary-key lookup a pair ([sid, block]).
        Engine::Sqlite => (
            "SELECT c.series_id, c.block, c.points FROM json_each(?1) AS w
               CROSS JOIN metric_chunks AS c
                 ON c.series_id = w.value ->> 0 AND c.block = w.value ->> 1"
                .to_owned(),
            vec![json_array(wanted)?],
        ),
        // One primary-key lookup a pair, in the generic plan too.
        Engine::Postgres => (
            format!(
                "SELECT c.series_id, c.block, c.points
                   FROM unnest(ARRAY{}, ARRAY{}) AS w(sid, block)
                   CROSS JOIN LATERAL (
                     SELECT series_id, block, points FROM metric_chunks
                      WHERE series_id = w.sid AND block = w.block) AS c",
                json_int_list(d, "?1"),
                json_int_list(d, "?2")
            ),
            vec![
                json_array(&wanted.iter().map(|w| w.0).collect::<Vec<_>>())?,
                json_array(&wanted.iter().map(|w| w.1).collect::<Vec<_>>())?,
            ],
        ),
    };
    let mut stmt = c.prepare_cached(&sql)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(r) = rows.next()? {
        let key: (i64, i64) = (r.get(0)?, r.get(1)?);
        if let Some(points) = decode(r.get_ref(2)?.as_blob()?) {
            found.insert(key, points);
        }
    }
    Ok(found)
}

/// The chunks of `blocks` (lowest-level block numbers) of series `sid` that exist, in
/// reading order, with one statement; a chunk that cannot be read is left out (its
/// points are then read from `metric_points`).
pub(crate) fn read(
    c: &Conn,
    sid: i64,
    blocks: &[i64],
) -> Result<HashMap<i64, Vec<json::SeriesPoint>>, Error> {
    let mut found = HashMap::new();
    if blocks.is_empty() {
        return Ok(found);
    }
    let d = c.engine();
    let sql = match d {
        // One primary-key lookup per listed block, in the list's order (`block IN` first
        // copies the list into a temporary index).
        Engine::Sqlite => "SELECT c.block, c.points FROM json_each(?2) AS w
              CROSS JOIN metric_chunks AS c ON c.series_id = ?1 AND c.block = w.value"
            .to_owned(),
        // One primary-key lookup per block, in the generic plan too.
        Engine::Postgres => format!(
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
        let back = decode(&bytes).unwrap();
        assert_eq!(format!("{back:?}"), format!("{points:?}"));
        for cut in 2..bytes.len() {
            let short = decode(&bytes[..cut]);
            assert!(short.is_none_or(|p| p.len() < points.len()), "{cut} bytes");
        }
        assert!(decode(&[2]).is_none());
        assert!(decode(&[FORMAT, 0xff]).is_none());
        assert_eq!(decode(&[FORMAT]).unwrap().len(), 0);
        // A block logged step after step: 1 + 1 + 8 bytes a point after the first.
        let run: Vec<json::SeriesPoint> = (0..64)
            .map(|i| pt(6_400 + i, 1_700_000_000_000 + 37 * i, i as f64))
            .collect();
        let bytes = encode(&run);
        assert_eq!(bytes.len(), 1 + (2 + 6 + 8) + 63 * 10);
        assert_eq!(format!("{:?}", decode(&bytes).unwrap()), format!("{run:?}"));
    }
}
