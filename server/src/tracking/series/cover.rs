//! The block path of a chart: the range is covered with stored block summaries instead of
//! points, so a chart reads rows in proportion to its pixels, not to the series.
//!
//! Blocks are read at the level with one to four blocks a pixel column. A block whose points
//! all fall into one column stands in for them: its first, last, minimum and maximum finite
//! points and first NaN, +inf and -inf point, at their own x, are all the reducer could keep
//! of it. A block that straddles a column boundary (or an end of the range) is refined into
//! its four blocks of the level below, and at the lowest level (or when it holds few points)
//! into its points. Each column boundary so costs a few blocks per level and at most one
//! lowest-level block of points, read as one row (its chunk, [`chunks`]) when it has one;
//! the output is the one the reducer gives over every point.
//!
//! A block straddling one boundary is not refined when its summary and the extremes
//! already known in the two columns settle it ([`straddle`](super::straddle)): its parts then stand in as
//! the summary's points plus the two points next to the boundary, read from the chunks
//! there, and a settled block whose chunks lack those points is refined after all. On a
//! time axis the step at a boundary is first guessed from the block's first and last
//! points, and where the chunks there miss the boundary it is looked up by its timestamp
//! ([`locate`], one index probe a boundary, all in one statement; on PostgreSQL a probe
//! also fetches its row from the table). A noisy series so stops a level or two
//! below the top instead of at the lowest, which a series ten times longer has two levels
//! further down.
//!
//! Blocks are in step order, so on a time axis this holds only for a series whose timestamps
//! never decrease as steps grow (its `time_ordered` flag); the caller checks.
//!
//! The walk goes level by level: every block of a level is placed (skipped, summarised, read
//! as points, settled, or refined), and the children of the refined ones are read together, one
//! statement a level; the points of the blocks read as points are read last: the
//! lowest-level blocks' chunks with one statement, the other blocks' points as step ranges
//! of `metric_points`, a batch of ranges a statement on PostgreSQL (where each statement
//! is a round trip). Each of these reads is split over two connections when it is large
//! and the pool has a connection free ([`parallel`]). The pieces are
//! then fed to the reducer in step order, which is the order a depth-first walk would give
//! (blocks and point ranges are disjoint in steps), so the output does not change.

use std::collections::HashMap;

use crate::db::{params_from_iter, Conn, Engine, Value};

use super::axis::{Axis, POINTS_BY_STEP};
use super::block::{Block, LEVEL_STEP, MIN_LEVEL};
use super::blocks;
use super::chunks;
use super::downsample::{Reduced, Viewport, M4};
use super::parallel::{self, split_read, SPLIT_AT};
use super::straddle::{Known, Straddle};
use crate::db::sql::{json_array, json_int_list};
use crate::tracking::model::from_stored;
use crate::Error;
use api_types as json;

/// A straddling block with at most this many points is read as points, not refined.
const FEW_POINTS: u64 = 1 << MIN_LEVEL;

/// Point ranges read by one statement: one on SQLite (a statement costs a function call,
/// and one range keeps the plan a plain index range), many on PostgreSQL, where each
/// statement is a round trip and the ranges are joined as a list ([`read_ranges`]).
fn ranges_per_statement(d: Engine) -> usize {
    match d {
        Engine::Sqlite => 1,
        Engine::Postgres => 1024,
    }
}

/// What a block of the walk becomes.
enum Piece {
    /// All its points lie in one column: its summary (this index of the walk's summaries)
    /// stands in for them.
    Summary(usize),
    /// Its points with steps in `lo..=hi` are read and reduced one by one; from the chunk
    /// of lowest-level block `chunk.0` when it holds the `chunk.1` points the block's
    /// summary counts, else from `metric_points`.
    Points {
        lo: i64,
        hi: i64,
        chunk: Option<(i64, u64)>,
    },
    /// A part of a settled straddling block ([`straddle`](super::straddle)): the walk's exact points
    /// `at..at + len` stand in for it, and it counts `n` points (the whole block's on its
    /// left part, none on its right).
    Exact { at: usize, len: usize, n: u64 },
}

