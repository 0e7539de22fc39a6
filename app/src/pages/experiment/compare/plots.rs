//! The compare view's charts: parallel coordinates over chosen params and one metric
//! (`pcp=`, `pcm=`), and a scatter of two columns (`sx=`, `sy=`) whose points name their
//! run on hover. Each canvas reports `data-status` (`drawn`, `empty`, `error`) and what it
//! drew (`data-lines`, `data-points`) for the end-to-end tests.

use leptos::html::Canvas;
use leptos::prelude::*;
use leptos_use_element_size::{use_element_size, UseElementSizeReturn};

use plotters::style::RGBColor;

use super::brush::{self, Brush};
use super::draw::{draw_parallel, draw_scatter, rgb, ParallelChart, ParallelDrawn, ScatterChart};
use super::layout::{self, Point, Scale};
use super::model::{ColumnRef, Compared};
use crate::hooks::QueryState;
use crate::theme::use_theme;

/// Most param axes chosen by default.
const DEFAULT_PARAM_AXES: usize = 8;

fn set_attr(canvas: &web_sys::HtmlCanvasElement, k: &str, v: &str) {
    // Setting a data attribute cannot fail on a live element.
    let _ = canvas.set_attribute(k, v);
}

/// The params on the parallel-coordinates axes: those in `pcp=` that exist, else the
/// params that differ (at most [`DEFAULT_PARAM_AXES`]), else the first params.
pub fn param_axes(d: &Compared, chosen: &[String]) -> Vec<String> {
    let exists = |k: &String| d.params.iter().any(|(p, _)| p == k);
    let chosen: Vec<String> = chosen.iter().filter(|k| exists(k)).cloned().collect();
    if !chosen.is_empty() {
        return chosen;
    }
    let differing = d.differing_params();
    let pool = if differing.is_empty() {
        d.params.iter().map(|(k, _)| k.clone()).collect()
    } else {
        differing
    };
    pool.into_iter().take(DEFAULT_PARAM_AXES).collect()
}

/// The metric on the last axis: `pcm=` if the runs have it, else the first metric any
/// run has.
pub fn metric_axis(d: &Compared, chosen: Option<String>) -> Option<String> {
    let has = |k: &str| {
        d.metrics
            .iter()
            .any(|(m, v)| m == k && v.iter().any(Option::is_some))
    };
    chosen.filter(|k| has(k)).or_else(|| {
        d.metrics
            .iter()
            .find(|(_, v)| v.iter().any(Option::is_some))
            .map(|(k, _)| k.clone())
    })
}

/// The scatter's columns: `sx=`/`sy=` when valid, else the first differing param (or
/// first column) against the first metric (or the next column).
pub fn scatter_axes(
    d: &Compared,
    sx: Option<String>,
    sy: Option<String>,
) -> Option<(ColumnRef, ColumnRef)> {
    let cols = d.columns();
    let pick = |s: Option<String>| {
        s.and_then(|s| ColumnRef::parse(&s))
            .filter(|c| cols.contains(c))
    };
    let default_x = d
        .differing_params()
        .into_iter()
        .map(ColumnRef::Param)
        .find(|c| cols.contains(c))
        .or_else(|| cols.first().cloned())?;
    let x = pick(sx).unwrap_or(default_x);
    let y = pick(sy).unwrap_or_else(|| {
        cols.iter()
            .find(|c| matches!(c, ColumnRef::Metric(_)) && **c != x)
            .or_else(|| cols.iter().find(|c| **c != x))
            .cloned()
            .unwrap_or_else(|| x.clone())
    });
    Some((x, y))
}

/// Grey of a run without a value of the colour-by column.
const NO_VALUE_GREY: (u8, u8, u8) = (150, 150, 150);

/// Pixels either side of an axis where a drag brushes it.
const BRUSH_REACH: f64 = 14.0;

/// A drag in progress on an axis: the axis index and the fractions where it started and
/// is now.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Drag {
    axis: usize,
    from: f64,
    to: f64,
}

