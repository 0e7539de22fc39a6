//! The summary of a block of a series' points (a row of `metric_summaries`): enough to stand
//! in for the points in the M4 reducer whenever they all fall into one pixel column. Pure:
//! no SQL here.
//!
//! Block `b` at level `k` holds the points with `step >> k == b`. The levels are every
//! second power of two from 2^6 to 2^20 steps: four blocks of a level make one of the next,
//! so a chart can always read blocks at a level with one to four blocks per pixel column
//! (and refine the few blocks that straddle a column boundary four blocks at a time). The
//! lowest level, 64 steps, bounds what a straddling block costs in points; the highest,
//! about a million steps, serves charts up to four billion steps wide at 1,000 px with
//! at most four blocks a column (wider ones read more blocks, never more than exist).
//!
//! A series keeps summaries only up to its top level ([`top_level`]): the lowest level
//! whose one block holds all its points. Above it every level would hold that same one
//! block again, so a short series (a metric logged once, or for a few hundred steps)
//! writes one or two summaries instead of eight; a write that reaches further steps adds
//! the levels the series grows into.

use std::cmp::Ordering;

use api_types as json;

/// The levels (block sizes as powers of two, in steps), lowest first.
pub(crate) const LEVELS: [u32; 8] = [6, 8, 10, 12, 14, 16, 18, 20];

/// The lowest level.
pub(crate) const MIN_LEVEL: u32 = LEVELS[0];

/// Levels grow by this many powers of two (a block is four of the level below).
pub(crate) const LEVEL_STEP: u32 = 2;

/// The level whose blocks are one to four a pixel column when a column spans
/// `steps_per_column` steps (the highest level when even its blocks are narrower), or
/// `None` when a column spans fewer steps than the lowest level's blocks.
pub(crate) fn level_for(steps_per_column: f64) -> Option<u32> {
    LEVELS
        .iter()
        .copied()
        .take_while(|k| (1u64 << k) as f64 <= steps_per_column)
        .last()
}

/// The top level of a series whose steps span `steps` (smallest, largest): the lowest level
/// with one block holding them all, or the highest level when none does (steps on both
/// sides of zero, or more than a highest-level block apart). The series' summaries exist
/// at this level and every level below it, and nowhere above.
pub(crate) fn top_level((lo, hi): (i64, i64)) -> u32 {
    LEVELS
        .iter()
        .copied()
        .find(|k| lo >> k == hi >> k)
        .unwrap_or(LEVELS[LEVELS.len() - 1])
}

/// The order a chart reads points in (`ORDER BY step, timestamp, is_nan, value`), NaN
/// stored as `(is_nan = 1, value = 0)`.
pub(crate) fn point_order(a: &json::SeriesPoint, b: &json::SeriesPoint) -> Ordering {
    let stored = |p: &json::SeriesPoint| {
        let v = p.value.0;
        if v.is_nan() {
            (1u8, 0.0)
        } else {
            (0u8, v)
        }
    };
    let (an, av) = stored(a);
    let (bn, bv) = stored(b);
    (a.step, a.timestamp, an)
        .cmp(&(b.step, b.timestamp, bn))
        .then_with(|| av.partial_cmp(&bv).unwrap_or(Ordering::Equal))
}

/// A block's summary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Block {
    /// Points in the block (each re-logged point counts).
    pub n: u64,
    /// Smallest and largest step.
    pub steps: (i64, i64),
    /// Oldest and newest timestamp.
    pub times: (i64, i64),
    /// First finite point in reading order.
    pub first: Option<json::SeriesPoint>,
    /// Last finite point in reading order.
    pub last: Option<json::SeriesPoint>,
    /// Smallest finite value, the earliest of equal ones.
    pub min: Option<json::SeriesPoint>,
    /// Largest finite value, the earliest of equal ones.
    pub max: Option<json::SeriesPoint>,
    /// First NaN point.
    pub nan: Option<json::SeriesPoint>,
    /// First +inf point.
    pub pinf: Option<json::SeriesPoint>,
    /// First -inf point.
    pub ninf: Option<json::SeriesPoint>,
}