/// The points of series `sid` with steps in `steps` (inclusive) reduced to `view` on
/// `axis`, starting from the blocks at level `top` (or at the series' top level, when that
/// is lower: no block exists above it); and what the walk did.
pub(super) fn reduce(
    c: &Conn,
    sid: i64,
    axis: Axis,
    view: Viewport,
    steps: (i64, i64),
    top: u32,
) -> Result<(Reduced, Stats), Error> {
    let top = top.min(blocks::stored_top(c, sid)?);
    let mut walk = Walk::new(Place { axis, view, steps });
    let (from, to) = (steps.0 >> top, steps.1 >> top);
    let mid = from + (to - from) / 2;
    let top_blocks = |c: &Conn, lo, hi| blocks::Reader::new(c)?.read(sid, top, lo, hi);
    let (mut blocks, rest) = parallel::both(
        c,
        to - from >= SPLIT_AT as i64,
        |c| top_blocks(c, from, mid),
        |c| top_blocks(c, mid + 1, to),
    )?;
    blocks.extend(rest);
    walk.descend(c, sid, top, blocks, true)?;
    let jumps = std::mem::take(&mut walk.jumps);
    let mut wanted: Vec<i64> = walk.counts.keys().copied().collect();
    wanted.extend(jumps.iter().filter_map(Straddle::chunks).flatten());
    let mut chunks = read_chunks(c, sid, wanted)?;
    // The settled blocks become their two parts; the others (no chunk, or a part's point
    // next to the boundary not in it) are refined as any straddling block. On a time axis
    // the chunks were a guess ([`Straddle::guess`]): those that miss the boundary are read
    // again where the timestamp's index puts it.
    let by_time = matches!(axis, Axis::Time { .. });
    let (mut unsettled, mut missed) = walk.settle(jumps, &chunks, by_time);
    if !missed.is_empty() {
        let times: Vec<i64> = missed.iter().map(|j| j.split).collect();
        let at: HashMap<i64, i64> = split_read(c, &times, |c, part| locate(c, sid, part))?
            .into_iter()
            .collect();
        walk.stats.located += missed.len();
        for j in &mut missed {
            j.at = at.get(&j.split).copied();
        }
        let more: Vec<i64> = missed
            .iter()
            .filter_map(Straddle::chunks)
            .flatten()
            .filter(|b| !chunks.contains_key(b))
            .collect();
        chunks.extend(read_chunks(c, sid, more)?);
        unsettled.extend(walk.settle(missed, &chunks, false).0);
    }
    unsettled.sort_unstable_by_key(|j| (std::cmp::Reverse(j.level), j.block));
    for group in unsettled.chunk_by(|a, b| a.level == b.level) {
        let level = group[0].level - LEVEL_STEP;
        let parents: Vec<i64> = group.iter().map(|j| j.block).collect();
        let children = read_children(c, sid, level, &parents)?;
        walk.stats.refined += parents.len();
        walk.descend(c, sid, level, children, false)?;
    }
    if !unsettled.is_empty() {
        let more: Vec<i64> = walk
            .counts
            .keys()
            .filter(|b| !chunks.contains_key(b))
            .copied()
            .collect();
        chunks.extend(read_chunks(c, sid, more)?);
    }
    let Walk {
        mut pieces,
        summaries,
        exact,
        counts,
        stats,
        ..
    } = walk;
    pieces.sort_by_key(|(start, _)| *start);
    // A chunk stands for its block only when it holds every point the summary counts.
    chunks.retain(|b, points| counts.get(b) == Some(&(points.len() as u64)));
    let from_chunk = |chunk: &Option<(i64, u64)>| chunk.and_then(|(b, _)| chunks.get(&b));
    let ranges: Vec<(i64, i64)> = pieces
        .iter()
        .filter_map(|(_, p)| match p {
            Piece::Points { lo, hi, chunk } if from_chunk(chunk).is_none() => Some((*lo, *hi)),
            _ => None,
        })
        .collect();
    let per = ranges_per_statement(c.engine());
    let points = split_read(c, &ranges, |c, part| read_ranges(c, sid, part, per))?;
    let mut m4 = M4::new(view);
    let mut next = points.into_iter().peekable();
    let at_x = |p: &json::SeriesPoint| (axis.x(p.step, p.timestamp), *p);
    for (_, piece) in &pieces {
        match piece {
            Piece::Summary(i) => {
                let s = &summaries[*i];
                m4.push_summary(s.samples().map(|p| at_x(&p)), s.n);
            }
            Piece::Exact { at, len, n } => {
                m4.push_summary(exact[*at..*at + *len].iter().map(at_x), *n);
            }
            Piece::Points { lo, hi, chunk } => match from_chunk(chunk) {
                Some(points) => {
                    for p in points.iter().filter(|p| (*lo..=*hi).contains(&p.step)) {
                        m4.push(axis.x(p.step, p.timestamp), *p);
                    }
                }
                None => {
                    while let Some(p) = next.next_if(|p| p.step <= *hi) {
                        m4.push(axis.x(p.step, p.timestamp), p);
                    }
                }
            },
        }
    }
    Ok((m4.finish(), stats))
}

