//! The block path of a chart: the range is covered with stored block summaries instead of
//! points, so a chart reads rows in proportion to its pixels, not to the series.
//!
//! Blocks are read at the level with one to four blocks a pixel column. A block whose points
//! all fall into one column stands in for them: its first, last, minimum and maximum finite
//! points and first NaN, +inf and -inf point, at their own x, are all the reducer could keep
//! of it. A block that straddles a column boundary (or an end of the range) is refined into
//! its four blocks of the level below, and at the lowest level (or when it holds few points)
//! into its points. Each column boundary so costs a few blocks per level and at most one
//! lowest-level block of points; the output is the one the reducer gives over every point.
//!
//! Blocks are in step order, so on a time axis this holds only for a series whose timestamps
//! never decrease as steps grow (its `time_ordered` flag); the caller checks.
//!
//! The walk goes level by level: every block of a level is placed (skipped, summarised, read
//! as points, or refined), and the children of the refined ones are read together, one
//! statement a level; the points of the blocks read as points are read last, a batch of
//! ranges a statement on PostgreSQL (where each statement is a round trip). The pieces are
//! then fed to the reducer in step order, which is the order a depth-first walk would give
//! (blocks and point ranges are disjoint in steps), so the output does not change.

use crate::db::{params_from_iter, Conn, Dialect, Value};

use super::axis::{Axis, POINTS_BY_STEP};
use super::block::{Block, LEVEL_STEP, MIN_LEVEL};
use super::blocks;
use super::downsample::{Reduced, Viewport, M4};
use crate::store::sql::{json_array, json_int_list};
use crate::tracking::model::from_stored;
use crate::Error;
use api_types as json;

/// A straddling block with at most this many points is read as points, not refined.
const FEW_POINTS: u64 = 1 << MIN_LEVEL;

/// Point ranges read by one statement: one on SQLite (a statement costs a function call,
/// and one range keeps the plan a plain index range), many on PostgreSQL.
fn ranges_per_statement(d: Dialect) -> usize {
    match d {
        Dialect::Sqlite => 1,
        Dialect::Postgres => 64,
    }
}

/// What a block of the walk becomes.
enum Piece {
    /// All its points lie in one column: its summary stands in for them.
    Summary(Box<Block>),
    /// Its points with steps in `lo..=hi` are read and reduced one by one.
    Points(i64, i64),
}

/// The points of series `sid` with steps in `steps` (inclusive) reduced to `view` on
/// `axis`, starting from the blocks at level `top`.
pub(super) fn reduce(
    c: &Conn,
    sid: i64,
    axis: Axis,
    view: Viewport,
    steps: (i64, i64),
    top: u32,
) -> Result<Reduced, Error> {
    let place = Place { axis, view, steps };
    let mut pieces: Vec<(i64, Piece)> = Vec::new();
    let mut level = top;
    let mut blocks = blocks::Reader::new(c)?.read(sid, top, steps.0 >> top, steps.1 >> top)?;
    loop {
        let mut refine: Vec<i64> = Vec::new();
        for (b, s) in blocks {
            match place.of(level, &s) {
                Placed::Skip => {}
                Placed::Summary => pieces.push((s.steps.0, Piece::Summary(Box::new(s)))),
                Placed::Points(lo, hi) => pieces.push((lo, Piece::Points(lo, hi))),
                Placed::Refine => {
                    let first = b << LEVEL_STEP;
                    refine.extend(first..first + (1 << LEVEL_STEP));
                }
            }
        }
        if refine.is_empty() {
            break;
        }
        level -= LEVEL_STEP;
        blocks = read_blocks(c, sid, level, &refine)?;
    }
    pieces.sort_by_key(|(start, _)| *start);
    let ranges: Vec<(i64, i64)> = pieces
        .iter()
        .filter_map(|(_, p)| match p {
            Piece::Points(lo, hi) => Some((*lo, *hi)),
            Piece::Summary(_) => None,
        })
        .collect();
    let points = read_ranges(c, sid, &ranges, ranges_per_statement(c.dialect()))?;
    let mut m4 = M4::new(view);
    let mut next = points.into_iter().peekable();
    for (_, piece) in pieces {
        match piece {
            Piece::Summary(s) => {
                let samples = s.samples().into_iter();
                m4.push_summary(samples.map(|p| (axis.x(p.step, p.timestamp), p)), s.n);
            }
            Piece::Points(_, hi) => {
                while let Some(p) = next.next_if(|p| p.step <= hi) {
                    m4.push(axis.x(p.step, p.timestamp), p);
                }
            }
        }
    }
    Ok(m4.finish())
}