impl Block {
    /// The block of one point.
    pub(crate) fn of(p: json::SeriesPoint) -> Self {
        let v = p.value.0;
        let finite = v.is_finite().then_some(p);
        Block {
            n: 1,
            steps: (p.step, p.step),
            times: (p.timestamp, p.timestamp),
            first: finite,
            last: finite,
            min: finite,
            max: finite,
            nan: v.is_nan().then_some(p),
            pinf: (v == f64::INFINITY).then_some(p),
            ninf: (v == f64::NEG_INFINITY).then_some(p),
        }
    }

    /// The summary of this block's points and `other`'s together (the two hold different
    /// points).
    pub(crate) fn merge(&self, other: &Block) -> Block {
        let earliest = |a, b| pick(a, b, |x, y| point_order(x, y).is_le());
        let value = |p: &json::SeriesPoint| p.value.0;
        Block {
            n: self.n + other.n,
            steps: (
                self.steps.0.min(other.steps.0),
                self.steps.1.max(other.steps.1),
            ),
            times: (
                self.times.0.min(other.times.0),
                self.times.1.max(other.times.1),
            ),
            first: earliest(self.first, other.first),
            last: pick(self.last, other.last, |x, y| point_order(x, y).is_ge()),
            min: pick(self.min, other.min, |x, y| {
                value(x) < value(y) || (value(x) == value(y) && point_order(x, y).is_le())
            }),
            max: pick(self.max, other.max, |x, y| {
                value(x) > value(y) || (value(x) == value(y) && point_order(x, y).is_le())
            }),
            nan: earliest(self.nan, other.nan),
            pinf: earliest(self.pinf, other.pinf),
            ninf: earliest(self.ninf, other.ninf),
        }
    }

    /// The summary of `points` (at least one).
    #[cfg(test)]
    pub(crate) fn of_points(points: &[json::SeriesPoint]) -> Option<Block> {
        let (head, tail) = points.split_first()?;
        Some(
            tail.iter()
                .fold(Block::of(*head), |b, p| b.merge(&Block::of(*p))),
        )
    }

    /// The points that stand in for the block in the reducer, in reading order, each once.
    /// On the stack: a chart of 10,000,000 points passes about 12,000 summaries here.
    pub(crate) fn samples(&self) -> impl Iterator<Item = json::SeriesPoint> {
        let mut out = [
            self.first, self.last, self.min, self.max, self.nan, self.pinf, self.ninf,
        ];
        // The points first, in reading order; the absent ones last.
        out.sort_unstable_by(|a, b| match (a, b) {
            (Some(a), Some(b)) => point_order(a, b),
            (a, b) => b.is_some().cmp(&a.is_some()),
        });
        for i in 1..out.len() {
            if let (Some(prev), Some(p)) = (out[i - 1], out[i]) {
                if point_order(&prev, &p).is_eq() {
                    out[i - 1] = None;
                }
            }
        }
        out.into_iter().flatten()
    }
}