/// The chunks of the lowest-level blocks `wanted` that exist (in block order, so that
/// consecutive lookups walk nearby pages of the index).
pub(super) fn read_chunks(
    c: &Conn,
    sid: i64,
    mut wanted: Vec<i64>,
) -> Result<HashMap<i64, Vec<json::SeriesPoint>>, Error> {
    wanted.sort_unstable();
    wanted.dedup();
    Ok(split_read(c, &wanted, |c, part| {
        Ok(chunks::read(c, sid, part)?.into_iter().collect())
    })?
    .into_iter()
    .collect())
}

/// A chart's walk down the levels: what it has placed so far.
struct Walk {
    place: Place,
    /// Each piece with its first step.
    pieces: Vec<(i64, Piece)>,
    /// The summaries kept, apart from the pieces: the pieces get sorted, and a block is
    /// ten times the size of a piece.
    summaries: Vec<Block>,
    /// The points of the [`Piece::Exact`] pieces.
    exact: Vec<json::SeriesPoint>,
    /// The extremes of each column given to the reducer so far.
    known: Known,
    /// Straddling blocks settled but for the points next to their boundary.
    jumps: Vec<Straddle>,
    /// The lowest-level blocks read as points (each may have a chunk), with the points
    /// their summaries count.
    counts: HashMap<i64, u64>,
    /// What the walk did, for the tests.
    stats: Stats,
}

/// What a chart's walk did: how many blocks it refined (each one read of its children),
/// how many straddling blocks settled early, and how many boundaries were looked up by
/// timestamp (on a time axis, where the guess missed).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct Stats {
    pub refined: usize,
    pub settled: usize,
    pub located: usize,
}

impl Walk {
    fn new(place: Place) -> Self {
        Walk {
            known: Known::new(place.view.width()),
            place,
            pieces: Vec::new(),
            summaries: Vec::new(),
            exact: Vec::new(),
            jumps: Vec::new(),
            counts: HashMap::new(),
            stats: Stats::default(),
        }
    }

    /// Places `blocks` (at `level`, in block order) and, a level at a time, the children
    /// of those refined: every block of a level is placed (skipped, summarised, read as
    /// points, settled early when `settle` allows it, or refined), then the children of
    /// the refined ones are read together, one statement a level.
    fn descend(
        &mut self,
        c: &Conn,
        sid: i64,
        mut level: u32,
        mut blocks: Vec<(i64, Block)>,
        settle: bool,
    ) -> Result<(), Error> {
        loop {
            // The refined blocks, whose four children the next level reads.
            let mut refine: Vec<i64> = Vec::new();
            let mut open: Vec<Straddle> = Vec::new();
            for (b, s) in blocks {
                match self.place.of(level, &s, settle) {
                    Placed::Skip => {}
                    Placed::Summary(col) => {
                        for p in [s.min, s.max].iter().flatten() {
                            self.known.add(col, p);
                        }
                        self.pieces
                            .push((s.steps.0, Piece::Summary(self.summaries.len())));
                        self.summaries.push(s);
                    }
                    Placed::Points(lo, hi) => {
                        let chunk = (level == MIN_LEVEL).then_some((b, s.n));
                        self.counts.extend(chunk);
                        self.pieces.push((lo, Piece::Points { lo, hi, chunk }));
                    }
                    Placed::Refine => refine.push(b),
                    Placed::Straddle { split, col } => {
                        let by_time = matches!(self.place.axis, Axis::Time { .. });
                        let mut st = Straddle {
                            block: b,
                            level,
                            summary: s,
                            split,
                            by_time,
                            at: Some(split),
                            col,
                        };
                        if by_time {
                            st.at = st.guess();
                        }
                        open.push(st);
                    }
                }
            }
            // Decided once the level's summaries and straddling blocks are all known.
            for st in &open {
                for (col, p) in st.known() {
                    self.known.add(col, &p);
                }
            }
            for st in open {
                if st.settles(&self.known) {
                    self.jumps.push(st);
                } else {
                    refine.push(st.block);
                }
            }
            if refine.is_empty() {
                return Ok(());
            }
            refine.sort_unstable();
            self.stats.refined += refine.len();
            level -= LEVEL_STEP;
            blocks = read_children(c, sid, level, &refine)?;
        }
    }

