//! A canvas' settled width: its first size at once, later sizes once resizing pauses, since
//! each change refetches the chart's series (the run page's charts and the experiment's
//! chart view).

use leptos::html::Canvas;
use leptos::prelude::*;
use leptos_use_element_size::{use_element_size, UseElementSizeReturn};
use leptos_use_fn_debounce_throttle::use_debounce_fn_with_arg;

/// Resizing must pause this long (ms) before the new width counts.
const RESIZE_PAUSE_MS: f64 = 150.0;

/// The canvas' width in whole CSS pixels (0 until laid out).
pub fn use_settled_width(canvas: NodeRef<Canvas>) -> ReadSignal<u32> {
    let UseElementSizeReturn { width, .. } = use_element_size(canvas);
    let (settled, set_settled) = signal(0u32);
    let settle = use_debounce_fn_with_arg(move |w: u32| set_settled.set(w), RESIZE_PAUSE_MS);
    Effect::new(move |_| {
        let w = width.get().round().clamp(0.0, f64::from(u32::MAX)) as u32;
        let current = settled.get_untracked();
        if current == 0 {
            set_settled.set(w);
        } else if w != current {
            settle(w);
        }
    });
    settled
}
