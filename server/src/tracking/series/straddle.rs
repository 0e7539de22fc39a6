//! A block that straddles one pixel-column boundary, settled without reading its way down
//! to the boundary level by level when its summary already says all a chart needs of it.
//! Pure: no SQL here (the walk that reads is `cover`).
//!
//! A straddling block splits at the boundary into a left part (the end of one column) and
//! a right part (the start of the next). Each of its summary's points (first, last,
//! minimum, maximum, first NaN, +inf, -inf) is also that point of the part it lies in:
//! the block's maximum, when it lies in the left part, is the left part's maximum. What
//! the summary leaves open is the other part's extreme, first or last point:
//!
//! - an extreme: the other part's maximum is at most the block's (below it, for the left
//!   part, which comes first). When that bound loses to a maximum already known in the
//!   column (strictly for the right part: at the start of its column, it would win a tie),
//!   the part's maximum cannot be the column's and is not needed. Likewise the minimum.
//!   The known extremes only grow as the walk goes on, so a decision stays right.
//! - the left part's last and the right part's first finite point: they lie next to the
//!   boundary, and the lowest-level chunks on either side of it (`chunks`) hold them when
//!   the series has points there.
//! - a first NaN or infinity in the left part leaves the right part's open: such a block
//!   is refined.
//!
//! On a noisy series most boundaries settle one or two levels down instead of at the
//! lowest level (the walk's cost per boundary grew with the series' depth); on a smooth
//! monotone one the extremes sit at the boundary and the walk goes down as before.

use api_types as json;

use super::block::{point_order, Block, MIN_LEVEL};

/// The largest and smallest finite values known so far in each column: values of points
/// the reducer is given.
pub(super) struct Known {
    max: Vec<f64>,
    min: Vec<f64>,
}

impl Known {
    /// Nothing known yet, over `width` columns.
    pub(super) fn new(width: u32) -> Self {
        let w = width as usize;
        Known {
            max: vec![f64::NEG_INFINITY; w],
            min: vec![f64::INFINITY; w],
        }
    }

    /// `p`, a point of column `col`, is given to the reducer.
    pub(super) fn add(&mut self, col: u32, p: &json::SeriesPoint) {
        let v = p.value.0;
        if !v.is_finite() {
            return;
        }
        let i = col as usize;
        if v > self.max[i] {
            self.max[i] = v;
        }
        if v < self.min[i] {
            self.min[i] = v;
        }
    }
}

/// A block straddling the boundary between column `col` (its points below `split`) and
/// column `col + 1` (its points from `split`), by step on the step axis and by timestamp on
/// a time axis. A series charted by time has timestamps that never decrease as steps grow,
/// so there too the left part's points come first in reading order.
#[derive(Clone, Copy)]
pub(super) struct Straddle {
    /// The block's number at `level`.
    pub block: i64,
    /// Its level.
    pub level: u32,
    /// Its summary.
    pub summary: Block,
    /// The right part's first step, or on a time axis its first timestamp.
    pub split: i64,
    /// Whether `split` is a timestamp.
    pub by_time: bool,
    /// The step of the right part's first point: `split` on the step axis; on a time axis
    /// a guess ([`Straddle::guess`]) or what the timestamp's index says (`cover`).
    pub at: Option<i64>,
    /// The left part's column.
    pub col: u32,
}

impl Straddle {
    /// Whether `p`, a point of the block, lies in the right part.
    fn right(&self, p: &json::SeriesPoint) -> bool {
        let x = if self.by_time { p.timestamp } else { p.step };
        x >= self.split
    }

    /// On a time axis, a guess at [`Straddle::at`]: the step where the split falls if the
    /// block's timestamps grow evenly from its first to its last point (as a training loop
    /// that logs at a steady pace gives). [`Straddle::parts`] finds out whether the chunks
    /// there hold the boundary.
    pub(super) fn guess(&self) -> Option<i64> {
        let (first, last) = (self.summary.first?, self.summary.last?);
        let steps = i128::from(last.step) - i128::from(first.step);
        let time = i128::from(last.timestamp) - i128::from(first.timestamp);
        if time <= 0 {
            return Some(first.step);
        }
        let ahead = i128::from(self.split) - i128::from(first.timestamp);
        // Rounded up: the first step at or after the split's time.
        let off = (ahead * steps + time - 1).div_euclid(time).clamp(0, steps);
        i64::try_from(i128::from(first.step) + off).ok()
    }

