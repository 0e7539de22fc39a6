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

fn x_of(axis: json::XAxis, start: i64, p: &json::SeriesPoint) -> f64 {
    match axis {
        json::XAxis::Step => p.step as f64,
        json::XAxis::Wall => p.timestamp as f64,
        json::XAxis::Relative => (p.timestamp - start) as f64,
    }
}

impl ChartData {
    /// Builds chart data; `zoom` overrides the x range.
    pub fn from_series(s: &json::MetricSeries, zoom: Option<(f64, f64)>) -> Self {
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
