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

use crate::db::{Conn, Stmt};

use super::axis::{read_points_with, Axis, POINTS_BY_STEP};
use super::block::{Block, LEVEL_STEP, MIN_LEVEL};
use super::blocks;
use super::downsample::{Reduced, Viewport, M4};
use crate::Error;

/// A straddling block with at most this many points is read as points, not refined.
const FEW_POINTS: u64 = 1 << MIN_LEVEL;

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
    let mut cover = Cover {
        blocks: blocks::Reader::new(c)?,
        points: c.prepare_cached(POINTS_BY_STEP)?,
        sid,
        axis,
        view,
        steps,
        m4: M4::new(view),
    };
    cover.level(top, steps.0 >> top, steps.1 >> top)?;
    Ok(cover.m4.finish())
}

/// One chart's walk over the blocks, in step order.
struct Cover<'c> {
    blocks: blocks::Reader<'c>,
    points: Stmt<'c>,
    sid: i64,
    axis: Axis,
    view: Viewport,
    steps: (i64, i64),
    m4: M4,
}

impl Cover<'_> {
    /// The blocks `from..=to` of `level` that exist, in order.
    fn level(&mut self, level: u32, from: i64, to: i64) -> Result<(), Error> {
        for (b, s) in self.blocks.read(self.sid, level, from, to)? {
            self.block(level, b, &s)?;
        }
        Ok(())
    }

    fn block(&mut self, level: u32, b: i64, s: &Block) -> Result<(), Error> {
        let (lo, hi) = self.steps;
        if s.steps.1 < lo || s.steps.0 > hi {
            return Ok(());
        }
        let (x_lo, x_hi) = match self.axis {
            Axis::Step => (s.steps.0 as f64, s.steps.1 as f64),
            Axis::Time { .. } => (self.axis.x(0, s.times.0), self.axis.x(0, s.times.1)),
        };
        if x_hi < self.view.x_min() || x_lo > self.view.x_max() {
            return Ok(());
        }
        let column = self.view.column(x_lo);
        let inside = lo <= s.steps.0 && s.steps.1 <= hi;
        let axis = self.axis;
        if inside && column.is_some() && column == self.view.column(x_hi) {
            let samples = s.samples().into_iter();
            self.m4
                .push_summary(samples.map(|p| (axis.x(p.step, p.timestamp), p)), s.n);
            Ok(())
        } else if level <= MIN_LEVEL || s.n <= FEW_POINTS {
            let m4 = &mut self.m4;
            read_points_with(
                &mut self.points,
                self.sid,
                (s.steps.0.max(lo), s.steps.1.min(hi)),
                |p| m4.push(axis.x(p.step, p.timestamp), p),
            )
        } else {
            let first = b << LEVEL_STEP;
            self.level(level - LEVEL_STEP, first, first + (1 << LEVEL_STEP) - 1)
        }
    }
}
