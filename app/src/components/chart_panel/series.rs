//! The chart's data: the canvas' settled width and the M4-reduced series fetched for it.

use api_types as json;
use leptos::prelude::*;

use super::live::LiveSeries;
use crate::api::{self, ApiError};
use crate::charts::ChartData;

/// Which series a chart shows.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesId {
    /// The run's experiment (whose batched series endpoint serves the chart).
    pub experiment_id: String,
    /// Run id.
    pub run_id: String,
    /// Metric key.
    pub key: String,
}

/// The chart's data: `None` while loading.
pub type Loaded = Option<Result<ChartData, ApiError>>;

/// Points appended live beyond this many (times the canvas width) make the chart refetch
/// its series, reduced again, so drawing stays as cheap as after a fetch.
const LIVE_POINTS_PER_PIXEL: usize = 2;

/// The series of `key` for the chart's width, x axis and zoom, fetched again whenever
/// `refresh` changes; `None` while loading (or before the canvas has a width). With
/// `live`, the run's new points are appended as they arrive (see [`LiveSeries`]).
pub fn use_series(
    id: SeriesId,
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
        live.subscribe(id.run_id.clone(), id.key.clone(), move |points| {
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
        let (id, zoom) = (id.clone(), zoom.get());
        let width = width.get();
        let q = json::SeriesQuery {
            key: id.key.clone(),
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
                api::get_run_series(id.experiment_id, id.run_id, q)
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
