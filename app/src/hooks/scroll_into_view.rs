//! Scrolling an element into view once it is in the document: a page that just loaded
//! builds its elements before they are attached, when scrolling them does nothing.

use std::time::Duration;

use leptos::prelude::{request_animation_frame, set_timeout};
use web_sys::{Element, ScrollIntoViewOptions, ScrollLogicalPosition};

/// Tries left before giving up (50 ms apart: 2 s).
const TRIES: u32 = 40;

fn attempt(el: Element, block: ScrollLogicalPosition, left: u32) {
    if el.is_connected() {
        let opts = ScrollIntoViewOptions::new();
        opts.set_block(block);
        opts.set_inline(ScrollLogicalPosition::Nearest);
        el.scroll_into_view_with_scroll_into_view_options(&opts);
    } else if left > 0 {
        set_timeout(
            move || attempt(el, block, left - 1),
            Duration::from_millis(50),
        );
    }
}

/// Scrolls `el` into view (vertically to `block`, sideways as little as needed) on the
/// next frame, or as soon as it is attached to the document.
pub fn scroll_into_view(el: Element, block: ScrollLogicalPosition) {
    request_animation_frame(move || attempt(el, block, TRIES));
}
