//! The sample behind `get-history-bulk-interval`, one run at a time, from the run's points
//! streamed in order of (step, timestamp, value).
//!
//! MLflow 3.17.2 splits the `m` points into `n = max_results` buckets as SQL's `NTILE(n)`
//! does (the first `m % n` buckets one point larger; one bucket per point when `m <= n`),
//! keeps each bucket's first point, and puts the run's last point in place of the last
//! bucket's first (appends it when there is room). runlens returns exactly that sample, plus
//! the bucket extremes it hides: a bucket's lowest or highest point that lies outside the
//! values of the sampled points either side of the bucket (a spike that a line through the
//! sample would not show), the farthest out first, at most `ceil(n / 10)` of them. A series
//! without such excursions (a smooth or monotonic curve) gets MLflow's answer point for
//! point; a noisy one gets at most a tenth more points. Memory is `O(n)`, whatever `m`.
//!
//! The points may also come as spans ([`Sampler::push_span`]): a stretch of points inside
//! one bucket, known only by its count and its lowest and highest point (a block summary),
//! which is all the sample needs of the points that are neither a bucket's first nor the
//! run's last.

use std::cmp::Ordering;

use crate::tracking::model::Point;

/// A point and its place in the run's order: exact for a pushed point, the first place of
/// its span for a span's extreme (two of a span are then ordered by [`point_order`]).
#[derive(Debug, Clone, Copy)]
struct Row {
    at: u64,
    point: Point,
}

/// The reading order of two points: (step, timestamp, NaN last, value).
fn point_order(a: &Point, b: &Point) -> Ordering {
    (a.step, a.timestamp, a.value.is_nan())
        .cmp(&(b.step, b.timestamp, b.value.is_nan()))
        .then_with(|| a.value.total_cmp(&b.value))
}

/// The order of two rows in the run (the same row when equal).
fn row_order(a: &Row, b: &Row) -> Ordering {
    a.at.cmp(&b.at)
        .then_with(|| point_order(&a.point, &b.point))
}

/// What one bucket keeps while its points stream past.
#[derive(Debug)]
struct Bucket {
    first: Row,
    last_at: u64,
    low: Option<Row>,
    high: Option<Row>,
}

/// Samples one run's points; feed every point in order with [`Sampler::push`].
#[derive(Debug)]
pub(crate) struct Sampler {
    /// Points in the run (within the requested steps).
    total: u64,
    /// Buckets asked for (`max_results`).
    buckets_wanted: u64,
    /// Points seen so far.
    seen: u64,
    /// Where the next bucket starts.
    next_start: u64,
    buckets: Vec<Bucket>,
    last: Option<Row>,
}

impl Sampler {
    /// A sampler for `total` points (counted beforehand, in the same read transaction)
    /// into at most `max_results` buckets (at least one).
    pub(crate) fn new(total: u64, max_results: usize) -> Self {
        let wanted = u64::try_from(max_results.max(1)).unwrap_or(u64::MAX);
        Sampler {
            total,
            buckets_wanted: wanted,
            seen: 0,
            next_start: 0,
            buckets: Vec::with_capacity(usize::try_from(wanted.min(total)).unwrap_or(0)),
            last: None,
        }
    }

    /// The size of bucket `k` under `NTILE(buckets_wanted)` over `total` points.
    fn bucket_size(&self, k: u64) -> u64 {
        if self.total <= self.buckets_wanted {
            return 1;
        }
        let (q, r) = (
            self.total / self.buckets_wanted,
            self.total % self.buckets_wanted,
        );
        q + u64::from(k < r)
    }

    /// The places in the run's order whose points the sample needs exactly: each bucket's
    /// first and the last.
    pub(crate) fn wanted(&self) -> Vec<u64> {
        let mut at = Vec::new();
        let mut next = 0u64;
        for k in 0..self.buckets_wanted.min(self.total) {
            at.push(next);
            next += self.bucket_size(k);
        }
        at.extend(self.total.checked_sub(1));
        at
    }

