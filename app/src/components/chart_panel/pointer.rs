//! The mouse over a chart: the hovered point, and drag to zoom.

use leptos::prelude::*;
use web_sys::MouseEvent;

use super::hover::{hover_at, Hover};
use super::series::Loaded;
use crate::charts::nearest::drag_range;
use crate::charts::DrawInfo;

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