    /// Settles `jumps` with the points next to their boundaries from `chunks`: each becomes
    /// its two parts. Returns those that do not settle, to be refined, and apart from them
    /// when `retry` those whose chunks may just be the wrong ones (a guess on a time axis).
    fn settle(
        &mut self,
        jumps: Vec<Straddle>,
        chunks: &HashMap<i64, Vec<json::SeriesPoint>>,
        retry: bool,
    ) -> (Vec<Straddle>, Vec<Straddle>) {
        let (mut unsettled, mut missed) = (Vec::new(), Vec::new());
        for j in jumps {
            match j.parts(|b| chunks.get(&b).map(Vec::as_slice)) {
                Some([left, right]) => {
                    self.stats.settled += 1;
                    self.exact(j.summary.steps.0, left, j.summary.n);
                    // Its step (on a time axis the split is a timestamp): pieces go by step.
                    let start = right.first().map_or(j.summary.steps.1, |p| p.step);
                    self.exact(start, right, 0);
                }
                None if retry => missed.push(j),
                None => unsettled.push(j),
            }
        }
        (unsettled, missed)
    }

    /// A part of a settled block, from step `start`: `points` stand in for it.
    fn exact(&mut self, start: i64, points: Vec<json::SeriesPoint>, n: u64) {
        let at = self.exact.len();
        let len = points.len();
        self.exact.extend(points);
        self.pieces.push((start, Piece::Exact { at, len, n }));
    }
}

/// Where a block goes (see [`Place::of`]).
enum Placed {
    Skip,
    /// In this column.
    Summary(u32),
    Points(i64, i64),
    Refine,
    /// Straddles the boundary between column `col` and the next, whose first step (or
    /// timestamp, on a time axis) is `split` ([`straddle`](super::straddle)).
    Straddle {
        split: i64,
        col: u32,
    },
}

/// The chart a walk serves.
struct Place {
    axis: Axis,
    view: Viewport,
    steps: (i64, i64),
}

impl Place {
    /// Outside the range: skipped; inside it and in one column: summarised; straddling a
    /// boundary at the lowest level or with few points: read as points; inside the range
    /// and straddling one column boundary, when `settle`: a [`Placed::Straddle`]; else
    /// refined.
    fn of(&self, level: u32, s: &Block, settle: bool) -> Placed {
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
        let last = self.view.column(x_hi);
        match column {
            Some(col) if inside && last == Some(col) => return Placed::Summary(col),
            _ if level <= MIN_LEVEL || s.n <= FEW_POINTS => {
                return Placed::Points(s.steps.0.max(lo), s.steps.1.min(hi))
            }
            Some(col) if settle && inside && last == Some(col + 1) => {
                let range = match self.axis {
                    Axis::Step => s.steps,
                    Axis::Time { .. } => s.times,
                };
                return Placed::Straddle {
                    split: self.split(range, col + 1),
                    col,
                };
            }
            _ => {}
        }
        Placed::Refine
    }

    /// The first step (or timestamp, on a time axis) in `range` (whose last is in column
    /// `col`, its first before) that lies in column `col`.
    fn split(&self, range: (i64, i64), col: u32) -> i64 {
        let (mut before, mut at) = range;
        while at - before > 1 {
            let mid = before + (at - before) / 2;
            if self.view.column(self.axis.x(mid, mid)) >= Some(col) {
                at = mid;
            } else {
                before = mid;
            }
        }
        at
    }
}