    /// The next point in order (points beyond the counted total join the last bucket).
    pub(crate) fn push(&mut self, point: Point) {
        let row = Row {
            at: self.seen,
            point,
        };
        self.seen += 1;
        let room = (self.buckets.len() as u64) < self.buckets_wanted;
        if self.buckets.is_empty() || (row.at == self.next_start && room) {
            let size = self.bucket_size(self.buckets.len() as u64);
            self.next_start = row.at + size;
            self.buckets.push(Bucket {
                first: row,
                last_at: row.at,
                low: None,
                high: None,
            });
        }
        let bucket = self.buckets.last_mut().expect("a bucket was just opened");
        bucket.last_at = row.at;
        if !point.value.is_nan() {
            let v = point.value;
            if bucket.low.is_none_or(|l| v < l.point.value) {
                bucket.low = Some(row);
            }
            if bucket.high.is_none_or(|h| v > h.point.value) {
                bucket.high = Some(row);
            }
        }
        self.last = Some(row);
    }

    /// The next `n` points in order, inside the current bucket (none of them a bucket's
    /// first point nor the run's last), known by their lowest and highest non-NaN point
    /// (the earliest of equal ones).
    pub(crate) fn push_span(&mut self, n: u64, low: Option<Point>, high: Option<Point>) {
        if n == 0 {
            return;
        }
        let at = self.seen;
        self.seen += n;
        debug_assert!(
            self.next_start >= self.seen || self.buckets.len() as u64 >= self.buckets_wanted,
            "a span holds no bucket's first point"
        );
        let Some(bucket) = self.buckets.last_mut() else {
            return;
        };
        bucket.last_at = self.seen - 1;
        if let Some(point) = low.filter(|p| !p.value.is_nan()) {
            if bucket.low.is_none_or(|l| point.value < l.point.value) {
                bucket.low = Some(Row { at, point });
            }
        }
        if let Some(point) = high.filter(|p| !p.value.is_nan()) {
            if bucket.high.is_none_or(|h| point.value > h.point.value) {
                bucket.high = Some(Row { at, point });
            }
        }
    }

    /// MLflow's sample plus the farthest hidden extremes, in order.
    pub(crate) fn finish(self) -> Vec<Point> {
        let Some(last) = self.last else {
            return Vec::new();
        };
        let mut sample: Vec<Row> = self.buckets.iter().map(|b| b.first).collect();
        if sample.last().is_some_and(|r| r.at != last.at) {
            if sample.len() as u64 >= self.buckets_wanted {
                sample.pop();
            }
            sample.push(last);
        }
        // Each bucket's lowest and highest point, by how far it lies outside the line.
        let mut hidden: Vec<(f64, Row)> = Vec::new();
        for b in &self.buckets {
            let (lo, hi) = envelope(&sample, b.first.at, b.last_at);
            let below = b.low.map(|r| (lo - r.point.value, r));
            let above = b.high.map(|r| (r.point.value - hi, r));
            hidden.extend([below, above].into_iter().flatten().filter(|h| h.0 > 0.0));
        }
        hidden.sort_by(|a, b| row_order(&a.1, &b.1));
        hidden.dedup_by(|a, b| row_order(&a.1, &b.1).is_eq());
        hidden.sort_by(|a, b| b.0.total_cmp(&a.0));
        hidden.truncate(extra_budget(self.buckets_wanted));
        let extra: Vec<Row> = hidden
            .into_iter()
            .map(|h| h.1)
            .filter(|r| sample.binary_search_by(|s| row_order(s, r)).is_err())
            .collect();
        sample.extend(extra);
        sample.sort_by(row_order);
        sample.into_iter().map(|r| r.point).collect()
    }
}

/// Most extra points per run: a tenth of `max_results`, rounded up.
fn extra_budget(buckets_wanted: u64) -> usize {
    usize::try_from(buckets_wanted.div_ceil(10)).unwrap_or(usize::MAX)
}

