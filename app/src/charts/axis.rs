//! A plotters axis over f64 that draws the [`Ticks`] it is given: its key points are the
//! ticks' positions and it formats them with the ticks' labels, so the grid lines and the
//! labels on screen are the same values.

use std::ops::Range;

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;

use super::ticks::Ticks;

/// A linear f64 axis with chosen ticks.
pub struct TickedAxis {
    range: RangedCoordf64,
    ticks: Ticks,
}

impl TickedAxis {
    /// The axis over `range` with `ticks`.
    pub fn new(range: Range<f64>, ticks: Ticks) -> Self {
        TickedAxis {
            range: range.into(),
            ticks,
        }
    }
}

impl Ranged for TickedAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.range.map(value, limit)
    }

    /// The ticks for the grid's bold lines and labels; no light lines.
    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.values.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.range()
    }
}

impl ValueFormatter<f64> for TickedAxis {
    fn format_ext(&self, value: &f64) -> String {
        self.ticks.label(*value)
    }
}

#[cfg(test)]
mod tests {
    use plotters::coord::ranged1d::{BoldPoints, LightPoints};

    use super::*;
    use crate::charts::ticks::TickScale;

    #[test]
    fn the_axis_draws_and_labels_the_ticks_it_is_given() {
        let ticks = Ticks::new(TickScale::Number, -0.05, 1.05, 5);
        let axis = TickedAxis::new(-0.05..1.05, ticks.clone());
        let points = axis.key_points(BoldPoints(5));
        assert_eq!(points, ticks.values);
        let labels: Vec<String> = points.iter().map(|v| axis.format_ext(v)).collect();
        assert_eq!(labels, ["0", "0.5", "1"]);
        assert!(axis.key_points(LightPoints::new(5, 50)).is_empty());
        assert_eq!(axis.map(&0.5, (0, 110)), 55);
    }
}