/// The blocks of `level` that exist among the four children of each of the blocks
/// `parents` (ascending, at `level + LEVEL_STEP`), in block order: with one statement
/// ([`children_of`]), or two at once for many parents ([`split_read`]).
pub(super) fn read_children(
    c: &Conn,
    sid: i64,
    level: u32,
    parents: &[i64],
) -> Result<Vec<(i64, Block)>, Error> {
    split_read(c, parents, |c, part| children_of(c, sid, level, part))
}

/// [`read_children`] with one statement.
///
/// On SQLite the parents go in as a flat JSON list of integers, and each parent's children
/// are read as one index range (`block BETWEEN 4p AND 4p + 3`): one seek a parent, where
/// `block IN (list)` first copied the list into a temporary index, and a list of
/// `[first, last]` pairs cost a JSON parse of each pair (about 6 % of a chart of 10M
/// points).
///
/// On PostgreSQL the children go in as runs of consecutive numbers (adjacent parents make
/// one run) joined to the index one range at a time: with `block IN (list)` its generic
/// plan read every block of the level and kept the wanted ones (measured: 44 ms for 4,000
/// of 15,625 blocks at 1M points, ten times that at 10M). The LIMIT (a run holds at most
/// that many blocks) keeps the range's lookup a subquery of its own, an index range scan
/// per run: without it, the generic plan a prepared statement gets after five runs joined
/// the ranges to every block of the level (1.4 s).
fn children_of(
    c: &Conn,
    sid: i64,
    level: u32,
    parents: &[i64],
) -> Result<Vec<(i64, Block)>, Error> {
    let d = c.engine();
    let children = 1i64 << LEVEL_STEP;
    let (sql, lists) = match d {
        Engine::Sqlite => (
            format!(
                "SELECT s.block, s.{} FROM json_each(?3) AS p
                   CROSS JOIN metric_summaries AS s
                  WHERE s.series_id = ?1 AND s.level = ?2
                    AND s.block BETWEEN p.value * {children} AND p.value * {children} + {}",
                blocks::COLUMNS,
                children - 1,
            ),
            vec![json_array(parents)?],
        ),
        Engine::Postgres => {
            let wanted: Vec<i64> = parents
                .iter()
                .flat_map(|p| p * children..(p + 1) * children)
                .collect();
            let runs = runs_of(&wanted);
            let los: Vec<i64> = runs.iter().map(|r| r.0).collect();
            let his: Vec<i64> = runs.iter().map(|r| r.1).collect();
            (
                format!(
                    "SELECT b.* FROM unnest(ARRAY{}, ARRAY{}) AS r(lo, hi)
                       CROSS JOIN LATERAL (
                         SELECT block, {} FROM metric_summaries
                          WHERE series_id = ?1 AND level = ?2 AND block BETWEEN r.lo AND r.hi
                          LIMIT r.hi - r.lo + 1
                       ) AS b",
                    json_int_list(d, "?3"),
                    json_int_list(d, "?4"),
                    blocks::COLUMNS
                ),
                vec![json_array(&los)?, json_array(&his)?],
            )
        }
    };
    let mut args = vec![Value::Integer(sid), Value::Integer(i64::from(level))];
    args.extend(lists.into_iter().map(Value::Text));
    let mut stmt = c.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(args), |r| {
        Ok((r.get(0)?, blocks::from_row(r, 1)?))
    })?;
    let mut found: Vec<(i64, Block)> = rows.collect::<Result<_, _>>()?;
    found.sort_by_key(|(block, _)| *block);
    Ok(found)
}

/// For each timestamp of `times`, the step of the first point (in reading order) of series
/// `sid` at or after it, when there is one: one probe of `metric_points_by_time` each.
/// On a series whose timestamps never decrease as steps grow, that is the first point of
/// the column starting there.
fn locate(c: &Conn, sid: i64, times: &[i64]) -> Result<Vec<(i64, i64)>, Error> {
    let d = c.engine();
    let sql = format!(
        "SELECT t.ts, (SELECT step FROM metric_points
                        WHERE series_id = ?1 AND timestamp >= t.ts
                        ORDER BY timestamp, step LIMIT 1)
           FROM {} AS t",
        match d {
            Engine::Sqlite => "(SELECT value AS ts FROM json_each(?2))".to_owned(),
            Engine::Postgres => format!("(SELECT unnest(ARRAY{}) AS ts)", json_int_list(d, "?2")),
        }
    );
    let mut stmt = c.prepare_cached(&sql)?;
    let rows = stmt.query_map(
        params_from_iter([Value::Integer(sid), Value::Text(json_array(times)?)]),
        |r| {
            let found: (i64, Option<i64>) = (r.get(0)?, r.get(1)?);
            Ok(found)
        },
    )?;
    let mut found = Vec::with_capacity(times.len());
    for row in rows {
        if let (ts, Some(step)) = row? {
            found.push((ts, step));
        }
    }
    Ok(found)
}

