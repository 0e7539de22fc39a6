//! One metric chart: fetches the M4-reduced series for the canvas' width and the zoomed
//! range, draws it with [`charts::draw_series`], and handles hover (tooltip), drag to
//! zoom and double-click to reset.

mod hover;
mod legend;
mod tooltip;

use api_types as json;
use leptos::html::Canvas;
use leptos::prelude::*;
use web_sys::MouseEvent;

use crate::api::{self, ApiError, SeriesQuery};
use crate::charts::{self, nearest::pixel_to_x, ChartData, ChartOptions, DrawInfo};
use crate::hooks::use_element_width;
use crate::theme::use_theme;
use hover::{hover_at, Hover};
use legend::Legend;
use tooltip::tooltip_view;

/// Minimum drag, in CSS pixels, that counts as a zoom.
const MIN_DRAG: f64 = 5.0;

type Loaded = Option<Result<ChartData, ApiError>>;

fn set_attrs(canvas: &web_sys::HtmlCanvasElement, attrs: &[(&str, String)]) {
    for (k, v) in attrs {
        // Setting a data attribute cannot fail on a live element.
        let _ = canvas.set_attribute(k, v);
    }
}

fn draw(
    canvas: &web_sys::HtmlCanvasElement,
    loaded: &Loaded,
    opts: ChartOptions,
) -> Option<DrawInfo> {
    let status = |s: &str| set_attrs(canvas, &[("data-status", s.to_owned())]);
    match loaded {
        None => status("loading"),
        Some(Err(_)) => status("error"),
        Some(Ok(d)) => match charts::draw_series(
            canvas,
            d,
            &ChartOptions {
                x_axis: d.x_axis,
                ..opts
            },
        ) {
            Ok(info) => {
                set_attrs(
                    canvas,
                    &[
                        ("data-points", info.drawn.to_string()),
                        ("data-y-min", info.y.data_lo.to_string()),
                        ("data-y-max", info.y.data_hi.to_string()),
                        ("data-line-color", info.line_color.clone()),
                        (
                            "data-status",
                            if d.points.is_empty() && d.markers.is_empty() {
                                "empty"
                            } else {
                                "drawn"
                            }
                            .to_owned(),
                        ),
                    ],
                );
                return Some(info);
            }
            Err(msg) => {
                leptos::logging::warn!("{msg}");
                status("error");
            }
        },
    }
    None
}

