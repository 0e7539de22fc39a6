//! The mouse over a chart: the hovered point, and drag to zoom.

use leptos::prelude::*;
use web_sys::MouseEvent;

use super::hover::{hover_at, Hover};
use super::series::Loaded;
use crate::charts::nearest::pixel_to_x;
use crate::charts::DrawInfo;

/// Minimum drag, in CSS pixels, that counts as a zoom.
const MIN_DRAG: f64 = 5.0;

/// Hover and drag state of one chart; `Copy`.
#[derive(Clone, Copy)]
pub struct Pointer {
    /// The point under the cursor.
    pub hover: RwSignal<Option<Hover>>,
    /// A drag in progress: (start, current) pixel x.
    pub drag: RwSignal<Option<(f64, f64)>>,
    loaded: Memo<Loaded>,
    info: RwSignal<Option<DrawInfo>>,
    log_y: Signal<bool>,
    smoothing: Signal<f64>,
    on_zoom: Callback<Option<(f64, f64)>>,
}

fn offset_x(ev: &MouseEvent) -> f64 {
    f64::from(ev.offset_x())
}

/// The x range (axis units) of a drag from pixel `a` to `b`, if it is long enough.
pub fn drag_range(a: f64, b: f64, info: &DrawInfo) -> Option<(f64, f64)> {
    if (a - b).abs() < MIN_DRAG {
        return None;
    }
    let to_x = |px: f64| pixel_to_x(px, info.left, info.width, info.x_range);
    let (lo, hi) = (to_x(a.min(b)), to_x(a.max(b)));
    (hi > lo).then_some((lo, hi))
}

impl Pointer {
    /// New state for a chart showing `loaded`, drawn as `info`.
    pub fn new(
        loaded: Memo<Loaded>,
        info: RwSignal<Option<DrawInfo>>,
        log_y: Signal<bool>,
        smoothing: Signal<f64>,
        on_zoom: Callback<Option<(f64, f64)>>,
    ) -> Self {
        Self {
            hover: RwSignal::new(None),
            drag: RwSignal::new(None),
            loaded,
            info,
            log_y,
            smoothing,
            on_zoom,
        }
    }

    /// `mousemove`: extends a drag and finds the hovered point.
    pub fn moved(&self, ev: MouseEvent) {
        let px = offset_x(&ev);
        if let Some((start, _)) = self.drag.get_untracked() {
            self.drag.set(Some((start, px)));
        }
        let (log_y, smoothing) = (self.log_y.get_untracked(), self.smoothing.get_untracked());
        let h = self.info.with_untracked(|i| {
            let i = i.as_ref()?;
            self.loaded.with_untracked(|l| match l {
                Some(Ok(d)) => hover_at(px, i, d, log_y, smoothing),
                _ => None,
            })
        });
        self.hover.set(h);
    }

    /// `mousedown`: starts a drag with the main button.
    pub fn pressed(&self, ev: MouseEvent) {
        if ev.button() == 0 {
            ev.prevent_default();
            let px = offset_x(&ev);
            self.drag.set(Some((px, px)));
        }
    }

    /// `mouseup`: ends a drag, zooming to it when it is long enough.
    pub fn released(&self) {
        let Some((a, b)) = self.drag.get_untracked() else {
            return;
        };
        self.drag.set(None);
        let range = self
            .info
            .with_untracked(|i| i.as_ref().and_then(|i| drag_range(a, b, i)));
        if let Some(range) = range {
            self.on_zoom.run(Some(range));
        }
    }

    /// `mouseleave`: forgets the hover and any drag.
    pub fn left(&self) {
        self.hover.set(None);
        self.drag.set(None);
    }
}

#[cfg(test)]
mod tests {
    use super::drag_range;
    use crate::charts::scale::YRange;
    use crate::charts::DrawInfo;

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
