//! Painting the chart: draws whenever the data, options, theme or width change, and
//! reports the outcome in `data-*` attributes (which the end-to-end tests read).

use api_types as json;
use leptos::html::Canvas;
use leptos::prelude::*;

use super::series::Loaded;
use crate::charts::canvas_state::{record, set_status};
use crate::charts::{self, ChartOptions, DrawInfo};
use crate::theme::use_theme;

/// Draws `loaded` and records `data-status` (`loading`, `error`, `empty`, `drawn`) and,
/// once drawn, `data-points`, `data-y-min`, `data-y-max` and `data-line-color`.
fn draw(
    canvas: &web_sys::HtmlCanvasElement,
    loaded: &Loaded,
    opts: ChartOptions,
) -> Option<DrawInfo> {
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
    let opts = ChartOptions {
        x_axis: d.x_axis,
        ..opts
    };
    let empty = d.points.is_empty() && d.markers.is_empty();
    record(canvas, charts::draw_series(canvas, d, &opts), |info| {
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
    x_axis: Signal<json::XAxis>,
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
        let opts = ChartOptions {
            x_axis: x_axis.get(),
            log_y: log_y.get(),
            smoothing: smoothing.get(),
            palette: theme.get().palette(),
            pixel_ratio: window().device_pixel_ratio(),
        };
        info.set(loaded.with(|l| draw(&canvas, l, opts)));
    });
    info
}
