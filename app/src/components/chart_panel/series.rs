//! The chart's data: the canvas' settled width and the M4-reduced series fetched for it.

use api_types as json;
use leptos::html::Canvas;
use leptos::prelude::*;
use leptos_use_element_size::{use_element_size, UseElementSizeReturn};
use leptos_use_fn_debounce_throttle::use_debounce_fn_with_arg;

use super::live::LiveSeries;
use crate::api::{self, ApiError};
use crate::charts::ChartData;

/// The chart's data: `None` while loading.
pub type Loaded = Option<Result<ChartData, ApiError>>;

/// Resizing must pause this long (ms) before the series is fetched for the new width.
const RESIZE_PAUSE_MS: f64 = 150.0;

/// The canvas' width in whole CSS pixels (0 until laid out): the first size at once, later
/// changes once resizing has paused, since each change refetches the series.
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

/// Points appended live beyond this many (times the canvas width) make the chart refetch
/// its series, reduced again, so drawing stays as cheap as after a fetch.
const LIVE_POINTS_PER_PIXEL: usize = 2;

/// The series of `key` for the chart's width, x axis and zoom, fetched again whenever
/// `refresh` changes; `None` while loading (or before the canvas has a width). With
/// `live`, the run's new points are appended as they arrive (see [`LiveSeries`]).
pub fn use_series(
    run_id: String,
    key: String,
    x_axis: Signal<json::XAxis>,
    width: ReadSignal<u32>,
    zoom: Signal<Option<(f64, f64)>>,
    refresh: Signal<u64>,
    live: Option<LiveSeries>,
) -> Memo<Loaded> {
    // Points received since the last fetch (raw, so they fit any axis).
    let appended = RwSignal::new(Vec::<json::SeriesPoint>::new());
    // Bumped when too many points were appended to keep drawing them raw.
    let compact = RwSignal::new(0u64);
    if let Some(live) = live {
        live.subscribe(run_id.clone(), key.clone(), move |points| {
            let limit = (width.get_untracked() as usize).max(500) * LIVE_POINTS_PER_PIXEL;
            let grown = appended.try_update(|a| {
                a.extend_from_slice(points);
                a.len()
            });
            if grown.is_some_and(|n| n > limit) {
                compact.try_update(|c| *c += 1);
            }
        });
    }
    let series = LocalResource::new(move || {
        refresh.track();
        compact.track();
        if let Some(live) = live {
            live.refetch.track();
        }
        let (run_id, zoom) = (run_id.clone(), zoom.get());
        let width = width.get();
        let q = json::SeriesQuery {
            key: key.clone(),
            x: x_axis.get(),
            width: Some(width),
            x_min: zoom.map(|(lo, _)| lo),
            x_max: zoom.map(|(_, hi)| hi),
        };
        async move {
            if width == 0 {
                return None;
            }
            Some(
                api::get_series(run_id, q)
                    .await
                    .map(|s| ChartData::from_series(&s, zoom)),
            )
        }
    });
    // A fresh fetch holds every point written before it: keep only the later ones.
    Effect::new(move |_| {
        series.with(|s| {
            if let Some(Some(Ok(d))) = s {
                appended.update(|a| a.retain(|p| d.is_new(p)));
            }
        })
    });
    Memo::new(move |_| {
        let base = series.with(|s| s.clone().flatten());
        match base {
            Some(Ok(mut d)) => {
                appended.with(|a| d.append(a, zoom.get()));
                Some(Ok(d))
            }
            other => other,
        }
    })
}
