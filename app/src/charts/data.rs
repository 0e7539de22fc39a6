//! Chart data built from a [`json::MetricSeries`]: x on the chosen axis, finite points for
//! the line, non-finite points as markers.

use api_types as json;

/// A finite point of the line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartPoint {
    /// X in axis units (step, ms since the epoch, or ms since the run's start).
    pub x: f64,
    /// Value.
    pub y: f64,
    /// Logged step.
    pub step: i64,
    /// Logged timestamp, ms.
    pub timestamp: i64,
}

/// Which non-finite value a marker stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonFinite {
    /// Not a number.
    Nan,
    /// +infinity.
    PosInf,
    /// −infinity.
    NegInf,
}

impl NonFinite {
    /// Classifies a value; `None` when it is finite.
    pub fn of(v: f64) -> Option<Self> {
        if v.is_nan() {
            Some(Self::Nan)
        } else if v == f64::INFINITY {
            Some(Self::PosInf)
        } else if v == f64::NEG_INFINITY {
            Some(Self::NegInf)
        } else {
            None
        }
    }

    /// Legend label.
    pub fn label(self) -> &'static str {
        match self {
            Self::Nan => "NaN",
            Self::PosInf => "+inf",
            Self::NegInf => "−inf",
        }
    }
}

/// A non-finite point, drawn as a marker at the plot's edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marker {
    /// X in axis units.
    pub x: f64,
    /// Kind of value.
    pub kind: NonFinite,
    /// Logged step.
    pub step: i64,
    /// Logged timestamp, ms.
    pub timestamp: i64,
}

/// Everything a chart draws.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChartData {
    /// Finite points, ordered by x.
    pub points: Vec<ChartPoint>,
    /// Non-finite points, ordered by x.
    pub markers: Vec<Marker>,
    /// The x range to show: the zoom, else the series' extent.
    pub x_range: Option<(f64, f64)>,
    /// Points logged in range before reduction (for the caption).
    pub points_in_range: u64,
    /// The x axis the points are on.
    pub x_axis: json::XAxis,
    /// Run start, ms (to show relative times).
    pub run_start_time: i64,
}

/// X of a point on `axis`, relative times measured from `start`.
pub(crate) fn x_of(axis: json::XAxis, start: i64, p: &json::SeriesPoint) -> f64 {
    match axis {
        json::XAxis::Step => p.step as f64,
        json::XAxis::Wall => p.timestamp as f64,
        json::XAxis::Relative => (p.timestamp - start) as f64,
    }
}

impl ChartData {
    /// Builds chart data; `zoom` overrides the x range. With another metric as x
    /// (`x_values` filled), each finite point's x is that metric's value.
    pub fn from_series(s: &json::MetricSeries, zoom: Option<(f64, f64)>) -> Self {
        if !s.x_values.is_empty() {
            return Self::by_other_metric(s, zoom);
        }
        let start = s.run_start_time;
        let mut points: Vec<ChartPoint> = Vec::with_capacity(s.points.len());
        let mut markers = Vec::new();
        for p in s.points.iter().chain(&s.non_finite) {
            let x = x_of(s.x_axis, start, p);
            match NonFinite::of(p.value.0) {
                None => points.push(ChartPoint {
                    x,
                    y: p.value.0,
                    step: p.step,
                    timestamp: p.timestamp,
                }),
                Some(kind) => markers.push(Marker {
                    x,
                    kind,
                    step: p.step,
                    timestamp: p.timestamp,
                }),
            }
        }
        // The server orders by x already; sorting again is cheap and makes drawing robust.
        points.sort_by(|a, b| a.x.total_cmp(&b.x));
        markers.sort_by(|a, b| a.x.total_cmp(&b.x));
        let extent = s.x_extent.or_else(|| {
            let xs = points
                .iter()
                .map(|p| p.x)
                .chain(markers.iter().map(|m| m.x));
            xs.fold(None, |acc: Option<(f64, f64)>, x| match acc {
                None => Some((x, x)),
                Some((lo, hi)) => Some((lo.min(x), hi.max(x))),
            })
        });
        Self {
            points,
            markers,
            x_range: zoom.or(extent),
            points_in_range: s.points_in_range,
            x_axis: s.x_axis,
            run_start_time: start,
        }
    }

    fn by_other_metric(s: &json::MetricSeries, zoom: Option<(f64, f64)>) -> Self {
        let mut points: Vec<ChartPoint> = s
            .points
            .iter()
            .zip(&s.x_values)
            .filter(|(p, x)| p.value.0.is_finite() && x.0.is_finite())
            .map(|(p, x)| ChartPoint {
                x: x.0,
                y: p.value.0,
                step: p.step,
                timestamp: p.timestamp,
            })
            .collect();
        points.sort_by(|a, b| a.x.total_cmp(&b.x));
        let extent = points.first().zip(points.last()).map(|(a, b)| (a.x, b.x));
        Self {
            points,
            markers: Vec::new(),
            x_range: zoom.or(extent),
            points_in_range: s.points_in_range,
            x_axis: json::XAxis::Step,
            run_start_time: s.run_start_time,
        }
    }

    /// The finite points as `(x, y)`.
    pub fn xy(&self) -> Vec<(f64, f64)> {
        self.points.iter().map(|p| (p.x, p.y)).collect()
    }

    /// Whether `p` comes after every point drawn (by x, then step and time), so it is not
    /// in the fetched series yet.
    pub fn is_new(&self, p: &json::SeriesPoint) -> bool {
        let x = x_of(self.x_axis, self.run_start_time, p);
        let last_point = self.points.last().map(|p| (p.x, p.step, p.timestamp));
        let last_marker = self.markers.last().map(|m| (m.x, m.step, m.timestamp));
        last_point
            .into_iter()
            .chain(last_marker)
            .all(|(lx, ls, lt)| x > lx || x == lx && (p.step, p.timestamp) > (ls, lt))
    }

