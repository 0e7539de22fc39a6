//! The point nearest to the cursor, pixel ↔ data conversions along x, and the x range a
//! drag selects.

use super::{ChartPoint, DrawInfo};

/// Minimum drag, in CSS pixels, that counts as a zoom.
const MIN_DRAG: f64 = 5.0;

/// Index of the point whose x is nearest to `x` (`points` ordered by x).
pub fn nearest_index(points: &[ChartPoint], x: f64) -> Option<usize> {
    nearest_by(points.len(), |i| points[i].x, x)
}

/// Index of the nearest element of an x-ordered sequence given by `x_at`.
pub fn nearest_by(len: usize, x_at: impl Fn(usize) -> f64, x: f64) -> Option<usize> {
    if len == 0 || !x.is_finite() {
        return None;
    }
    // First index whose x is >= the cursor.
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if x_at(mid) < x {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    match lo {
        0 => Some(0),
        i if i == len => Some(len - 1),
        i if x - x_at(i - 1) <= x_at(i) - x => Some(i - 1),
        i => Some(i),
    }
}

/// Maps a pixel column in `[left, left + width]` to data x in `range`.
pub fn pixel_to_x(px: f64, left: f64, width: f64, range: (f64, f64)) -> f64 {
    if width <= 0.0 {
        return range.0;
    }
    let t = ((px - left) / width).clamp(0.0, 1.0);
    range.0 + t * (range.1 - range.0)
}

/// Maps data x to a pixel column.
pub fn x_to_pixel(x: f64, left: f64, width: f64, range: (f64, f64)) -> f64 {
    let span = range.1 - range.0;
    if span == 0.0 {
        return left + width / 2.0;
    }
    left + (x - range.0) / span * width
}

/// The x range (axis units) of a drag from pixel `a` to `b` over the plot `info`
/// describes, if it is long enough to zoom to.
pub fn drag_range(a: f64, b: f64, info: &DrawInfo) -> Option<(f64, f64)> {
    if (a - b).abs() < MIN_DRAG {
        return None;
    }
    let to_x = |px: f64| pixel_to_x(px, info.left, info.width, info.x_range);
    let (lo, hi) = (to_x(a.min(b)), to_x(a.max(b)));
    (hi > lo).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::scale::YRange;

    fn pts(xs: &[f64]) -> Vec<ChartPoint> {
        xs.iter()
            .map(|&x| ChartPoint {
                x,
                y: 0.0,
                step: x as i64,
                timestamp: 0,
            })
            .collect()
    }

    #[test]
    fn finds_the_nearest_point() {
        let p = pts(&[0.0, 10.0, 20.0, 100.0]);
        assert_eq!(nearest_index(&p, -5.0), Some(0));
        assert_eq!(nearest_index(&p, 4.9), Some(0));
        assert_eq!(nearest_index(&p, 5.1), Some(1));
        assert_eq!(nearest_index(&p, 20.0), Some(2));
        assert_eq!(nearest_index(&p, 61.0), Some(3));
        assert_eq!(nearest_index(&p, 1e9), Some(3));
        assert_eq!(nearest_index(&[], 1.0), None);
        assert_eq!(nearest_index(&p, f64::NAN), None);
    }

    #[test]
    fn pixels_round_trip() {
        let r = (100.0, 300.0);
        let px = x_to_pixel(150.0, 50.0, 400.0, r);
        assert_eq!(px, 150.0);
        assert_eq!(pixel_to_x(px, 50.0, 400.0, r), 150.0);
        assert_eq!(pixel_to_x(0.0, 50.0, 400.0, r), 100.0);
    }

    #[test]
    fn short_drags_do_not_zoom() {
        let info = DrawInfo {
            left: 60.0,
            top: 10.0,
            width: 400.0,
            height: 200.0,
            x_range: (0.0, 100.0),
            y: YRange {
                lo: 0.0,
                hi: 1.0,
                data_lo: 0.0,
                data_hi: 1.0,
            },
            drawn: 0,
            hidden_non_positive: 0,
            line_color: String::new(),
        };
        assert_eq!(drag_range(100.0, 103.0, &info), None);
        assert_eq!(drag_range(260.0, 160.0, &info), Some((25.0, 50.0)));
    }
}
