//! Row virtualisation: only the rows inside the scrolled viewport (plus a small overscan)
//! are rendered; spacers stand in for the rest. Rows have one fixed height
//! ([`visible_range`], the runs table) or each its own measured height
//! ([`variable_range`] over [`offsets`], the log lines, which wrap).
//!
//! Hand-written on purpose: leptos-use (0.20, the leptos 0.8 line) has no virtual list, and
//! its `use_scroll` would only replace the two-line [`VirtualScroll::measure`] while adding
//! a crate. The windowing maths is a pure function, unit-tested below; the runs table needs
//! its spacers as `<tr>`s inside its own `<tbody>`, which a generic list component would not
//! give.

use std::ops::Range;

use leptos::html::Div;
use leptos::prelude::*;
use leptos_use_element_size::{use_element_size, UseElementSizeReturn};

/// Rows rendered above and below the viewport.
pub const OVERSCAN: usize = 8;

/// Row indices to render for a viewport.
pub fn visible_range(scroll_top: f64, viewport: f64, row_h: f64, count: usize) -> Range<usize> {
    if count == 0 || row_h <= 0.0 {
        return 0..0;
    }
    let first = (scroll_top.max(0.0) / row_h).floor() as usize;
    let rows = (viewport.max(row_h) / row_h).ceil() as usize;
    let start = first.saturating_sub(OVERSCAN).min(count);
    let end = (first + rows + OVERSCAN).min(count);
    start..end
}

/// The top offset of each row and, last, the total height: `heights.len() + 1` values.
pub fn offsets(heights: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let mut acc = 0.0;
    let mut out = vec![0.0];
    for h in heights {
        acc += h;
        out.push(acc);
    }
    out
}

/// Row indices to render for a viewport over rows of varying height (`offsets` as given
/// by [`offsets`]).
pub fn variable_range(offsets: &[f64], scroll_top: f64, viewport: f64) -> Range<usize> {
    let count = offsets.len().saturating_sub(1);
    // First row whose bottom is below the top edge; first row starting below the bottom.
    let first = offsets[1..].partition_point(|&bottom| bottom <= scroll_top);
    let past = offsets[..count].partition_point(|&top| top < scroll_top + viewport);
    first.saturating_sub(OVERSCAN).min(count)..(past + OVERSCAN).min(count)
}

/// Scroll state of a virtualised container.
#[derive(Clone, Copy)]
pub struct VirtualScroll {
    /// Attach to the scrolling container.
    pub node: NodeRef<Div>,
    /// Current scrollTop.
    pub scroll_top: RwSignal<f64>,
    /// Current clientHeight.
    pub viewport: RwSignal<f64>,
}

impl VirtualScroll {
    /// New state; `viewport` is a guess until the first scroll or measure.
    pub fn new(viewport: f64) -> Self {
        Self {
            node: NodeRef::new(),
            scroll_top: RwSignal::new(0.0),
            viewport: RwSignal::new(viewport),
        }
    }

    /// Reads the container's scroll position and height (call on scroll and on mount).
    /// A scroll event may still reach a container whose view was just replaced: then
    /// nothing happens.
    pub fn measure(&self) {
        if let Some(el) = self.node.try_get_untracked().flatten() {
            self.scroll_top.try_set(f64::from(el.scroll_top()));
            let h = f64::from(el.client_height());
            if h > 0.0 && self.viewport.try_get_untracked().is_some_and(|v| v != h) {
                self.viewport.try_set(h);
            }
        }
    }

    /// Measures the container once it is mounted and again whenever its size changes: a
    /// container that grows with its rows up to a cap (a table of a few runs, a parent's
    /// children expanded) would otherwise keep the window of its first, smaller height and
    /// leave the rows past it blank.
    pub fn follow_size(&self) {
        let this = *self;
        let UseElementSizeReturn { width, height } = use_element_size(self.node);
        Effect::new(move |_| {
            width.track();
            height.track();
            if this.node.get().is_some() {
                this.measure();
            }
        });
    }

    /// Scrolls back to the top (e.g. when the rows change).
    pub fn reset(&self) {
        if let Some(el) = self.node.get_untracked() {
            el.set_scroll_top(0);
        }
        self.scroll_top.set(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_only_the_window() {
        assert_eq!(visible_range(0.0, 600.0, 36.0, 5000), 0..(17 + OVERSCAN));
        let r = visible_range(36.0 * 1000.0, 600.0, 36.0, 5000);
        assert_eq!(r, (1000 - OVERSCAN)..(1000 + 17 + OVERSCAN));
        assert!(r.len() <= 60);
        assert_eq!(visible_range(1e9, 600.0, 36.0, 10), 10..10);
        assert_eq!(visible_range(0.0, 600.0, 36.0, 0), 0..0);
        assert_eq!(visible_range(0.0, 600.0, 36.0, 3), 0..3);
    }

    #[test]
    fn variable_heights_render_only_the_window() {
        // 100,000 rows of 20 px, but row 10 wraps to 100 px.
        let o = offsets((0..100_000).map(|i| if i == 10 { 100.0 } else { 20.0 }));
        assert_eq!(o.len(), 100_001);
        assert_eq!(o[11], 300.0);
        assert_eq!(*o.last().unwrap(), 2_000_080.0);
        assert_eq!(variable_range(&o, 0.0, 200.0), 0..(10 + OVERSCAN));
        // Scrolled into the tall row: it stays rendered.
        let r = variable_range(&o, 250.0, 200.0);
        assert!(r.contains(&10) && r.len() <= 9 + 2 * OVERSCAN, "{r:?}");
        let r = variable_range(&o, 1_000_000.0, 600.0);
        assert!(r.len() <= 31 + 2 * OVERSCAN, "{r:?}");
        assert_eq!(variable_range(&offsets([]), 0.0, 600.0), 0..0);
        assert_eq!(
            variable_range(&o, 1e12, 600.0),
            (100_000 - OVERSCAN)..100_000
        );
    }
}