    /// The summary's points, each with the column of the part it lies in.
    pub(super) fn known(&self) -> impl Iterator<Item = (u32, json::SeriesPoint)> + '_ {
        self.summary
            .samples()
            .map(|p| (self.col + u32::from(self.right(&p)), p))
    }

    /// Whether the summary and the extremes `known` settle the block but for the two
    /// points next to the boundary (see the module's notes).
    pub(super) fn settles(&self, known: &Known) -> bool {
        let s = &self.summary;
        let left = |p: &Option<json::SeriesPoint>| p.is_some_and(|p| !self.right(&p));
        if left(&s.nan) || left(&s.pinf) || left(&s.ninf) {
            return false;
        }
        let (Some(first), Some(last), Some(min), Some(max)) = (s.first, s.last, s.min, s.max)
        else {
            // No finite point: nothing else to settle.
            return true;
        };
        if self.right(&first) || !self.right(&last) {
            // Finite points on one side only: the summary's are that side's.
            return true;
        }
        let (l, r) = (self.col as usize, self.col as usize + 1);
        let max_ok = if !self.right(&max) {
            max.value.0 < known.max[r]
        } else {
            max.value.0 <= known.max[l]
        };
        let min_ok = if !self.right(&min) {
            min.value.0 > known.min[r]
        } else {
            min.value.0 >= known.min[l]
        };
        max_ok && min_ok
    }

    /// The lowest-level blocks whose chunks hold the points next to the boundary when
    /// [`Straddle::at`] is right: those of the steps before and at it (none while it is
    /// not known).
    pub(super) fn chunks(&self) -> Option<[i64; 2]> {
        self.at.map(|at| [(at - 1) >> MIN_LEVEL, at >> MIN_LEVEL])
    }

    /// The points that stand in for the left and the right part (each in reading order,
    /// each point once), given the chunks of [`Straddle::chunks`] (`chunk(b)`, when it
    /// exists); `None` when a point next to the boundary is not in them (no chunk, or no
    /// finite point of the part in it).
    pub(super) fn parts<'a>(
        &self,
        chunk: impl Fn(i64) -> Option<&'a [json::SeriesPoint]>,
    ) -> Option<[Vec<json::SeriesPoint>; 2]> {
        let mut parts: [Vec<json::SeriesPoint>; 2] = [Vec::new(), Vec::new()];
        for (col, p) in self.known() {
            parts[(col - self.col) as usize].push(p);
        }
        let s = &self.summary;
        let finite = |p: &&json::SeriesPoint| p.value.0.is_finite();
        if let (Some(first), Some(last)) = (s.first, s.last) {
            if !self.right(&first) && self.right(&last) {
                // Chunks `lb` and `rb` hold consecutive points in reading order, in which
                // the left part's come first. So when they hold a finite point of each
                // part, the last of the left part's and the first of the right part's in
                // them are the parts' (the boundary lies between, among their points),
                // whether `at` was right or a guess. On a time axis a step logged again
                // later may put points of both parts in one chunk.
                let [lb, rb] = self.chunks()?;
                let before = if lb == rb { None } else { chunk(lb) };
                let at = chunk(rb)?;
                let in_left = |p: &&json::SeriesPoint| !self.right(p) && finite(p);
                let in_right = |p: &&json::SeriesPoint| self.right(p) && finite(p);
                let l = match at.iter().rev().find(in_left) {
                    Some(l) => l,
                    None => before?.iter().rev().find(in_left)?,
                };
                let r = match before.and_then(|b| b.iter().find(in_right)) {
                    Some(r) => r,
                    None => at.iter().find(in_right)?,
                };
                parts[0].push(*l);
                parts[1].push(*r);
            }
        }
        for part in &mut parts {
            part.sort_unstable_by(point_order);
            part.dedup_by(|a, b| point_order(a, b).is_eq());
        }
        Some(parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(step: i64, value: f64) -> json::SeriesPoint {
        json::SeriesPoint {
            step,
            timestamp: step,
            value: json::F64(value),
        }
    }

    fn straddle(points: &[json::SeriesPoint], split: i64) -> Straddle {
        Straddle {
            block: 0,
            level: 8,
            summary: Block::of_points(points).unwrap(),
            split,
            by_time: false,
            at: Some(split),
            col: 0,
        }
    }

    /// The chunk of lowest-level block `b` of `points` (in reading order).
    fn chunk_of(points: &[json::SeriesPoint], b: i64) -> Option<&[json::SeriesPoint]> {
        let (lo, hi) = (b << MIN_LEVEL, ((b + 1) << MIN_LEVEL) - 1);
        let i = points.iter().position(|p| p.step >= lo)?;
        let j = points.iter().rposition(|p| p.step <= hi)?;
        Some(&points[i..=j])
    }

    #[test]
    fn an_extreme_settles_only_when_it_loses_to_a_known_one() {
        // Maximum 9 at step 1 (left), the right part's maximum is 5.
        let points: Vec<_> = [(0, 1.0), (1, 9.0), (2, 5.0), (3, 2.0)]
            .into_iter()
            .map(|(s, v)| pt(s, v))
            .collect();
        let s = straddle(&points, 2);
        let mut known = Known::new(2);
        for (col, p) in s.known() {
            known.add(col, &p);
        }
        assert!(
            !s.settles(&known),
            "the right part's maximum could be its column's"
        );
        known.add(1, &pt(7, 9.0));
        assert!(
            !s.settles(&known),
            "a tie goes to the right part, first in its column"
        );
        known.add(1, &pt(8, 9.5));
        assert!(
            !s.settles(&known),
            "the minimum 1 at step 0 leaves the right one open"
        );
        known.add(1, &pt(9, 0.5));
        assert!(s.settles(&known));
        // The left part's: below the maximum, which is in the right part.
        let s = straddle(&[pt(0, 3.0), pt(1, 1.0), pt(2, 4.0), pt(3, 2.0)], 2);
        let mut known = Known::new(2);
        known.add(0, &pt(-5, 3.9));
        known.add(0, &pt(-4, 1.5));
        known.add(1, &pt(9, 0.5));
        assert!(!s.settles(&known), "the bound 4 is above the column's 3.9");
        known.add(0, &pt(-3, 4.0));
        assert!(
            s.settles(&known),
            "the left part's maximum is below 4, a known one"
        );
    }

    #[test]
    fn a_nan_on_the_left_leaves_the_right_part_open() {
        let s = straddle(&[pt(0, f64::NAN), pt(1, 1.0), pt(2, f64::NAN)], 2);
        assert!(!s.settles(&Known::new(2)));
        let s = straddle(&[pt(0, 1.0), pt(2, f64::NAN), pt(3, f64::NAN)], 2);
        assert!(s.settles(&Known::new(2)), "finite points on the left only");
    }

    #[test]
    fn the_points_next_to_the_boundary_come_from_the_chunks() {
        let points: Vec<_> = (0..128).map(|s| pt(s, (s % 7) as f64)).collect();
        let s = straddle(&points, 70);
        let chunk = |b: i64| chunk_of(&points, b);
        let [l, r] = s.parts(chunk).unwrap();
        assert_eq!(l.last().unwrap().step, 69);
        assert_eq!(r.first().unwrap().step, 70);
        assert!(l.iter().all(|p| p.step < 70) && r.iter().all(|p| p.step >= 70));
        assert!(s.parts(|_| None).is_none(), "no chunk: not settled");
        let sparse = straddle(&[pt(0, 1.0), pt(70, 2.0)], 70);
        let only = [pt(70, 2.0)];
        assert!(
            sparse.parts(|b| (b == 1).then_some(&only[..])).is_none(),
            "the left part's last point is not next to the boundary"
        );
    }

    #[test]
    fn on_a_time_axis_a_step_logged_again_can_end_the_left_part() {
        // Timestamps twice the step; step 64 logged again at 131, after the boundary 130.
        let mut points: Vec<_> = (0..128)
            .map(|s| json::SeriesPoint {
                step: s,
                timestamp: 2 * s + i64::from(s > 64) * 2,
                value: json::F64((s % 5) as f64),
            })
            .collect();
        points.insert(
            65,
            json::SeriesPoint {
                timestamp: 131,
                ..points[64]
            },
        );
        let mut s = straddle(&points, 130);
        s.by_time = true;
        s.at = Some(64);
        let chunk = |b: i64| chunk_of(&points, b);
        let [l, r] = s.parts(chunk).unwrap();
        assert_eq!(l.last().map(|p| (p.step, p.timestamp)), Some((64, 128)));
        assert_eq!(r.first().map(|p| (p.step, p.timestamp)), Some((64, 131)));
        assert!(l.iter().all(|p| p.timestamp < 130) && r.iter().all(|p| p.timestamp >= 130));
        // A guess: the timestamps grow evenly from (0, 0) to (127, 256), so step 65.
        s.at = s.guess();
        assert_eq!(s.at, Some(65));
        assert_eq!(
            s.parts(chunk),
            Some([l, r]),
            "a guess in the boundary's chunk"
        );
        s.at = Some(20);
        assert!(
            s.parts(chunk).is_none(),
            "chunk 0 holds no point of the right part"
        );
        s.at = Some(130);
        assert!(s.parts(chunk).is_none(), "no chunk 2");
        s.at = None;
        assert!(s.parts(chunk).is_none(), "the boundary's step not known");
    }
}