/// A chart of one metric of one run.
#[component]
pub fn ChartPanel(
    /// Run id.
    run_id: String,
    /// Metric key.
    key: String,
    /// X axis.
    #[prop(into)]
    x_axis: Signal<json::XAxis>,
    /// Log y axis.
    #[prop(into)]
    log_y: Signal<bool>,
    /// EMA smoothing weight in `[0, 1)`.
    #[prop(into)]
    smoothing: Signal<f64>,
    /// Zoomed x range (axis units), if any.
    #[prop(into)]
    zoom: Signal<Option<(f64, f64)>>,
    /// Called with a new zoom range, or `None` to reset.
    on_zoom: Callback<Option<(f64, f64)>>,
) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    let width = use_element_width(canvas_ref);
    let theme = use_theme();
    let info = RwSignal::new(None::<DrawInfo>);
    let hover = RwSignal::new(None::<Hover>);
    let drag = RwSignal::new(None::<(f64, f64)>);
    let series = {
        let key = key.clone();
        LocalResource::new(move || {
            let (run_id, zoom) = (run_id.clone(), zoom.get());
            let q = SeriesQuery {
                key: key.clone(),
                x: x_axis.get(),
                width: width.get(),
                range: zoom,
            };
            async move {
                if q.width == 0 {
                    return None;
                }
                Some(
                    api::get_series(run_id, q)
                        .await
                        .map(|s| ChartData::from_series(&s, zoom)),
                )
            }
        })
    };
    let loaded = Memo::new(move |_| series.with(|s| s.clone().flatten()));

    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let _ = width.get();
        let opts = ChartOptions {
            x_axis: x_axis.get(),
            log_y: log_y.get(),
            smoothing: smoothing.get(),
            palette: theme.get().palette(),
            pixel_ratio: window().device_pixel_ratio(),
        };
        info.set(loaded.with(|l| draw(&canvas, l, opts)));
    });

    let offset_x = |ev: &MouseEvent| f64::from(ev.offset_x());
    let on_move = move |ev: MouseEvent| {
        let px = offset_x(&ev);
        if let Some((start, _)) = drag.get_untracked() {
            drag.set(Some((start, px)));
        }
        let h = info.with_untracked(|i| {
            let i = i.as_ref()?;
            loaded.with_untracked(|l| match l {
                Some(Ok(d)) => hover_at(px, i, d, log_y.get_untracked(), smoothing.get_untracked()),
                _ => None,
            })
        });
        hover.set(h);
    };
    let on_down = move |ev: MouseEvent| {
        if ev.button() == 0 {
            ev.prevent_default();
            let px = offset_x(&ev);
            drag.set(Some((px, px)));
        }
    };
    let on_up = move |_ev: MouseEvent| {
        let Some((a, b)) = drag.get_untracked() else {
            return;
        };
        drag.set(None);
        if (a - b).abs() < MIN_DRAG {
            return;
        }
        if let Some(i) = info.get_untracked() {
            let (lo, hi) = (
                pixel_to_x(a.min(b), i.left, i.width, i.x_range),
                pixel_to_x(a.max(b), i.left, i.width, i.x_range),
            );
            if hi > lo {
                on_zoom.run(Some((lo, hi)));
            }
        }
    };
    let status_overlay = move || {
        loaded.with(|l| match l {
            None => Some(
                view! { <div class="chart-overlay"><span class="spinner"></span></div> }.into_any(),
            ),
            Some(Err(e)) => Some(
                view! { <div class="chart-overlay error" role="alert">{e.message.clone()}</div> }
                    .into_any(),
            ),
            Some(Ok(d)) if d.points.is_empty() && d.markers.is_empty() => Some(
                view! { <div class="chart-overlay muted">"No points in this range"</div> }
                    .into_any(),
            ),
            _ => None,
        })
    };
    let selection = move || {
        drag.get().filter(|(a, b)| (a - b).abs() >= 1.0).map(|(a, b)| {
            let top = info.with(|i| i.as_ref().map_or(0.0, |i| i.top));
            let h = info.with(|i| i.as_ref().map_or(0.0, |i| i.height));
            view! { <div class="chart-selection" style=format!("left:{}px;width:{}px;top:{top}px;height:{h}px", a.min(b), (a - b).abs())></div> }
        })
    };
    let tooltip = move || {
        hover
            .get()
            .filter(|_| drag.get().is_none())
            .map(|h| tooltip_view(h, loaded, info))
    };
    let title = key.clone();
    view! {
        <section class="chart-card">
            <header class="chart-header">
                <h3 class="chart-title truncate" title=title.clone()>{title.clone()}</h3>
                <Show when=move || zoom.get().is_some()>
                    <button class="button button-small" on:click=move |_| on_zoom.run(None)>"Reset zoom"</button>
                </Show>
            </header>
            <div class="chart-body">
                <canvas
                    node_ref=canvas_ref
                    class="chart-canvas"
                    data-testid=format!("chart-{key}")
                    data-status="loading"
                    on:mousemove=on_move
                    on:mousedown=on_down
                    on:mouseup=on_up
                    on:mouseleave=move |_| { hover.set(None); drag.set(None); }
                    on:dblclick=move |_| on_zoom.run(None)
                ></canvas>
                {selection}
                {tooltip}
                {status_overlay}
            </div>
            <Legend loaded=loaded info=info zoomed=Signal::derive(move || zoom.get().is_some()) />
        </section>
    }
}
