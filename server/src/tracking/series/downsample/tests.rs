//! Unit tests of the M4 reducer.

use api_types as json;
use proptest::prelude::*;

use super::{reduce, Viewport};
use crate::Error;

fn pt(step: i64, value: f64) -> json::SeriesPoint {
    json::SeriesPoint {
        step,
        timestamp: 1_700_000_000_000 + step,
        value: json::F64(value),
    }
}

/// `(x, point)` pairs on the step axis.
fn by_step(points: &[json::SeriesPoint]) -> Vec<(f64, json::SeriesPoint)> {
    points.iter().map(|p| (p.step as f64, *p)).collect()
}

#[test]
fn a_single_spike_among_a_million_points_survives() {
    let n = 1_000_000i64;
    let spike_at = 612_345;
    let series = (0..n).map(|i| {
        let v = if i == spike_at {
            1e6
        } else {
            (i as f64 * 0.001).sin()
        };
        (i as f64, pt(i, v))
    });
    let view = Viewport::new(1000, 0.0, (n - 1) as f64).unwrap();
    let out = reduce(view, series);
    assert_eq!(out.in_range, n as u64);
    assert!(out.points.len() <= 4 * 1000, "{}", out.points.len());
    assert!(out
        .points
        .iter()
        .any(|p| p.step == spike_at && p.value.0 == 1e6));
}

#[test]
fn output_is_bounded_and_keeps_first_and_last() {
    let points: Vec<_> = (0..50_000)
        .map(|i| pt(i, ((i * 7919) % 1000) as f64))
        .collect();
    for width in [1, 2, 3, 100, 999, 10_000] {
        let view = Viewport::new(width, 0.0, 49_999.0).unwrap();
        let out = reduce(view, by_step(&points));
        assert!(out.points.len() <= 4 * width as usize, "width {width}");
        assert_eq!(out.points.first(), points.first());
        assert_eq!(out.points.last(), points.last());
    }
}

#[test]
fn fewer_points_than_columns_are_all_kept() {
    let points: Vec<_> = (0..10).map(|i| pt(i * 3, i as f64)).collect();
    let view = Viewport::new(1000, 0.0, 27.0).unwrap();
    assert_eq!(reduce(view, by_step(&points)).points, points);
}

#[test]
fn non_finite_points_are_reported_once_per_kind_and_column() {
    let mut points: Vec<_> = (0..100).map(|i| pt(i, 1.0)).collect();
    points[10].value = json::F64(f64::NAN);
    points[11].value = json::F64(f64::NAN);
    points[20].value = json::F64(f64::INFINITY);
    points[70].value = json::F64(f64::NEG_INFINITY);
    points[90].value = json::F64(f64::NAN);
    let view = Viewport::new(2, 0.0, 99.0).unwrap();
    let out = reduce(view, by_step(&points));
    let steps: Vec<i64> = out.non_finite.iter().map(|p| p.step).collect();
    assert_eq!(steps, vec![10, 20, 70, 90]);
    assert!(out.points.iter().all(|p| p.value.0.is_finite()));
    assert_eq!(out.in_range, 100);
}

#[test]
fn empty_and_single_point_series() {
    let view = Viewport::new(500, 0.0, 10.0).unwrap();
    let out = reduce(view, Vec::new());
    assert!(out.points.is_empty() && out.non_finite.is_empty());
    assert_eq!(out.in_range, 0);

    let one = pt(5, 0.25);
    let view = Viewport::new(500, 5.0, 5.0).unwrap();
    let out = reduce(view, by_step(&[one]));
    assert_eq!(out.points, vec![one]);
    assert_eq!(out.in_range, 1);
}

#[test]
fn points_outside_the_range_are_ignored() {
    let points: Vec<_> = (0..100).map(|i| pt(i, i as f64)).collect();
    let view = Viewport::new(10, 20.0, 29.0).unwrap();
    let out = reduce(view, by_step(&points));
    assert_eq!(out.in_range, 10);
    assert_eq!(out.points, points[20..30].to_vec());
}

#[test]
fn bad_viewports_are_invalid_parameters() {
    for (w, lo, hi) in [
        (100, 5.0, 4.0),
        (0, 0.0, 1.0),
        (10_001, 0.0, 1.0),
        (10, f64::NAN, 1.0),
        (10, 0.0, f64::INFINITY),
    ] {
        let err = Viewport::new(w, lo, hi).unwrap_err();
        assert!(matches!(err, Error::InvalidParameter(_)), "{w} {lo} {hi}");
        assert_eq!(err.status(), axum::http::StatusCode::BAD_REQUEST);
    }
}

proptest! {
    /// Every column's extremes, first and last survive, and the output is an ordered
    /// subsequence of the input no longer than 4 points per column.
    #[test]
    fn columns_keep_their_extremes(
        values in prop::collection::vec(-1e3f64..1e3, 1..400),
        width in 1u32..50,
    ) {
        let points: Vec<_> = values.iter().enumerate().map(|(i, v)| pt(i as i64, *v)).collect();
        let hi = (points.len() - 1) as f64;
        let view = Viewport::new(width, 0.0, hi).unwrap();
        let out = reduce(view, by_step(&points));
        prop_assert!(out.points.len() <= 4 * width as usize);
        prop_assert!(out.points.windows(2).all(|w| w[0].step < w[1].step));
        for col in 0..width {
            let in_col = |p: &&json::SeriesPoint| view.column(p.step as f64) == Some(col);
            let all: Vec<_> = points.iter().filter(in_col).collect();
            let kept: Vec<_> = out.points.iter().filter(in_col).collect();
            prop_assert_eq!(all.first(), kept.first());
            prop_assert_eq!(all.last(), kept.last());
            let max = |v: &[&json::SeriesPoint]| v.iter().map(|p| p.value.0).fold(f64::MIN, f64::max);
            let min = |v: &[&json::SeriesPoint]| v.iter().map(|p| p.value.0).fold(f64::MAX, f64::min);
            prop_assert_eq!(max(&all), max(&kept));
            prop_assert_eq!(min(&all), min(&kept));
        }
    }
}