/// Parallel coordinates with their axis choices, colour-by (`pcc=<column>`) and brushes
/// (`brush=<column>:<lo>:<hi>`, repeatable).
#[component]
pub fn ParallelPanel(
    /// The compared runs.
    data: Signal<Compared>,
    /// The URL state.
    qs: QueryState,
) -> impl IntoView {
    let params = Memo::new(move |_| data.with(|d| param_axes(d, &qs.get_all("pcp"))));
    let metric = Memo::new(move |_| data.with(|d| metric_axis(d, qs.get("pcm"))));
    let cols = Memo::new(move |_| {
        let mut cols: Vec<ColumnRef> = params.get().into_iter().map(ColumnRef::Param).collect();
        cols.extend(metric.get().map(ColumnRef::Metric));
        cols
    });
    let colour_col = Memo::new(move |_| {
        qs.get("pcc")
            .and_then(|s| ColumnRef::parse(&s))
            .filter(|c| cols.with(|cs| cs.contains(c)))
    });
    let brushes = Memo::new(move |_| {
        qs.get_all("brush")
            .iter()
            .filter_map(|s| Brush::parse(s))
            .collect::<Vec<_>>()
    });
    // Scales and values of the shown axes.
    let axes = Memo::new(move |_| {
        data.with(|d| {
            let columns: Vec<_> = cols.with(|cs| cs.iter().map(|c| d.values(c)).collect());
            let scales: Vec<Scale> = columns.iter().map(|v| Scale::of(v)).collect();
            (columns, scales)
        })
    });
    let matches = Memo::new(move |_| {
        let runs = data.with(|d| d.runs.len());
        axes.with(|(columns, scales)| {
            cols.with(|cs| brushes.with(|b| brush::matching(b, cs, scales, columns, runs)))
        })
    });
    let colour_range = Memo::new(move |_| {
        let c = colour_col.get()?;
        let i = cols.with(|cs| cs.iter().position(|x| *x == c))?;
        axes.with(|(_, scales)| {
            let s = scales.get(i)?;
            let ticks = s.ticks(2);
            let lo = ticks.first()?.1.clone();
            let hi = match s {
                Scale::Numeric { hi, .. } => crate::format::axis(*hi),
                Scale::Categorical(c) => c.last()?.clone(),
            };
            let lo = match s {
                Scale::Numeric { lo, .. } => crate::format::axis(*lo),
                Scale::Categorical(_) => lo,
            };
            Some((lo, hi))
        })
    });
    let canvas = NodeRef::<Canvas>::new();
    let UseElementSizeReturn { width, .. } = use_element_size(canvas);
    let theme = use_theme();
    let drawn = RwSignal::new(None::<ParallelDrawn>);
    let drag = RwSignal::new(None::<Drag>);
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        if width.get() < 1.0 {
            return;
        }
        let pal = theme.get().palette();
        let cs = cols.get();
        if cs.is_empty() {
            set_attr(&el, "data-status", "empty");
            return;
        }
        let dragging = drag.get();
        let colour = colour_col.get();
        let matched = matches.get();
        data.with(|d| {
            axes.with(|(columns, scales)| {
                let colors: Vec<RGBColor> =
                    match colour.as_ref().and_then(|c| cs.iter().position(|x| x == c)) {
                        Some(i) => brush::colour_by(&scales[i], &columns[i], theme.get())
                            .into_iter()
                            .map(|c| {
                                let (r, g, b) = c.unwrap_or(NO_VALUE_GREY);
                                RGBColor(r, g, b)
                            })
                            .collect(),
                        None => d.runs.iter().map(|r| rgb(&r.color)).collect(),
                    };
                let dimmed: Vec<bool> = matched.iter().map(|m| !m).collect();
                let bands: Vec<Option<(f64, f64)>> = brushes.with(|bs| {
                    cs.iter()
                        .enumerate()
                        .map(|(a, c)| {
                            if let Some(g) = dragging.filter(|g| g.axis == a) {
                                return Some((g.from.min(g.to), g.from.max(g.to)));
                            }
                            let b = bs.iter().find(|b| b.column == *c)?;
                            let s = &scales[a];
                            let f = |u: f64| s.fraction_of_unit(u).clamp(0.0, 1.0);
                            Some((f(b.lo), f(b.hi)))
                        })
                        .collect()
                });
                let chart = ParallelChart {
                    titles: cs.iter().map(|c| c.key().to_owned()).collect(),
                    scales: scales.clone(),
                    columns: columns.clone(),
                    colors: &colors,
                    dimmed: &dimmed,
                    bands: &bands,
                };
                match draw_parallel(&el, &chart, &pal, window().device_pixel_ratio()) {
                    Ok(p) => {
                        set_attr(&el, "data-lines", &p.lines.to_string());
                        set_attr(&el, "data-axes", &cs.len().to_string());
                        let xs: Vec<String> = p.axis_x.iter().map(|x| format!("{x:.1}")).collect();
                        set_attr(&el, "data-axis-x", &xs.join(","));
                        set_attr(
                            &el,
                            "data-plot-y",
                            &format!("{:.1},{:.1}", p.area.top, p.area.top + p.area.height),
                        );
                        set_attr(&el, "data-status", "drawn");
                        drawn.set(Some(p));
                    }
                    Err(e) => {
                        leptos::logging::warn!("{e}");
                        set_attr(&el, "data-status", "error");
                    }
                }
            })
        });
    });
    let set_brush = move |column: ColumnRef, range: Option<(f64, f64)>| {
        let mut next: Vec<Brush> = brushes.get_untracked();
        next.retain(|b| b.column != column);
        if let Some((a, b)) = range {
            next.push(Brush::new(column, a, b));
        }
        let vals: Vec<String> = next.iter().map(Brush::query_value).collect();
        qs.update(|q| q.set_all("brush", &vals));
    };
    let on_down = move |ev: web_sys::PointerEvent| {
        let Some(p) = drawn.get_untracked() else {
            return;
        };
        let (x, y) = (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
        let Some(axis) = brush::axis_at(&p.axis_x, x, BRUSH_REACH) else {
            return;
        };
        ev.prevent_default();
        if let Some(el) = canvas.get_untracked() {
            let _ = el.set_pointer_capture(ev.pointer_id());
        }
        let t = brush::fraction_at_y(&p.area, y);
        drag.set(Some(Drag {
            axis,
            from: t,
            to: t,
        }));
    };
    let on_move = move |ev: web_sys::PointerEvent| {
        let (Some(g), Some(p)) = (drag.get_untracked(), drawn.get_untracked()) else {
            return;
        };
        let t = brush::fraction_at_y(&p.area, f64::from(ev.offset_y()));
        drag.set(Some(Drag { to: t, ..g }));
    };
    let on_up = move |_ev: web_sys::PointerEvent| {
        let (Some(g), Some(p)) = (drag.get_untracked(), drawn.get_untracked()) else {
            return;
        };
        drag.set(None);
        let Some(column) = cols.with_untracked(|cs| cs.get(g.axis).cloned()) else {
            return;
        };
        // A click without a drag (under 3 px) clears the axis' brush.
        if (g.to - g.from).abs() * p.area.height < 3.0 {
            set_brush(column, None);
            return;
        }
        let range = axes.with_untracked(|(_, scales)| {
            let s = scales.get(g.axis)?;
            Some((s.unit_at(g.from), s.unit_at(g.to)))
        });
        set_brush(column, range);
    };
    let all_params = Memo::new(move |_| {
        data.with(|d| d.params.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>())
    });
    let toggle = move |key: String, on: bool| {
        let mut next = params.get_untracked();
        next.retain(|k| *k != key);
        if on {
            next.push(key);
        }
        qs.update(|q| q.set_all("pcp", &next));
    };
    let metric_options = move || {
        data.with(|d| {
            d.metrics
                .iter()
                .filter(|(_, v)| v.iter().any(Option::is_some))
                .map(|(k, _)| {
                    let k = k.clone();
                    let sel = metric.get().as_deref() == Some(k.as_str());
                    view! { <option value=k.clone() selected=sel>{k.clone()}</option> }
                })
                .collect_view()
        })
    };
    let colour_options = move || {
        let current = colour_col.get();
        let run = view! { <option value="" selected=current.is_none()>"Run colour"</option> };
        let cols = cols.get().into_iter().map(|c| {
            let v = c.query_value();
            let sel = current.as_ref() == Some(&c);
            view! { <option value=v.clone() selected=sel>{c.key().to_owned()}</option> }
        });
        (run, cols.collect_view())
    };
    let shown_brushes = move || {
        cols.with(|cs| brushes.with(|b| b.iter().filter(|b| cs.contains(&b.column)).count()))
    };
    let count = move || {
        let m = matches.with(|m| m.iter().filter(|x| **x).count());
        let total = matches.with(Vec::len);
        format!("{m} of {total} runs")
    };
    view! {
        <section class="card compare-plot">
            <div class="table-toolbar plot-toolbar">
                <h2 class="card-title-inline">"Parallel coordinates"</h2>
                <details class="axis-picker">
                    <summary class="button button-small">{move || format!("Params ({})", params.with(Vec::len))}</summary>
                    <div class="axis-picker-menu" role="group" aria-label="Param axes">
                        <For each=move || all_params.get() key=|k| k.clone() let:key>
                            {
                                let k = key.clone();
                                let checked = move || params.with(|p| p.contains(&k));
                                let k2 = key.clone();
                                view! {
                                    <label class="check">
                                        <input type="checkbox" prop:checked=checked
                                            on:change=move |ev| toggle(k2.clone(), event_target_checked(&ev)) />
                                        <span class="truncate" title=key.clone()>{key.clone()}</span>
                                    </label>
                                }
                            }
                        </For>
                    </div>
                </details>
                <label class="inline-select">
                    <span class="muted small">"Metric"</span>
                    <select class="select" aria-label="Metric axis"
                        on:change=move |ev| qs.set("pcm", Some(event_target_value(&ev)))>
                        {metric_options}
                    </select>
                </label>
                <label class="inline-select">
                    <span class="muted small">"Colour by"</span>
                    <select class="select" aria-label="Colour by"
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            qs.set("pcc", (!v.is_empty()).then_some(v));
                        }>
                        {colour_options}
                    </select>
                </label>
            </div>
            <div class="pc-status">
                <span class="muted small" data-testid="brush-count">{count}</span>
                <Show when=move || { shown_brushes() != 0 }>
                    <button type="button" class="button button-small"
                        on:click=move |_| qs.update(|q| q.set_all("brush", &[]))>"Clear"</button>
                </Show>
                <span class="muted small pc-hint">"Drag on an axis to filter; click it to clear"</span>
                {move || colour_range.get().map(|(lo, hi)| view! {
                    <span class="colour-legend" data-testid="colour-legend">
                        <span class="small">{lo}</span>
                        <span class="colour-ramp" style=move || format!("background:{}", brush::gradient_css(theme.get()))></span>
                        <span class="small">{hi}</span>
                    </span>
                })}
            </div>
            <canvas node_ref=canvas class="compare-canvas pc-canvas" data-testid="parallel-coordinates"
                role="img" aria-label="Parallel coordinates of the compared runs"
                on:pointerdown=on_down on:pointermove=on_move on:pointerup=on_up
                on:pointercancel=move |_| drag.set(None)></canvas>
        </section>
    }
}

