//! The router's `navigate`, guarded. leptos_router unwraps `history.pushState` /
//! `replaceState`, so anything the browser refuses there panics the app:
//!
//! - a target that resolves to another origin, such as `/..//evil.example` (which the
//!   browser reads as `//evil.example`): every target is normalised first
//!   ([`safe_path`]) and checked with the browser's own URL parser, else the app goes home;
//! - too many history writes in a short time (Safari throws after 100 in 10–30 s, Firefox
//!   after 200 in 10 s): writes beyond [`MAX_WRITES`] in [`WINDOW_MS`] are skipped with a
//!   warning (the page keeps its state; only the address bar lags).
//!
//! Every navigation in the app goes through [`use_safe_navigate`].

use std::cell::RefCell;
use std::collections::VecDeque;

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;
use leptos_router::NavigateOptions;

use crate::routes::safe_path;

/// History writes allowed in any [`WINDOW_MS`], below every browser's limit.
const MAX_WRITES: usize = 90;

/// The sliding window of [`MAX_WRITES`], in milliseconds.
const WINDOW_MS: f64 = 30_000.0;

/// Times of the recent history writes.
#[derive(Debug, Default)]
struct WriteBudget {
    times: VecDeque<f64>,
}

impl WriteBudget {
    /// Records a write at `now_ms` when fewer than [`MAX_WRITES`] happened in the
    /// [`WINDOW_MS`] before it; false (nothing recorded) when the budget is spent.
    fn try_take(&mut self, now_ms: f64) -> bool {
        while self.times.front().is_some_and(|t| now_ms - t >= WINDOW_MS) {
            self.times.pop_front();
        }
        if self.times.len() >= MAX_WRITES {
            return false;
        }
        self.times.push_back(now_ms);
        true
    }
}

thread_local! {
    static BUDGET: RefCell<WriteBudget> = RefCell::default();
}

/// `to` when it is a same-origin path that `pushState` accepts, else `/`.
///
/// First the app's own normalisation ([`safe_path`]), then the browser's URL parser as the
/// last word: the target must resolve to this origin with a path that starts with one `/`.
fn checked_target(to: &str) -> String {
    let path = safe_path(to);
    let origin = window().location().origin().ok();
    let browser_agrees = origin.is_some_and(|origin| {
        web_sys::Url::new_with_base(&path, &origin)
            .is_ok_and(|url| url.origin() == origin && !url.pathname().starts_with("//"))
    });
    if browser_agrees {
        path
    } else {
        leptos::logging::warn!("refused to navigate to {to:?}; going home instead");
        "/".to_owned()
    }
}

/// Like leptos_router's `use_navigate`, but the target is checked by `checked_target`
/// and the history write rate is bounded, so a hostile or malformed link leads home and a
/// burst of writes is thinned, instead of panicking the app.
pub fn use_safe_navigate() -> impl Fn(&str, NavigateOptions) + Clone {
    let navigate = use_navigate();
    move |to: &str, options: NavigateOptions| {
        let now = js_sys::Date::now();
        if BUDGET.with(|b| b.borrow_mut().try_take(now)) {
            navigate(&checked_target(to), options);
        } else {
            leptos::logging::warn!("too many history writes; skipped navigating to {to:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_write_budget_slides() {
        let mut b = WriteBudget::default();
        for i in 0..MAX_WRITES {
            assert!(b.try_take(i as f64), "write {i}");
        }
        assert!(!b.try_take(1_000.0));
        assert!(!b.try_take(WINDOW_MS - 1.0));
        // The first write leaves the window: one more is allowed, and no other.
        assert!(b.try_take(WINDOW_MS));
        assert!(!b.try_take(WINDOW_MS));
        assert!(b.try_take(2.0 * WINDOW_MS));
    }
}