/// The range of values a line through `sample` covers over a bucket spanning `[start, end]`:
/// the values of the last sampled point at or before `start` and of the first at or after
/// `end` (NaN ones ignored; an empty range when both are NaN).
fn envelope(sample: &[Row], start: u64, end: u64) -> (f64, f64) {
    let before = sample.partition_point(|r| r.at <= start);
    let left = before
        .checked_sub(1)
        .map_or(sample.first(), |i| sample.get(i));
    let after = sample.partition_point(|r| r.at < end);
    let right = sample.get(after).or(sample.last());
    let values = [left, right]
        .into_iter()
        .flatten()
        .map(|r| r.point.value)
        .filter(|v| !v.is_nan());
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(values: &[f64], max_results: usize) -> Vec<(i64, f64)> {
        let mut s = Sampler::new(values.len() as u64, max_results);
        for (step, v) in values.iter().enumerate() {
            s.push(Point {
                step: step as i64,
                timestamp: 1,
                value: *v,
            });
        }
        s.finish().into_iter().map(|p| (p.step, p.value)).collect()
    }

    fn steps(values: &[f64], max_results: usize) -> Vec<i64> {
        sample(values, max_results)
            .into_iter()
            .map(|p| p.0)
            .collect()
    }

    #[test]
    fn smooth_series_get_mlflows_ntile_sample() {
        let line: Vec<f64> = (0..1000).map(|i| i as f64 * 0.5).collect();
        // 100 buckets of 10: each bucket's first step, the last bucket's replaced by 999.
        let mut want: Vec<i64> = (0..99).map(|k| k * 10).collect();
        want.push(999);
        assert_eq!(steps(&line, 100), want);
        // 10 points in 3 buckets of 4, 3, 3: firsts 0, 4, 7; 7 gives way to the last.
        assert_eq!(steps(&line[..10], 3), vec![0, 4, 9]);
        // Fewer points than buckets: all of them.
        assert_eq!(steps(&line[..5], 2500), vec![0, 1, 2, 3, 4]);
        // One bucket: MLflow keeps the last point only; its lowest point is hidden then.
        assert_eq!(steps(&line[..5], 1), vec![0, 4]);
        assert_eq!(steps(&[3.0, 3.0, 3.0], 1), vec![2]);
        let flat = vec![1.0; 20_000];
        assert_eq!(sample(&flat, 320).len(), 320);
    }

    #[test]
    fn a_spike_off_the_grid_is_kept_once() {
        let mut values = vec![1.0; 20_000];
        values[7_777] = 100.0;
        values[12_345] = -5.0;
        let got = sample(&values, 320);
        let odd: Vec<_> = got.iter().filter(|p| p.1 != 1.0).copied().collect();
        assert_eq!(odd, vec![(7_777, 100.0), (12_345, -5.0)]);
        assert_eq!(got.len(), 322);
        // The 318 buckets without an excursion add nothing.
        let mut flat = vec![1.0; 20_000];
        flat[7_777] = f64::NAN;
        assert_eq!(sample(&flat, 320).len(), 320);
    }

    #[test]
    fn noise_adds_at_most_a_tenth_keeping_the_farthest() {
        let noise: Vec<f64> = (0..10_000).map(|i| ((i * 7919) % 1000) as f64).collect();
        let got = sample(&noise, 100);
        assert_eq!(got.len(), 110);
        assert!(got.windows(2).all(|w| w[0].0 < w[1].0));
        // MLflow's 100 (steps 0, 100, .., 9800, 9999), and the ten farthest-out extremes.
        let extra: Vec<f64> = got
            .iter()
            .filter(|p| p.0 % 100 != 0 && p.0 != 9999)
            .map(|p| p.1)
            .collect();
        assert_eq!(extra.len(), 10);
        assert!(extra.iter().all(|v| *v < 10.0 || *v > 989.0), "{extra:?}");
    }

    #[test]
    fn nan_and_infinities() {
        // Between two NaN samples any number is hidden.
        let mut values = vec![f64::NAN; 50];
        values[33] = 2.0;
        assert!(sample(&values, 5).contains(&(33, 2.0)));
        // An infinity is farthest out of all.
        let mut values = vec![1.0; 50];
        values[12] = 50.0;
        values[34] = f64::INFINITY;
        let got = sample(&values, 5);
        assert!(got.contains(&(34, f64::INFINITY)), "{got:?}");
        assert!(!got.contains(&(12, 50.0)), "{got:?}");
        assert!(sample(&[], 10).is_empty());
    }
}