    /// Appends points logged after the series was fetched (a live run's new points, in
    /// the order written), with x on this chart's axis and origin. Points that are not
    /// [new](Self::is_new) are skipped, and so are points outside a zoomed range;
    /// otherwise the x range grows to take them. Returns how many were added.
    pub fn append(&mut self, new: &[json::SeriesPoint], zoom: Option<(f64, f64)>) -> usize {
        let mut added = 0;
        for p in new {
            let x = x_of(self.x_axis, self.run_start_time, p);
            let after_last = self.is_new(p);
            let in_zoom = zoom.is_none_or(|(lo, hi)| (lo..=hi).contains(&x));
            if !after_last || !in_zoom {
                continue;
            }
            match NonFinite::of(p.value.0) {
                None => self.points.push(ChartPoint {
                    x,
                    y: p.value.0,
                    step: p.step,
                    timestamp: p.timestamp,
                }),
                Some(kind) => self.markers.push(Marker {
                    x,
                    kind,
                    step: p.step,
                    timestamp: p.timestamp,
                }),
            }
            if zoom.is_none() {
                self.x_range = Some(match self.x_range {
                    Some((lo, hi)) => (lo.min(x), hi.max(x)),
                    None => (x, x),
                });
            }
            added += 1;
        }
        self.points_in_range += added as u64;
        added
    }

    /// Number of markers of one kind.
    pub fn count(&self, kind: NonFinite) -> usize {
        self.markers.iter().filter(|m| m.kind == kind).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use json::{SeriesPoint, F64};

    fn sp(step: i64, v: f64) -> SeriesPoint {
        SeriesPoint {
            step,
            timestamp: 1000 + step * 10,
            value: F64(v),
        }
    }

    fn series(axis: json::XAxis, start: i64, points: Vec<SeriesPoint>) -> json::MetricSeries {
        json::MetricSeries {
            run_id: "r".into(),
            key: "loss".into(),
            x_axis: axis,
            run_start_time: start,
            points_in_range: points.len() as u64,
            total_points: points.len() as u64,
            x_extent: None,
            points,
            non_finite: vec![],
            x_values: vec![],
        }
    }

    #[test]
    fn relative_x_is_measured_from_the_series_origin() {
        // The server reports the series' origin in `run_start_time` (its first point when
        // points precede the run's start): x starts at 0 and the ticks read 0s, 1s, …
        let d = ChartData::from_series(
            &series(json::XAxis::Relative, 1000, vec![sp(0, 1.0), sp(100, 0.5)]),
            None,
        );
        assert_eq!(d.x_range, Some((0.0, 1000.0)));
        assert_eq!(d.points[1].x, 1000.0);
    }

    #[test]
    fn live_points_are_appended_once() {
        let mut d = ChartData::from_series(
            &series(json::XAxis::Step, 1000, vec![sp(0, 1.0), sp(2, 0.5)]),
            None,
        );
        // Step 2 was in the fetched series already; 3, 4 and a NaN at 5 are new.
        let added = d.append(&[sp(2, 0.5), sp(3, 0.4), sp(4, 0.3), sp(5, f64::NAN)], None);
        assert_eq!(added, 3);
        assert_eq!(
            d.points.iter().map(|p| p.step).collect::<Vec<_>>(),
            vec![0, 2, 3, 4]
        );
        assert_eq!(d.count(NonFinite::Nan), 1);
        assert_eq!(d.x_range, Some((0.0, 5.0)));
        assert_eq!(d.points_in_range, 5);
        // Appending the same batch again changes nothing.
        assert_eq!(d.append(&[sp(3, 0.4), sp(4, 0.3)], None), 0);
        // A zoomed chart keeps its range and takes only the points inside it.
        let mut z = ChartData::from_series(
            &series(json::XAxis::Relative, 1000, vec![sp(0, 1.0)]),
            Some((0.0, 50.0)),
        );
        assert_eq!(z.append(&[sp(3, 0.9), sp(9, 0.8)], Some((0.0, 50.0))), 1);
        assert_eq!(z.x_range, Some((0.0, 50.0)));
        // An empty chart takes the first points.
        let mut e = ChartData::from_series(&series(json::XAxis::Step, 0, vec![]), None);
        assert_eq!(e.append(&[sp(7, 1.0)], None), 1);
        assert_eq!(e.x_range, Some((7.0, 7.0)));
    }

    #[test]
    fn splits_finite_and_non_finite() {
        let s = json::MetricSeries {
            run_id: "r".into(),
            key: "loss".into(),
            x_axis: json::XAxis::Relative,
            run_start_time: 1000,
            points_in_range: 5,
            total_points: 5,
            x_extent: None,
            points: vec![sp(0, 1.0), sp(2, 0.5)],
            non_finite: vec![
                sp(1, f64::NAN),
                sp(3, f64::INFINITY),
                sp(4, f64::NEG_INFINITY),
            ],
            x_values: vec![],
        };
        let d = ChartData::from_series(&s, None);
        assert_eq!(
            d.points.iter().map(|p| p.x).collect::<Vec<_>>(),
            vec![0.0, 20.0]
        );
        assert_eq!(d.count(NonFinite::Nan), 1);
        assert_eq!(d.count(NonFinite::PosInf), 1);
        assert_eq!(d.count(NonFinite::NegInf), 1);
        assert_eq!(d.x_range, Some((0.0, 40.0)));
        assert_eq!(
            ChartData::from_series(&s, Some((5.0, 6.0))).x_range,
            Some((5.0, 6.0))
        );
    }
}
