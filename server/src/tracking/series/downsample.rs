//! M4 downsampling of a metric series for a chart of `width` pixel columns: per column keep
//! the first, last, minimum and maximum finite points, so the polyline drawn through the
//! kept points covers exactly the pixels that the polyline through every point covers.
//! Pure: points come in sorted by x, reduced points go out; no SQL here.

use api_types as json;

use crate::Error;

/// The widest chart the server reduces for.
pub(crate) const MAX_WIDTH: u32 = 10_000;

/// Pixel columns over an x range: `width` equal columns covering `[x_min, x_max]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    width: u32,
    x_min: f64,
    x_max: f64,
}

impl Viewport {
    /// Checks the request: `1 <= width <= 10000`, finite bounds, `x_min <= x_max`.
    pub fn new(width: u32, x_min: f64, x_max: f64) -> Result<Self, Error> {
        if !(1..=MAX_WIDTH).contains(&width) {
            return Err(Error::InvalidParameter(format!(
                "width must be between 1 and {MAX_WIDTH}, got {width}"
            )));
        }
        if !x_min.is_finite() || !x_max.is_finite() {
            return Err(Error::InvalidParameter(
                "x_min and x_max must be finite numbers".into(),
            ));
        }
        if x_min > x_max {
            return Err(Error::InvalidParameter(format!(
                "x_min ({x_min}) must not be greater than x_max ({x_max})"
            )));
        }
        Ok(Viewport {
            width,
            x_min,
            x_max,
        })
    }

    /// Pixel columns.
    pub(crate) fn width(&self) -> u32 {
        self.width
    }

    /// Lower bound of the range.
    pub(crate) fn x_min(&self) -> f64 {
        self.x_min
    }

    /// Upper bound of the range.
    pub(crate) fn x_max(&self) -> f64 {
        self.x_max
    }

    /// The column of `x`, or `None` when `x` lies outside the range.
    pub(crate) fn column(&self, x: f64) -> Option<u32> {
        if !(self.x_min..=self.x_max).contains(&x) {
            return None;
        }
        let span = self.x_max - self.x_min;
        if span <= 0.0 {
            return Some(0);
        }
        let col = ((x - self.x_min) / span * f64::from(self.width)).floor();
        // x == x_max lands on `width`; it belongs to the last column.
        Some((col as u32).min(self.width - 1))
    }
}

/// What the reducer keeps: a point with a y value (the series' points, or a point paired
/// with another metric's value as its x).
pub(crate) trait Sample: Copy {
    /// The value compared for the column's minimum and maximum.
    fn y(&self) -> f64;
}

impl Sample for json::SeriesPoint {
    fn y(&self) -> f64 {
        self.value.0
    }
}

/// The reduced series.
#[derive(Debug, Clone, PartialEq)]
pub struct Reduction<P> {
    /// Finite points kept, in input order.
    pub points: Vec<P>,
    /// Non-finite points kept (first NaN, +inf and -inf of each column), in input order.
    pub non_finite: Vec<P>,
    /// Points pushed that fell inside the range (finite or not).
    pub in_range: u64,
}

impl<P> Default for Reduction<P> {
    fn default() -> Self {
        Reduction {
            points: Vec::new(),
            non_finite: Vec::new(),
            in_range: 0,
        }
    }
}

/// A reduced series of plain points.
pub(crate) type Reduced = Reduction<json::SeriesPoint>;

/// A point remembered with its position in the input, so a column's picks keep input order.
type Seen<P> = Option<(u64, P)>;

/// Streaming M4 reducer: push points sorted by x, then [`Reducer::finish`]. Memory is
/// proportional to the output, not to the input.
#[derive(Debug)]
pub(crate) struct Reducer<P> {
    view: Viewport,
    column: Option<u32>,
    seq: u64,
    /// first, last, min, max finite points of the current column.
    picks: [Seen<P>; 4],
    /// first NaN, +inf, -inf of the current column.
    odd: [Seen<P>; 3],
    out: Reduction<P>,
}

/// The reducer of plain points.
pub(crate) type M4 = Reducer<json::SeriesPoint>;

impl<P: Sample> Reducer<P> {
    /// A reducer for `view`.
    pub(crate) fn new(view: Viewport) -> Self {
        Reducer {
            view,
            column: None,
            seq: 0,
            picks: [None; 4],
            odd: [None; 3],
            out: Reduction::default(),
        }
    }

    /// Adds the next point, whose position on the x axis is `x`. Points outside the
    /// viewport are ignored.
    pub(crate) fn push(&mut self, x: f64, p: P) {
        if self.sample(x, p) {
            self.out.in_range += 1;
        }
    }

    /// Adds a summary of `count` points that all lie in one column of the viewport:
    /// `samples`, `(x, point)` in x order, are the points among them that can be a
    /// column's first, last, minimum, maximum or first NaN, +inf or -inf (the others cannot
    /// change the output). The output is the same as pushing all `count` points.
    pub(crate) fn push_summary(&mut self, samples: impl IntoIterator<Item = (f64, P)>, count: u64) {
        let mut any = false;
        for (x, p) in samples {
            any |= self.sample(x, p);
        }
        if any {
            self.out.in_range += count;
        }
    }

    /// Remembers `p` at `x` when it can matter; false when `x` lies outside the viewport.
    fn sample(&mut self, x: f64, p: P) -> bool {
        let Some(col) = self.view.column(x) else {
            return false;
        };
        if self.column != Some(col) {
            self.flush();
            self.column = Some(col);
        }
        self.seq += 1;
        let seen = Some((self.seq, p));
        let v = p.y();
        if v.is_nan() {
            self.odd[0].get_or_insert((self.seq, p));
        } else if v == f64::INFINITY {
            self.odd[1].get_or_insert((self.seq, p));
        } else if v == f64::NEG_INFINITY {
            self.odd[2].get_or_insert((self.seq, p));
        } else {
            let [first, last, min, max] = &mut self.picks;
            first.get_or_insert((self.seq, p));
            *last = seen;
            // Strict comparisons keep the earliest of equal extremes.
            if min.is_none_or(|(_, m)| v < m.y()) {
                *min = seen;
            }
            if max.is_none_or(|(_, m)| v > m.y()) {
                *max = seen;
            }
        }
        true
    }

    /// Ends the input and returns the reduced series.
    pub(crate) fn finish(mut self) -> Reduction<P> {
        self.flush();
        self.out
    }

    /// Emits the current column's picks in input order, each point once.
    fn flush(&mut self) {
        emit(&mut self.picks, &mut self.out.points);
        emit(&mut self.odd, &mut self.out.non_finite);
    }
}

/// Moves the remembered points into `out`, ordered by input position, without duplicates.
fn emit<P>(seen: &mut [Seen<P>], out: &mut Vec<P>) {
    let mut picked: Vec<(u64, P)> = seen.iter_mut().filter_map(Option::take).collect();
    picked.sort_by_key(|(seq, _)| *seq);
    picked.dedup_by_key(|(seq, _)| *seq);
    out.extend(picked.into_iter().map(|(_, p)| p));
}

/// Reduces points already sorted by x (`(x, point)` pairs) in one call.
pub fn reduce(
    view: Viewport,
    points: impl IntoIterator<Item = (f64, json::SeriesPoint)>,
) -> Reduced {
    let mut m4 = M4::new(view);
    for (x, p) in points {
        m4.push(x, p);
    }
    m4.finish()
}

#[cfg(test)]
mod tests;