/// The stored form of a [`Block`] could not be read.
#[derive(Debug, thiserror::Error)]
#[error("a stored block summary is malformed ({0})")]
pub(crate) struct Malformed(&'static str);

/// The first byte of a summary in [`Block::encode`]'s form. (Migration 9 writes format 1
/// on its own, `store/repack.rs`: a new format needs a new number and a migration.)
const FORMAT: u8 = 1;

impl Block {
    /// The summary as one value (a row of `metric_summaries` holds it in one column: a
    /// chart reads thousands of them, and one column costs the database far less to hand
    /// over than the 23 a summary has). Big-endian: a format byte; a byte whose bits say
    /// which of first, last, min, max, NaN, +inf and -inf are present; `n`; the step and
    /// time extents; then step, timestamp and value of each present finite point and step
    /// and timestamp of each present non-finite one (its value is implied), in that order.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let full = [self.first, self.last, self.min, self.max];
        let odd = [self.nan, self.pinf, self.ninf];
        let mut present = 0u8;
        for (i, p) in full.iter().chain(&odd).enumerate() {
            if p.is_some() {
                present |= 1 << i;
            }
        }
        let mut out = Vec::with_capacity(2 + 5 * 8 + 4 * 24 + 3 * 16);
        out.extend([FORMAT, present]);
        out.extend(self.n.to_be_bytes());
        for v in [self.steps.0, self.steps.1, self.times.0, self.times.1] {
            out.extend(v.to_be_bytes());
        }
        for p in full.iter().flatten() {
            out.extend(p.step.to_be_bytes());
            out.extend(p.timestamp.to_be_bytes());
            out.extend(p.value.0.to_bits().to_be_bytes());
        }
        for p in odd.iter().flatten() {
            out.extend(p.step.to_be_bytes());
            out.extend(p.timestamp.to_be_bytes());
        }
        out
    }

    /// The summary [`Block::encode`] gave `bytes`.
    pub(crate) fn decode(bytes: &[u8]) -> Result<Block, Malformed> {
        let mut r = Bytes(bytes);
        let [format, present] = r.take::<2>()?;
        if format != FORMAT {
            return Err(Malformed("unknown format"));
        }
        if present & 0x80 != 0 {
            return Err(Malformed("unknown flags"));
        }
        let n = u64::from_be_bytes(r.take()?);
        let steps = (r.int()?, r.int()?);
        let times = (r.int()?, r.int()?);
        let mut full = [None; 4];
        for (i, slot) in full.iter_mut().enumerate() {
            if present & (1 << i) != 0 {
                let (step, timestamp) = (r.int()?, r.int()?);
                let value = f64::from_bits(u64::from_be_bytes(r.take()?));
                *slot = Some(json::SeriesPoint {
                    step,
                    timestamp,
                    value: json::F64(value),
                });
            }
        }
        let mut odd = [None; 3];
        let implied = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
        for (i, (slot, value)) in odd.iter_mut().zip(implied).enumerate() {
            if present & (1 << (4 + i)) != 0 {
                let (step, timestamp) = (r.int()?, r.int()?);
                *slot = Some(json::SeriesPoint {
                    step,
                    timestamp,
                    value: json::F64(value),
                });
            }
        }
        if !r.0.is_empty() {
            return Err(Malformed("too long"));
        }
        let [first, last, min, max] = full;
        let [nan, pinf, ninf] = odd;
        Ok(Block {
            n,
            steps,
            times,
            first,
            last,
            min,
            max,
            nan,
            pinf,
            ninf,
        })
    }
}

/// What is left to read of an encoded summary.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], Malformed> {
        let (head, tail) = self
            .0
            .split_first_chunk::<N>()
            .ok_or(Malformed("too short"))?;
        self.0 = tail;
        Ok(*head)
    }

    fn int(&mut self) -> Result<i64, Malformed> {
        self.take().map(i64::from_be_bytes)
    }
}

