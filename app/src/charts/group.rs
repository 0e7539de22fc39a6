//! Grouped runs (W&B's and Aim's "group by"): the runs of one group become one
//! line, the mean across the group's runs, with a min–max band.
//!
//! The x range is cut into pixel columns. A column is kept when any run of the group has a
//! point in it (the union of the runs' x, at pixel resolution). In a kept column each run
//! contributes one value: the mean of its points in the column, else its line interpolated
//! at the column's x when the column lies inside the run's extent; a run that ended before
//! (or started after) the column contributes nothing there, so a shorter run does not drag
//! the mean to zero and the count says how many runs a point stands for.

/// One column of a group: where it is and what the runs in it say.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupPoint {
    /// X (axis units): the mean x of the points in the column.
    pub x: f64,
    /// Mean of the runs' values.
    pub mean: f64,
    /// Smallest run value.
    pub min: f64,
    /// Largest run value.
    pub max: f64,
    /// Runs with a value in this column.
    pub runs: usize,
}

/// The line `(x, y)` of `points` (ordered by x) at `x`, if `x` is inside its extent.
fn interpolate(points: &[(f64, f64)], x: f64) -> Option<f64> {
    let (first, last) = (points.first()?, points.last()?);
    if x < first.0 || x > last.0 {
        return None;
    }
    let i = points.partition_point(|p| p.0 < x);
    let right = points.get(i)?;
    if i == 0 || right.0 == x {
        return Some(right.1);
    }
    let left = points[i - 1];
    let t = (x - left.0) / (right.0 - left.0);
    Some(left.1 + t * (right.1 - left.1))
}

/// The column of `x` among `columns` over `range`, if inside it.
fn column_of(x: f64, range: (f64, f64), columns: usize) -> Option<usize> {
    let span = range.1 - range.0;
    if !(x >= range.0 && x <= range.1) || columns == 0 {
        return None;
    }
    if span <= 0.0 {
        return Some(0);
    }
    let c = ((x - range.0) / span * columns as f64).floor() as usize;
    Some(c.min(columns - 1))
}

