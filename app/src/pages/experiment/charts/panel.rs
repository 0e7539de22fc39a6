//! One panel of the chart view: one metric of every shown run. It fetches only while on
//! screen, in ONE batched request for all its runs at its canvas' width (M4 per run),
//! appends live points, and shares its crosshair and zoom with every other panel.

use api_types as json;
use json::workspace::SeriesBatchQuery;
use leptos::html::{Canvas, Section};
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::MouseEvent;

use super::data::{append, build_chart, from_batch, LineOptions, PanelChart, RunSeries};
use super::settings::{zoom_value, XChoice};
use super::tooltip::{BarTooltip, Tooltip};
use super::visibility::use_visible;
use super::ViewCtx;
use crate::api::{self, ApiError};
use crate::charts::bars::{bar_at, draw_bars};
use crate::charts::canvas_state::{record, set_status};
use crate::charts::multi::draw_multi;
use crate::charts::nearest::{drag_range, pixel_to_x, x_to_pixel};
use crate::charts::DrawInfo;
use crate::components::chart_panel::Selection;
use crate::hooks::use_settled_width;
use crate::theme::use_theme;

/// What a panel's request depends on: a change refetches.
#[derive(Debug, Clone, PartialEq)]
struct FetchKey {
    runs: Vec<String>,
    x: XChoice,
    zoom: Option<(f64, f64)>,
    width: u32,
    refresh: u64,
}

/// The panel's series: `None` until the first answer.
pub(crate) type Loaded = Option<Result<Vec<RunSeries>, ApiError>>;

/// Draws the panel and records `data-status` (`loading`, `error`, `empty`, `drawn`),
/// `data-kind` (`lines` or `bars`), `data-lines` (lines or bars), `data-points`,
/// `data-colors` (their colours) and `data-x-min`/`-max` for the tests.
pub(crate) fn paint(
    canvas: &web_sys::HtmlCanvasElement,
    loaded: &Loaded,
    pc: Option<&PanelChart>,
    pal: &crate::charts::Palette,
) -> Option<DrawInfo> {
    let (Some(Ok(_)), Some(pc)) = (loaded, pc) else {
        set_status(
            canvas,
            match loaded {
                None => "loading",
                Some(Err(_)) => "error",
                Some(Ok(_)) => "empty",
            },
        );
        return None;
    };
    let dpr = window().device_pixel_ratio();
    let (drawn, kind, colors) = match &pc.bars {
        Some(bars) => (
            draw_bars(canvas, bars, pal, dpr),
            "bars",
            bars.iter().map(|b| b.color).collect::<Vec<_>>(),
        ),
        None => (
            draw_multi(canvas, &pc.chart, pal, dpr),
            "lines",
            pc.chart.lines.iter().map(|l| l.color).collect(),
        ),
    };
    record(canvas, drawn, |info| {
        let colors: Vec<String> = colors.into_iter().map(crate::charts::draw::hex).collect();
        let facts = vec![
            ("data-kind", kind.to_owned()),
            ("data-lines", colors.len().to_string()),
            ("data-points", info.drawn.to_string()),
            ("data-colors", colors.join(",")),
            ("data-x-min", info.x_range.0.to_string()),
            ("data-x-max", info.x_range.1.to_string()),
        ];
        (colors.is_empty(), facts)
    })
}