/// `a` or `b`, whichever is present; `a` when both are and `a_wins(a, b)`.
fn pick(
    a: Option<json::SeriesPoint>,
    b: Option<json::SeriesPoint>,
    a_wins: impl Fn(&json::SeriesPoint, &json::SeriesPoint) -> bool,
) -> Option<json::SeriesPoint> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if a_wins(&a, &b) { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// Groups summaries `(block, summary)` sorted by block into the next level's blocks.
pub(crate) fn next_level(blocks: &[(i64, Block)]) -> Vec<(i64, Block)> {
    let mut out: Vec<(i64, Block)> = Vec::new();
    for (b, s) in blocks {
        let up = b >> LEVEL_STEP;
        match out.last_mut() {
            Some((last, acc)) if *last == up => *acc = acc.merge(s),
            _ => out.push((up, *s)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(step: i64, timestamp: i64, value: f64) -> json::SeriesPoint {
        json::SeriesPoint {
            step,
            timestamp,
            value: json::F64(value),
        }
    }

    #[test]
    fn levels_give_one_to_four_blocks_a_column() {
        assert_eq!(level_for(63.9), None);
        assert_eq!(level_for(64.0), Some(6));
        assert_eq!(level_for(255.0), Some(6));
        assert_eq!(level_for(256.0), Some(8));
        assert_eq!(level_for(10_000.0), Some(12));
        assert_eq!(level_for(1e12), Some(20));
    }

    #[test]
    fn merge_keeps_the_earliest_of_equal_extremes_in_any_order() {
        let pts = [
            pt(5, 1, 2.0),
            pt(3, 9, 7.0),
            pt(3, 2, 7.0),
            pt(9, 0, -1.0),
            pt(1, 0, -1.0),
            pt(4, 4, f64::NAN),
            pt(2, 4, f64::INFINITY),
            pt(8, 4, f64::NEG_INFINITY),
        ];
        let b = Block::of_points(&pts).unwrap();
        let mut rev = pts;
        rev.reverse();
        // Debug, not ==: NaN is not equal to itself.
        assert_eq!(
            format!("{:?}", Block::of_points(&rev)),
            format!("{:?}", Some(b))
        );
        assert_eq!(b.n, 8);
        assert_eq!((b.steps, b.times), ((1, 9), (0, 9)));
        assert_eq!(b.first, Some(pt(1, 0, -1.0)));
        assert_eq!(b.last, Some(pt(9, 0, -1.0)));
        assert_eq!(b.min, Some(pt(1, 0, -1.0)));
        assert_eq!(b.max, Some(pt(3, 2, 7.0)));
        assert_eq!(b.pinf, Some(pt(2, 4, f64::INFINITY)));
        assert_eq!(b.nan.map(|p| p.step), Some(4));
        assert_eq!(b.ninf.map(|p| p.step), Some(8));
        let steps: Vec<i64> = b.samples().map(|p| p.step).collect();
        assert_eq!(steps, vec![1, 2, 3, 4, 8, 9]);
    }

    #[test]
    fn a_summary_reads_back_as_it_was_stored() {
        let pts = [
            pt(-5, 1, 2.5),
            pt(3, -9, -7.0),
            pt(4, 4, f64::NAN),
            pt(i64::MAX, i64::MIN, f64::INFINITY),
            pt(8, 4, f64::NEG_INFINITY),
            pt(9, 2, -0.0),
        ];
        let blocks = [
            Block::of_points(&pts).unwrap(),
            Block::of_points(&pts[..2]).unwrap(),
            Block::of(pt(1, 1, f64::NAN)),
            Block::of(pt(1, 1, f64::MIN_POSITIVE)),
        ];
        for b in blocks {
            let bytes = b.encode();
            // Debug, not ==: NaN is not equal to itself (and -0.0 is equal to 0.0).
            let back = Block::decode(&bytes).unwrap();
            assert_eq!(format!("{back:?}"), format!("{b:?}"));
            assert_eq!(
                back.max.map(|p| p.value.0.to_bits()),
                b.max.map(|p| p.value.0.to_bits())
            );
            for cut in [0, 1, 2, 9, bytes.len() - 1] {
                assert!(Block::decode(&bytes[..cut]).is_err(), "{cut} bytes");
            }
            let mut long = bytes.clone();
            long.push(0);
            assert!(Block::decode(&long).is_err());
            let mut other = bytes;
            other[0] = 2;
            assert!(Block::decode(&other).is_err());
        }
        assert_eq!(
            Block::of_points(&pts[..2]).unwrap().encode().len(),
            2 + 40 + 4 * 24
        );
    }

    #[test]
    fn the_top_level_is_the_lowest_with_one_block() {
        assert_eq!(top_level((0, 0)), 6);
        assert_eq!(top_level((0, 63)), 6);
        assert_eq!(top_level((0, 64)), 8);
        assert_eq!(top_level((64, 255)), 8);
        assert_eq!(top_level((0, 999)), 10);
        assert_eq!(top_level((1_024, 1_100)), 8);
        assert_eq!(top_level((1_000, 1_100)), 12);
        assert_eq!(top_level((0, (1 << 20) - 1)), 20);
        assert_eq!(top_level((0, 1 << 20)), 20);
        assert_eq!(top_level((-1, 0)), 20);
        assert_eq!(top_level((-64, -1)), 6);
        assert_eq!(top_level((i64::MIN, i64::MAX)), 20);
    }

    #[test]
    fn next_level_merges_four_blocks() {
        let blocks: Vec<(i64, Block)> = (0..9)
            .map(|i| (i, Block::of(pt(i * 64, 0, i as f64))))
            .collect();
        let up = next_level(&blocks);
        assert_eq!(
            up.iter().map(|(b, s)| (*b, s.n)).collect::<Vec<_>>(),
            vec![(0, 4), (1, 4), (2, 1)]
        );
        assert_eq!(up[1].1.max, Some(pt(7 * 64, 0, 7.0)));
    }
}