/// Aggregates `runs` (each a line of finite `(x, y)` points ordered by x) over `range`
/// cut into `columns` pixel columns: the mean, min and max across runs per column (see the
/// module's doc). Non-finite values are ignored. Columns come out ordered by x.
pub fn aggregate(runs: &[Vec<(f64, f64)>], range: (f64, f64), columns: usize) -> Vec<GroupPoint> {
    let columns = columns.max(1);
    let runs: Vec<Vec<(f64, f64)>> = runs
        .iter()
        .map(|r| {
            r.iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect()
        })
        .collect();
    // Per run: (sum, count) of its values per column; per column: sum and count of x.
    let mut own: Vec<Vec<(f64, usize)>> = vec![vec![(0.0, 0); columns]; runs.len()];
    let mut xs: Vec<(f64, usize)> = vec![(0.0, 0); columns];
    for (r, points) in runs.iter().enumerate() {
        for &(x, y) in points {
            if let Some(c) = column_of(x, range, columns) {
                own[r][c].0 += y;
                own[r][c].1 += 1;
                xs[c].0 += x;
                xs[c].1 += 1;
            }
        }
    }
    let mut out = Vec::new();
    for (c, &(sx, nx)) in xs.iter().enumerate() {
        if nx == 0 {
            continue;
        }
        let x = sx / nx as f64;
        let values = runs.iter().enumerate().filter_map(|(r, points)| {
            let (sum, n) = own[r][c];
            if n > 0 {
                Some(sum / n as f64)
            } else {
                interpolate(points, x)
            }
        });
        let (mut sum, mut n, mut min, mut max) = (0.0, 0usize, f64::INFINITY, f64::NEG_INFINITY);
        for v in values {
            sum += v;
            n += 1;
            min = min.min(v);
            max = max.max(v);
        }
        if n > 0 {
            out.push(GroupPoint {
                x,
                mean: sum / n as f64,
                min,
                max,
                runs: n,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approx(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn mean_min_max_per_column_of_aligned_runs() {
        let runs = vec![
            vec![(0.0, 1.0), (10.0, 3.0)],
            vec![(0.0, 3.0), (10.0, 5.0)],
            vec![(0.0, 2.0), (10.0, 10.0)],
        ];
        let g = aggregate(&runs, (0.0, 10.0), 100);
        assert_eq!(g.len(), 2);
        assert_eq!(
            g[0],
            GroupPoint {
                x: 0.0,
                mean: 2.0,
                min: 1.0,
                max: 3.0,
                runs: 3
            }
        );
        assert_eq!(
            (g[1].x, g[1].mean, g[1].min, g[1].max),
            (10.0, 6.0, 3.0, 10.0)
        );
    }

    #[test]
    fn union_of_x_with_interpolation_inside_a_runs_extent() {
        // Run b logs at odd x only: at x = 2, its line between (1, 10) and (3, 30) is 20.
        let runs = vec![
            vec![(0.0, 0.0), (2.0, 2.0), (4.0, 4.0)],
            vec![(1.0, 10.0), (3.0, 30.0)],
        ];
        let g = aggregate(&runs, (0.0, 4.0), 1000);
        let xs: Vec<f64> = g.iter().map(|p| p.x).collect();
        assert_eq!(xs, vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        let at2 = g[2];
        assert_eq!(at2.runs, 2);
        assert!(approx(at2.mean, 11.0) && approx(at2.min, 2.0) && approx(at2.max, 20.0));
        // At x = 1 run a is interpolated to 1.
        assert!(approx(g[1].mean, 5.5));
    }

    #[test]
    fn runs_missing_values_do_not_count() {
        // b stops at x = 5: beyond, only a counts; an empty run counts nowhere.
        let runs = vec![
            vec![(0.0, 1.0), (5.0, 1.0), (10.0, 1.0)],
            vec![(0.0, 3.0), (5.0, 3.0)],
            vec![],
        ];
        let g = aggregate(&runs, (0.0, 10.0), 10);
        assert_eq!(
            g.last().map(|p| (p.x, p.mean, p.runs)),
            Some((10.0, 1.0, 1))
        );
        assert_eq!(g[0].runs, 2);
        assert!(approx(g[0].mean, 2.0));
        assert!(aggregate(&[], (0.0, 1.0), 10).is_empty());
        assert!(aggregate(&[vec![]], (0.0, 1.0), 10).is_empty());
    }

    #[test]
    fn points_in_one_column_are_averaged_per_run_and_non_finite_skipped() {
        let runs = vec![
            vec![(0.1, 1.0), (0.2, 3.0), (0.3, f64::NAN)],
            vec![(0.15, 10.0)],
        ];
        // One column over [0, 1]: run a's mean is 2, run b's 10.
        let g = aggregate(&runs, (0.0, 1.0), 1);
        assert_eq!(g.len(), 1);
        assert!(approx(g[0].x, 0.15) && approx(g[0].mean, 6.0));
        assert_eq!((g[0].min, g[0].max, g[0].runs), (2.0, 10.0, 2));
        // Points outside the range are left out.
        assert!(aggregate(&[vec![(5.0, 1.0)]], (0.0, 1.0), 10).is_empty());
    }

    #[test]
    fn interpolation_edges() {
        let line = [(0.0, 0.0), (10.0, 100.0)];
        assert_eq!(interpolate(&line, 0.0), Some(0.0));
        assert_eq!(interpolate(&line, 10.0), Some(100.0));
        assert_eq!(interpolate(&line, 2.5), Some(25.0));
        assert_eq!(interpolate(&line, 10.5), None);
        assert_eq!(interpolate(&[], 1.0), None);
        assert_eq!(column_of(1.0, (1.0, 1.0), 5), Some(0));
        assert_eq!(column_of(f64::NAN, (0.0, 1.0), 5), None);
    }
}
