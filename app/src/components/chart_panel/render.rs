//! Painting the chart: draws whenever the data, options, theme or width change, and
//! reports the outcome in `data-*` attributes (which the end-to-end tests read).

use leptos::html::Canvas;
use leptos::prelude::*;

use super::series::Loaded;
use crate::charts::canvas_state::{record, set_status};
use crate::charts::{draw_multi, ChartData, DrawInfo, Layout, Line, MultiChart, Palette};
use crate::theme::use_theme;

/// How the chart is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Options {
    log_y: bool,
    smoothing: f64,
    palette: Palette,
    pixel_ratio: f64,
}

/// The chart of `d`: one line in the palette's line colour (smoothed over the faint raw
/// line when smoothing is on) with its NaN and ±inf markers.
fn chart_of(d: &ChartData, o: &Options) -> MultiChart {
    let line = Line {
        markers: d.markers.clone(),
        ..Line::smoothed(String::new(), o.palette.line, d.xy(), o.smoothing)
    };
    MultiChart {
        layout: Layout::SINGLE,
        ..MultiChart::new(vec![line], d.x_range, d.x_axis, o.log_y)
    }
}

/// Draws `loaded` and records `data-status` (`loading`, `error`, `empty`, `drawn`) and,
/// once drawn, `data-points`, `data-y-min`, `data-y-max` and `data-line-color`.
fn draw(canvas: &web_sys::HtmlCanvasElement, loaded: &Loaded, opts: Options) -> Option<DrawInfo> {
    let d = match loaded {
        None => {
            set_status(canvas, "loading");
            return None;
        }
        Some(Err(_)) => {
            set_status(canvas, "error");
            return None;
        }
        Some(Ok(d)) => d,
    };
    let empty = d.points.is_empty() && d.markers.is_empty();
    let drawn = draw_multi(canvas, &chart_of(d, &opts), &opts.palette, opts.pixel_ratio);
    record(canvas, drawn, |info| {
        let facts = vec![
            ("data-points", info.drawn.to_string()),
            ("data-y-min", info.y.data_lo.to_string()),
            ("data-y-max", info.y.data_hi.to_string()),
            ("data-line-color", info.line_color.clone()),
        ];
        (empty, facts)
    })
}

/// Redraws the canvas when anything it shows changes; returns where the last drawing put
/// the plot (for hover and zoom), `None` until something is drawn.
pub fn use_chart_drawing(
    canvas: NodeRef<Canvas>,
    loaded: Memo<Loaded>,
    width: ReadSignal<u32>,
    log_y: Signal<bool>,
    smoothing: Signal<f64>,
) -> RwSignal<Option<DrawInfo>> {
    let theme = use_theme();
    let info = RwSignal::new(None::<DrawInfo>);
    Effect::new(move |_| {
        let Some(canvas) = canvas.get() else {
            return;
        };
        let _ = width.get();
        let opts = Options {
            log_y: log_y.get(),
            smoothing: smoothing.get(),
            palette: theme.get().palette(),
            pixel_ratio: window().device_pixel_ratio(),
        };
        info.set(loaded.with(|l| draw(&canvas, l, opts)));
    });
    info
}
