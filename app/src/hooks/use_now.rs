//! "Now" as a signal that advances on its own, so relative times ("4 min ago") and the
//! durations of running runs keep moving on a page left open.

use leptos::prelude::*;
use leptos_use_interval_fn::use_interval_fn;

use crate::format;

/// The current time (ms since the epoch), advanced every `every_ms` until the calling
/// component is disposed.
pub fn use_now(every_ms: u64) -> Signal<i64> {
    let now = RwSignal::new(format::now_ms());
    use_interval_fn(
        move || {
            now.try_set(format::now_ms());
        },
        every_ms,
    );
    now.into()
}