/// One metric's panel.
#[component]
pub fn Panel(
    /// Metric key.
    key: String,
    /// The view's shared state.
    ctx: ViewCtx,
) -> impl IntoView {
    let section = NodeRef::<Section>::new();
    let canvas = NodeRef::<Canvas>::new();
    let visible = use_visible(section);
    let width = use_settled_width(canvas);
    let loaded = RwSignal::new(None::<Result<Vec<RunSeries>, ApiError>>);
    let loading = RwSignal::new(false);
    // Bumped when live points name a run this panel has no series of yet.
    let local_refresh = RwSignal::new(0u64);
    let settings = ctx.settings;
    let fetch_key = Memo::new(move |_| {
        let s = settings.get();
        FetchKey {
            // Hidden runs are fetched too, so hiding and showing one redraws without a request.
            runs: ctx.selected.get(),
            // With another metric as x, zoom is drawn, not fetched (the server zooms by step).
            zoom: if s.x.x_key().is_some() { None } else { s.zoom },
            x: s.x,
            width: width.get(),
            refresh: ctx.refresh.get() + local_refresh.get(),
        }
    });
    let fetched = StoredValue::new(None::<FetchKey>);
    let generation = StoredValue::new(0u64);
    let exp = ctx.experiment_id;
    let k = key.clone();
    Effect::new(move |_| {
        let fk = fetch_key.get();
        if !visible.get() || fk.width == 0 || fetched.with_value(|f| f.as_ref() == Some(&fk)) {
            return;
        }
        fetched.set_value(Some(fk.clone()));
        generation.update_value(|g| *g += 1);
        let gen = generation.get_value();
        if fk.runs.is_empty() {
            loaded.set(Some(Ok(Vec::new())));
            return;
        }
        loading.set(true);
        let q = SeriesBatchQuery {
            runs: fk.runs.clone(),
            keys: vec![k.clone()],
            x: fk.x.axis(),
            x_key: fk.x.x_key(),
            width: Some(fk.width),
            x_min: fk.zoom.map(|z| z.0),
            x_max: fk.zoom.map(|z| z.1),
        };
        let (k, id) = (k.clone(), exp.get_value());
        spawn_local(async move {
            let got = api::get_series_batch(id, q)
                .await
                .map(|b| from_batch(&b, &k, fk.zoom));
            if generation.try_get_value() == Some(gen) {
                loaded.try_set(Some(got));
                loading.try_set(false);
            }
        });
    });
    // Live points of this key: appended to what is drawn (not while zoomed).
    let k = key.clone();
    Effect::new(move |_| {
        let Some(u) = ctx.live.get() else { return };
        let s = settings.get_untracked();
        if s.zoom.is_some() || s.x.x_key().is_some() || loading.get_untracked() {
            return;
        }
        let selected = ctx.selected.get_untracked();
        let mine: Vec<&json::workspace::LivePoints> = u
            .series
            .iter()
            .filter(|p| p.key == k && selected.contains(&p.run_id))
            .collect();
        if mine.is_empty() {
            return;
        }
        let mut unknown = false;
        loaded.update(|l| {
            if let Some(Ok(list)) = l {
                for lp in &mine {
                    match list.iter_mut().find(|s| s.run_id == lp.run_id) {
                        Some(rs) => {
                            append(rs, &lp.points);
                        }
                        None => unknown = true,
                    }
                }
            }
        });
        if unknown {
            local_refresh.update(|n| *n += 1);
        }
    });
    let theme = use_theme();
    // Only what drawing depends on (the search, say, does not redraw).
    let options = Memo::new(move |_| {
        let columns = width.get().max(1) as usize;
        settings.with(|s| LineOptions {
            smoothing: s.smoothing,
            columns,
            zoom: s.zoom,
            x_axis: s.x.axis(),
            log_y: s.log_y,
            bars: true,
        })
    });
    let chart = Memo::new(move |_| {
        let o = options.get();
        let specs = ctx.specs.get();
        loaded.with(|l| match l {
            Some(Ok(list)) => Some(build_chart(list, &specs, o)),
            _ => None,
        })
    });
    let info = RwSignal::new(None::<DrawInfo>);
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        width.track();
        let pal = theme.get().palette();
        let drawn = loaded.with(|l| chart.with(|pc| paint(&el, l, pc.as_ref(), &pal)));
        info.set(drawn);
    });

    let drag = RwSignal::new(None::<(f64, f64)>);
    let cursor_y = RwSignal::new(None::<f64>);
    // Bars have no x to share: hovering one names it here, zooming does nothing.
    let bars = Memo::new(move |_| chart.with(|c| c.as_ref().is_some_and(PanelChart::is_bars)));
    let hovered_bar = RwSignal::new(None::<usize>);
    let k = key.clone();
    let moved = move |ev: MouseEvent| {
        let px = f64::from(ev.offset_x());
        cursor_y.set(Some(f64::from(ev.offset_y())));
        if bars.get_untracked() {
            let n = chart.with_untracked(|c| c.as_ref().map_or(0, |pc| pc.specs.len()));
            let bar =
                info.with_untracked(|i| i.as_ref().and_then(|i| bar_at(px, n, i.left, i.width)));
            hovered_bar.set(bar);
            return;
        }
        if let Some((start, _)) = drag.get_untracked() {
            drag.set(Some((start, px)));
        }
        let x = info.with_untracked(|i| {
            i.as_ref()
                .map(|i| pixel_to_x(px, i.left, i.width, i.x_range))
        });
        ctx.hover.set(x.map(|x| (k.clone(), x)));
    };
    let released = move || {
        let Some((a, b)) = drag.get_untracked() else {
            return;
        };
        drag.set(None);
        let range = info.with_untracked(|i| i.as_ref().and_then(|i| drag_range(a, b, i)));
        if range.is_some() {
            ctx.qs.update(|q| q.set("zoom", zoom_value(range)));
        }
    };
    let reset = move || ctx.qs.update(|q| q.set("zoom", None));
    let k = key.clone();
    let left = move || {
        drag.set(None);
        cursor_y.set(None);
        hovered_bar.set(None);
        if ctx
            .hover
            .with_untracked(|h| h.as_ref().is_some_and(|(hk, _)| *hk == k))
        {
            ctx.hover.set(None);
        }
    };
    let crosshair = move || {
        if bars.get() {
            return None;
        }
        let (_, x) = ctx.hover.get()?;
        let px = info.with(|i| {
            let i = i.as_ref()?;
            let (lo, hi) = i.x_range;
            (x >= lo && x <= hi).then(|| x_to_pixel(x, i.left, i.width, i.x_range))
        })?;
        Some(view! { <div class="chart-crosshair" style=format!("left:{px}px")></div> })
    };
    let k = key.clone();
    let hovered_x = Signal::derive(move || {
        ctx.hover
            .get()
            .filter(|(hk, _)| *hk == k && drag.get().is_none())
            .map(|(_, x)| x)
    });
    let overlay = move || {
        let l = loaded.get();
        match l {
            None => Some(
                view! { <div class="chart-overlay"><span class="spinner"></span></div> }.into_any(),
            ),
            Some(Err(e)) => Some(
                view! { <div class="chart-overlay error" role="alert">{e.message}</div> }
                    .into_any(),
            ),
            Some(Ok(list)) if list.is_empty() => Some(
                view! { <div class="chart-overlay muted">"No data for the shown runs"</div> }
                    .into_any(),
            ),
            Some(Ok(_)) if loading.get() => Some(
                view! { <div class="chart-overlay"><span class="spinner"></span></div> }.into_any(),
            ),
            _ => None,
        }
    };
    let missing = move || {
        let have: Vec<String> = loaded.with(|l| match l {
            Some(Ok(list)) => list.iter().map(|s| s.run_id.clone()).collect(),
            _ => Vec::new(),
        });
        if have.is_empty() {
            return None;
        }
        let names: Vec<String> = ctx
            .shown
            .get()
            .iter()
            .filter(|id| !have.contains(id))
            .map(|id| ctx.name_of(id))
            .collect();
        (!names.is_empty()).then(|| {
            view! { <footer class="wchart-missing muted small">{format!("No data for {}", names.join(", "))}</footer> }
        })
    };
    let zoomed = move || settings.with(|s| s.zoom.is_some());
    view! {
        <section class="chart-card wchart" node_ref=section data-key=key.clone()
            data-kind=move || if bars.get() { "bars" } else { "lines" }>
            <header class="chart-header">
                <h3 class="chart-title truncate" title=key.clone()>{key.clone()}</h3>
                <Show when=zoomed>
                    <button class="button button-small" type="button" on:click=move |_| reset()>"Reset zoom"</button>
                </Show>
            </header>
            <div class="chart-body">
                <canvas
                    node_ref=canvas
                    class="chart-canvas"
                    data-testid=format!("chart-{key}")
                    data-status="loading"
                    on:mousemove=moved
                    on:mousedown=move |ev| if ev.button() == 0 && !bars.get_untracked() {
                        ev.prevent_default();
                        let px = f64::from(ev.offset_x());
                        drag.set(Some((px, px)));
                    }
                    on:mouseup=move |_| released()
                    on:mouseleave=move |_| left()
                    on:dblclick=move |_| reset()
                ></canvas>
                {crosshair}
                <Selection drag=drag info=info />
                <Tooltip x=hovered_x cursor_y=cursor_y chart=chart info=info ctx=ctx />
                <BarTooltip bar=hovered_bar chart=chart info=info ctx=ctx />
                {overlay}
            </div>
            {missing}
        </section>
    }
}
