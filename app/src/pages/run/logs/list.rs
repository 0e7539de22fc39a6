//! The windowed list of lines: only the rows in view (plus overscan) are in the DOM, each
//! row's height is measured after it renders (lines wrap), older pages load when the
//! reader nears the top and newer ones near the bottom, and the view sticks to the bottom
//! (following) until the reader scrolls up.

use leptos::prelude::*;

use super::line::{node_class, LogRow};
use super::paging::LogState;
use super::store::LineKey;
use crate::components::virtual_list::{offsets, variable_range, VirtualScroll};

/// Distance from an end (px) at which the next page loads.
const LOAD_MARGIN: i32 = 600;

/// Scroll position and the "stick to the bottom" state; `Copy`.
#[derive(Clone, Copy)]
pub struct ListScroll {
    /// The container's scroll state.
    pub vs: VirtualScroll,
    /// Keep the newest line in view (following); off when the reader scrolls up.
    pub stick: RwSignal<bool>,
    /// The last scrollTop seen, to tell the reader's upward scrolls from ours.
    prev_top: StoredValue<i32>,
}

impl ListScroll {
    /// New state; sticks to the bottom when `stick`.
    pub fn new(stick: bool) -> Self {
        Self {
            vs: VirtualScroll::new(600.0),
            stick: RwSignal::new(stick),
            prev_top: StoredValue::new(0),
        }
    }

    /// Moves the scroll position by `dy` (content added or removed above), once the DOM
    /// shows the change.
    pub fn shift_later(self, dy: f64) {
        request_animation_frame(move || self.shift(dy));
    }

    fn shift(&self, dy: f64) {
        if let Some(el) = self.vs.node.try_get_untracked().flatten() {
            let top = el.scroll_top() + dy.round() as i32;
            el.set_scroll_top(top);
            self.prev_top.set_value(el.scroll_top());
            self.vs.measure();
        }
    }

    /// Scrolls to the newest line.
    pub fn scroll_to_bottom(&self) {
        if let Some(el) = self.vs.node.try_get_untracked().flatten() {
            el.set_scroll_top(el.scroll_height());
            self.prev_top.set_value(el.scroll_top());
            self.vs.measure();
        }
    }
}

/// Loads the next page when the reader nears an end; updates `stick`.
fn on_scroll(state: LogState, s: ListScroll) {
    s.vs.measure();
    let Some(el) = s.vs.node.get_untracked() else {
        return;
    };
    let top = el.scroll_top();
    let from_bottom = el.scroll_height() - top - el.client_height();
    let at_end = state.loaded.with_untracked(|l| l.newer().is_none());
    if top < s.prev_top.get_value() - 1 && from_bottom > 4 {
        s.stick.set(false);
    } else if from_bottom <= 4 && at_end {
        s.stick.set(true);
    }
    s.prev_top.set_value(top);
    if top < LOAD_MARGIN {
        state.load_older(move |h| s.shift_later(h));
    } else if from_bottom < LOAD_MARGIN {
        state.load_newer(move |h| s.shift_later(-h));
    }
}

/// Measures the rendered rows (`first` is the first row's index) and stores heights that
/// changed, keeping the reader's place when rows above the viewport change.
fn measure_rows(state: LogState, s: ListScroll, range: Memo<std::ops::Range<usize>>) {
    let Some(first_count) = range.try_get_untracked().map(|r| (r.start, r.len())) else {
        return;
    };
    let (first, count) = first_count;
    let Some(el) = s.vs.node.try_get_untracked().flatten() else {
        return;
    };
    let children = el.children();
    let Some(offs) = state.loaded.try_with_untracked(|l| offsets(l.heights())) else {
        return;
    };
    let top = f64::from(el.scroll_top());
    let mut changed = Vec::new();
    let mut above = 0.0;
    for k in 0..count {
        let i = first + k;
        if i + 1 >= offs.len() {
            break;
        }
        let Some(row) = children.item(k as u32 + 1) else {
            break;
        };
        let (h, was) = (
            row.get_bounding_client_rect().height(),
            offs[i + 1] - offs[i],
        );
        if h > 0.0 && (h - was).abs() > 0.5 {
            changed.push((i, h));
            if offs[i + 1] <= top {
                above += h - was;
            }
        }
    }
    if changed.is_empty() {
        return;
    }
    state.loaded.try_update(|l| {
        for (i, h) in changed {
            l.set_height(i, h);
        }
    });
    if above != 0.0 && s.stick.try_get_untracked() == Some(false) {
        s.shift(above);
    }
}

/// A rendered row's identity.
fn row_key((_, l): &(usize, api_types::logs::LogLine)) -> LineKey {
    (l.node.clone(), l.seq)
}

/// The scrolling list.
#[component]
pub fn LineList(
    /// The lines.
    state: LogState,
    /// Scroll state.
    scroll: ListScroll,
) -> impl IntoView {
    let s = scroll;
    let offs = Memo::new(move |_| state.loaded.with(|l| offsets(l.heights())));
    let range = Memo::new(move |_| {
        offs.with(|o| variable_range(o, s.vs.scroll_top.get(), s.vs.viewport.get()))
    });
    let rows = Memo::new(move |_| state.loaded.with(|l| l.slice(range.get())));
    let pad = move |top: bool| {
        let (r, o) = (range.get(), offs.get());
        let h = if top {
            o[r.start]
        } else {
            o[o.len() - 1] - o[r.end]
        };
        format!("height:{h}px")
    };
    let resize = window_event_listener(leptos::ev::resize, move |_| s.vs.measure());
    on_cleanup(move || resize.remove());
    // Both wait for the frame, when the DOM shows the rows.
    Effect::new(move |_| {
        range.track();
        rows.track();
        request_animation_frame(move || measure_rows(state, s, range));
    });
    Effect::new(move |_| {
        offs.track();
        if s.stick.get() {
            request_animation_frame(move || {
                if s.stick.try_get_untracked() == Some(true) {
                    s.scroll_to_bottom();
                }
            });
        }
    });
    view! {
        <div class="log-scroll" node_ref=s.vs.node role="table" aria-label="Log lines" tabindex="0"
            on:scroll=move |_| on_scroll(state, s)>
            <div class="log-pad" style=move || pad(true)></div>
            <For each=move || rows.get() key=row_key let(row)>
                <LogRow node_class=state.nodes.with_untracked(|n| node_class(n, &row.1.node)) line=row.1 />
            </For>
            <div class="log-pad" style=move || pad(false)></div>
        </div>
    }
}
