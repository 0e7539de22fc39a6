//! What the tooltip shows for a cursor position: the nearest point (finite or not).

use crate::charts::nearest::{nearest_by, nearest_index, x_to_pixel};
use crate::charts::{scale, smoothing, ChartData, DrawInfo};

/// The point under the cursor, placed in CSS pixels over the canvas.
#[derive(Debug, Clone, PartialEq)]
pub struct Hover {
    /// Pixel x of the point.
    pub x_px: f64,
    /// Pixel y of the point (`None` for non-finite values and values a log axis hides).
    pub y_px: Option<f64>,
    /// Logged step.
    pub step: i64,
    /// Logged timestamp, ms.
    pub timestamp: i64,
    /// Exact value as text (`NaN`, `+inf`, `−inf` for non-finite ones).
    pub value: String,
    /// Smoothed value, when smoothing is on and the point is finite.
    pub smoothed: Option<f64>,
}

/// The point nearest to pixel column `px` (CSS pixels over the canvas).
pub fn hover_at(
    px: f64,
    info: &DrawInfo,
    d: &ChartData,
    log: bool,
    smoothing_w: f64,
) -> Option<Hover> {
    let to_px = |x: f64| x_to_pixel(x, info.left, info.width, info.x_range);
    let x = crate::charts::nearest::pixel_to_x(px, info.left, info.width, info.x_range);
    let point = nearest_index(&d.points, x);
    let marker = nearest_by(d.markers.len(), |i| d.markers[i].x, x);
    let dist = |xp: f64| (to_px(xp) - px).abs();
    let use_marker = match (point, marker) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(p), Some(m)) => dist(d.markers[m].x) < dist(d.points[p].x),
    };
    if use_marker {
        let m = d.markers[marker?];
        return Some(Hover {
            x_px: to_px(m.x),
            y_px: None,
            step: m.step,
            timestamp: m.timestamp,
            value: m.kind.label().to_owned(),
            smoothed: None,
        });
    }
    let i = point?;
    let p = d.points[i];
    let y_px = scale::to_draw(p.y, log).map(|v| {
        let (lo, hi) = (info.y.lo, info.y.hi);
        info.top + (hi - v) / (hi - lo) * info.height
    });
    let smoothed = (smoothing_w > 0.0).then(|| {
        let ys: Vec<f64> = d.points.iter().map(|p| p.y).collect();
        smoothing::ema_debiased(&ys, smoothing_w)[i]
    });
    Some(Hover {
        x_px: to_px(p.x),
        y_px,
        step: p.step,
        timestamp: p.timestamp,
        value: p.y.to_string(),
        smoothed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::{ChartPoint, Marker, NonFinite};

    fn info() -> DrawInfo {
        DrawInfo {
            left: 0.0,
            top: 0.0,
            width: 100.0,
            height: 100.0,
            x_range: (0.0, 100.0),
            y: scale::YRange {
                lo: 0.0,
                hi: 10.0,
                data_lo: 0.0,
                data_hi: 10.0,
            },
            drawn: 2,
            hidden_non_positive: 0,
            line_color: "#000000".into(),
        }
    }

    #[test]
    fn picks_the_nearest_point_or_marker() {
        let d = ChartData {
            points: vec![
                ChartPoint {
                    x: 10.0,
                    y: 5.0,
                    step: 10,
                    timestamp: 0,
                },
                ChartPoint {
                    x: 90.0,
                    y: 2.5,
                    step: 90,
                    timestamp: 0,
                },
            ],
            markers: vec![Marker {
                x: 50.0,
                kind: NonFinite::Nan,
                step: 50,
                timestamp: 0,
            }],
            ..Default::default()
        };
        let h = hover_at(12.0, &info(), &d, false, 0.0).unwrap();
        assert_eq!((h.step, h.value.as_str(), h.y_px), (10, "5", Some(50.0)));
        assert_eq!(
            hover_at(48.0, &info(), &d, false, 0.0).unwrap().value,
            "NaN"
        );
        let h = hover_at(99.0, &info(), &d, false, 0.5).unwrap();
        assert_eq!(h.step, 90);
        assert!(h.smoothed.unwrap() > 2.5 && h.smoothed.unwrap() < 5.0);
        assert_eq!(
            hover_at(5.0, &info(), &ChartData::default(), false, 0.0),
            None
        );
    }
}