/// The scatter of two columns, with hover naming the run.
#[component]
pub fn ScatterPanel(
    /// The compared runs.
    data: Signal<Compared>,
    /// The URL state.
    qs: QueryState,
) -> impl IntoView {
    let axes = Memo::new(move |_| data.with(|d| scatter_axes(d, qs.get("sx"), qs.get("sy"))));
    let canvas = NodeRef::<Canvas>::new();
    let UseElementSizeReturn { width, .. } = use_element_size(canvas);
    let theme = use_theme();
    let points = RwSignal::new(Vec::<Point>::new());
    let hover = RwSignal::new(None::<Point>);
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        if width.get() < 1.0 {
            return;
        }
        let pal = theme.get().palette();
        let Some((x, y)) = axes.get() else {
            set_attr(&el, "data-status", "empty");
            return;
        };
        data.with(|d| {
            let (xs, ys) = (d.values(&x), d.values(&y));
            let chart = ScatterChart {
                x: (x.query_value(), Scale::of(&xs)),
                y: (y.query_value(), Scale::of(&ys)),
                xs,
                ys,
                colors: &d.runs.iter().map(|r| r.color.clone()).collect::<Vec<_>>(),
            };
            match draw_scatter(&el, &chart, &pal, window().device_pixel_ratio()) {
                Ok(p) => {
                    set_attr(&el, "data-points", &p.len().to_string());
                    set_attr(&el, "data-status", "drawn");
                    points.set(p);
                }
                Err(e) => {
                    leptos::logging::warn!("{e}");
                    set_attr(&el, "data-status", "error");
                }
            }
        });
    });
    let options = move |current: Option<ColumnRef>| {
        data.with(|d| {
            d.columns()
                .into_iter()
                .map(|c| {
                    let v = c.query_value();
                    let sel = current.as_ref() == Some(&c);
                    view! { <option value=v.clone() selected=sel>{v.clone()}</option> }
                })
                .collect_view()
        })
    };
    let on_move = move |ev: web_sys::MouseEvent| {
        let p = points
            .with(|p| layout::nearest(p, f64::from(ev.offset_x()), f64::from(ev.offset_y()), 10.0));
        hover.set(p);
    };
    let tip = move || {
        let p = hover.get()?;
        let (name, color) =
            data.with(|d| d.runs.get(p.run).map(|r| (r.name.clone(), r.color.clone())))?;
        let style = format!("left:{}px;top:{}px;border-color:{color}", p.x, p.y);
        Some(view! { <div class="scatter-tip" role="tooltip" style=style>{name}</div> })
    };
    view! {
        <section class="card compare-plot">
            <div class="table-toolbar plot-toolbar">
                <h2 class="card-title-inline">"Scatter"</h2>
                <label class="inline-select">
                    <span class="muted small">"x"</span>
                    <select class="select" aria-label="Scatter x"
                        on:change=move |ev| qs.set("sx", Some(event_target_value(&ev)))>
                        {move || options(axes.get().map(|a| a.0))}
                    </select>
                </label>
                <label class="inline-select">
                    <span class="muted small">"y"</span>
                    <select class="select" aria-label="Scatter y"
                        on:change=move |ev| qs.set("sy", Some(event_target_value(&ev)))>
                        {move || options(axes.get().map(|a| a.1))}
                    </select>
                </label>
            </div>
            <div class="scatter-wrap">
                <canvas node_ref=canvas class="compare-canvas" data-testid="scatter"
                    role="img" aria-label="Scatter of the compared runs"
                    on:mousemove=on_move on:mouseleave=move |_| hover.set(None)></canvas>
                {tip}
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::RunCol;
    use super::*;

    fn data() -> Compared {
        let run = |id: &str| RunCol {
            id: id.into(),
            name: id.into(),
            color: "#000000".into(),
        };
        Compared {
            runs: vec![run("a"), run("b")],
            params: vec![
                ("batch".into(), vec![Some("32".into()), Some("32".into())]),
                ("lr".into(), vec![Some("0.1".into()), Some("0.01".into())]),
            ],
            metrics: vec![
                ("acc".into(), vec![None, None]),
                ("loss".into(), vec![Some(1.0), Some(2.0)]),
            ],
            tags: Vec::new(),
        }
    }

    #[test]
    fn parallel_defaults_to_differing_params_and_first_metric() {
        let d = data();
        assert_eq!(param_axes(&d, &[]), ["lr"]);
        assert_eq!(param_axes(&d, &["batch".into(), "nope".into()]), ["batch"]);
        assert_eq!(metric_axis(&d, None).as_deref(), Some("loss"));
        assert_eq!(metric_axis(&d, Some("acc".into())).as_deref(), Some("loss"));
        let same = Compared {
            params: vec![d.params[0].clone()],
            ..d
        };
        assert_eq!(param_axes(&same, &[]), ["batch"]);
    }

    #[test]
    fn scatter_defaults_and_choices() {
        let d = data();
        let (x, y) = scatter_axes(&d, None, None).unwrap();
        assert_eq!(
            (x.query_value(), y.query_value()),
            ("params.lr".into(), "metrics.loss".into())
        );
        let (x, y) =
            scatter_axes(&d, Some("params.batch".into()), Some("params.lr".into())).unwrap();
        assert_eq!(
            (x.query_value(), y.query_value()),
            ("params.batch".into(), "params.lr".into())
        );
        // A column no run has falls back to the default.
        let (_, y) = scatter_axes(&d, None, Some("metrics.acc".into())).unwrap();
        assert_eq!(y.query_value(), "metrics.loss");
        assert_eq!(scatter_axes(&Compared::default(), None, None), None);
    }
}