/// Ascending numbers as runs of consecutive ones, `(first, last)`.
fn runs_of(numbers: &[i64]) -> Vec<(i64, i64)> {
    let mut runs: Vec<(i64, i64)> = Vec::new();
    for &n in numbers {
        match runs.last_mut() {
            Some(run) if run.1 + 1 == n => run.1 = n,
            _ => runs.push((n, n)),
        }
    }
    runs
}

/// The points of series `sid` in the step ranges `ranges` (disjoint, ascending), in
/// reading order (step, timestamp, is_nan, value), `per` ranges a statement.
///
/// Several ranges go in as two lists (their starts and their ends) that the statement
/// joins to the points' index, one index range scan each: measured on PostgreSQL, 64
/// ranges written as `step BETWEEN … OR …` took 12 ms (a bitmap of all of them, then a
/// parallel sort), the join of 1,000 ranges 22 ms. The rows come back range by range, in
/// index order; they are sorted here all the same (a stable sort of sorted runs is one
/// pass), since SQL promises no order without ORDER BY, and sorting there cost more.
pub(super) fn read_ranges(
    c: &Conn,
    sid: i64,
    ranges: &[(i64, i64)],
    per: usize,
) -> Result<Vec<json::SeriesPoint>, Error> {
    let mut stored: Vec<(i64, i64, bool, f64)> = Vec::new();
    for batch in ranges.chunks(per.max(1)) {
        let (sql, args) = match batch {
            [(lo, hi)] => (
                POINTS_BY_STEP.to_owned(),
                vec![
                    Value::Integer(sid),
                    Value::Integer(*lo),
                    Value::Integer(*hi),
                ],
            ),
            _ => {
                let sql = points_in_ranges(c.engine());
                let los: Vec<i64> = batch.iter().map(|r| r.0).collect();
                let his: Vec<i64> = batch.iter().map(|r| r.1).collect();
                let args = vec![
                    Value::Integer(sid),
                    Value::Text(json_array(&los)?),
                    Value::Text(json_array(&his)?),
                ];
                (sql, args)
            }
        };
        let mut stmt = c.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(args))?;
        while let Some(r) = rows.next()? {
            stored.push((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?));
        }
    }
    stored.sort_by(|a, b| {
        (a.0, a.1, a.2)
            .cmp(&(b.0, b.1, b.2))
            .then(a.3.total_cmp(&b.3))
    });
    Ok(stored
        .into_iter()
        .map(|(step, timestamp, is_nan, value)| json::SeriesPoint {
            step,
            timestamp,
            value: json::F64(from_stored(is_nan, value)),
        })
        .collect())
}

/// The points of series `?1` with steps in any of the ranges whose starts are the JSON
/// list `?2` and whose ends are `?3` (paired in order), unordered.
fn points_in_ranges(d: Engine) -> String {
    match d {
        // A lateral join: one index range scan per range. The LIMIT (no bound in fact)
        // keeps it so in the generic plan too (see `read_blocks`).
        Engine::Postgres => format!(
            "SELECT p.step, p.timestamp, p.is_nan, p.value
               FROM unnest(ARRAY{}, ARRAY{}) AS r(lo, hi)
               CROSS JOIN LATERAL (
                 SELECT step, timestamp, is_nan, value FROM metric_points
                  WHERE series_id = ?1 AND step BETWEEN r.lo AND r.hi
                  LIMIT 9223372036854775807) AS p",
            json_int_list(d, "?2"),
            json_int_list(d, "?3")
        ),
        // json_each's `key` is the index into either list.
        Engine::Sqlite => "SELECT p.step, p.timestamp, p.is_nan, p.value
               FROM json_each(?2) AS l JOIN json_each(?3) AS h ON h.key = l.key
               JOIN metric_points AS p
                 ON p.series_id = ?1 AND p.step BETWEEN l.value AND h.value"
            .to_owned(),
    }
}