/// Where a block goes (see [`Place::of`]).
enum Placed {
    Skip,
    Summary,
    Points(i64, i64),
    Refine,
}

/// The chart a walk serves.
struct Place {
    axis: Axis,
    view: Viewport,
    steps: (i64, i64),
}

impl Place {
    /// Outside the range: skipped; inside it and in one column: summarised; straddling a
    /// boundary at the lowest level or with few points: read as points; else refined.
    fn of(&self, level: u32, s: &Block) -> Placed {
        let (lo, hi) = self.steps;
        if s.steps.1 < lo || s.steps.0 > hi {
            return Placed::Skip;
        }
        let (x_lo, x_hi) = match self.axis {
            Axis::Step => (s.steps.0 as f64, s.steps.1 as f64),
            Axis::Time { .. } => (self.axis.x(0, s.times.0), self.axis.x(0, s.times.1)),
        };
        if x_hi < self.view.x_min() || x_lo > self.view.x_max() {
            return Placed::Skip;
        }
        let column = self.view.column(x_lo);
        let inside = lo <= s.steps.0 && s.steps.1 <= hi;
        if inside && column.is_some() && column == self.view.column(x_hi) {
            Placed::Summary
        } else if level <= MIN_LEVEL || s.n <= FEW_POINTS {
            Placed::Points(s.steps.0.max(lo), s.steps.1.min(hi))
        } else {
            Placed::Refine
        }
    }
}

/// The blocks `wanted` of `level` that exist, in block order, with one statement.
fn read_blocks(c: &Conn, sid: i64, level: u32, wanted: &[i64]) -> Result<Vec<(i64, Block)>, Error> {
    let sql = format!(
        "SELECT block, {} FROM metric_blocks
          WHERE series_id = ?1 AND level = ?2 AND block IN {} ORDER BY block",
        blocks::COLUMNS,
        json_int_list(c.dialect(), "?3")
    );
    let mut stmt = c.prepare_cached(&sql)?;
    let rows = stmt.query_map(
        params_from_iter([
            Value::Integer(sid),
            Value::Integer(i64::from(level)),
            Value::Text(json_array(wanted)?),
        ]),
        |r| Ok((r.get(0)?, blocks::from_row(r, 1)?)),
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The points of series `sid` in the step ranges `ranges` (disjoint, ascending), in
/// reading order (step, timestamp, is_nan, value), `per` ranges a statement.
pub(super) fn read_ranges(
    c: &Conn,
    sid: i64,
    ranges: &[(i64, i64)],
    per: usize,
) -> Result<Vec<json::SeriesPoint>, Error> {
    let mut out = Vec::new();
    for batch in ranges.chunks(per.max(1)) {
        let sql = match batch.len() {
            1 => POINTS_BY_STEP.to_owned(),
            n => format!(
                "SELECT step, timestamp, is_nan, value FROM metric_points
                  WHERE series_id = ?1 AND ({})
                  ORDER BY step, timestamp, is_nan, value",
                (0..n)
                    .map(|i| format!("step BETWEEN ?{} AND ?{}", 2 + 2 * i, 3 + 2 * i))
                    .collect::<Vec<_>>()
                    .join(" OR ")
            ),
        };
        let mut args = vec![Value::Integer(sid)];
        for &(lo, hi) in batch {
            args.extend([Value::Integer(lo), Value::Integer(hi)]);
        }
        let mut stmt = c.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(args))?;
        while let Some(r) = rows.next()? {
            out.push(json::SeriesPoint {
                step: r.get(0)?,
                timestamp: r.get(1)?,
                value: json::F64(from_stored(r.get(2)?, r.get(3)?)),
            });
        }
    }
    Ok(out)
}
