//! An element's CSS width as a signal, updated on mount and on window resize.

use std::time::Duration;

use leptos::ev;
use leptos::html::ElementType;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Width in CSS pixels of the element behind `node` (0 until it is mounted).
pub fn use_element_width<E>(node: NodeRef<E>) -> ReadSignal<u32>
where
    E: ElementType + 'static,
    E::Output: JsCast + Clone + 'static,
    NodeRef<E>: Copy,
{
    let (width, set_width) = signal(0u32);
    let measure = move || {
        if let Some(el) = node.get_untracked() {
            if let Some(el) = el.dyn_ref::<web_sys::Element>() {
                let w = el.client_width().max(0) as u32;
                if w != width.get_untracked() {
                    set_width.set(w);
                }
            }
        }
    };
    Effect::new(move |_| {
        if node.get().is_some() {
            // Wait a frame so the layout is settled.
            request_animation_frame(measure);
        }
    });
    // Resizing fires many events; measure once it has paused for 150 ms.
    let pending = StoredValue::new_local(None::<TimeoutHandle>);
    let handle = window_event_listener(ev::resize, move |_| {
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let h = set_timeout_with_handle(measure, Duration::from_millis(150)).ok();
        pending.set_value(h);
    });
    on_cleanup(move || {
        handle.remove();
        if let Some(h) = pending.get_value() {
            h.clear();
        }
    });
    width
}
