//! Browser test: `charts::draw_series` paints a real canvas. A single spike among flat
//! points reaches the top of the plot in the line colour, and markers do not count as points.

#![cfg(target_arch = "wasm32")]

use app::charts::{draw_series, ChartData, ChartOptions, ChartPoint, Marker, NonFinite};
use app::theme::Theme;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn canvas() -> web_sys::HtmlCanvasElement {
    let doc = web_sys::window().unwrap().document().unwrap();
    let el = doc.create_element("canvas").unwrap();
    el.set_attribute("style", "width: 400px; height: 200px; display: block")
        .unwrap();
    doc.body().unwrap().append_child(&el).unwrap();
    el.dyn_into().unwrap()
}

#[wasm_bindgen_test]
fn spike_reaches_the_top_in_the_line_colour() {
    let canvas = canvas();
    let points = (0..1000)
        .map(|s| ChartPoint {
            x: s as f64,
            y: if s == 600 { 100.0 } else { 1.0 },
            step: s,
            timestamp: 0,
        })
        .collect();
    let data = ChartData {
        points,
        markers: vec![Marker {
            x: 10.0,
            kind: NonFinite::Nan,
            step: 10,
            timestamp: 0,
        }],
        x_range: Some((0.0, 999.0)),
        ..Default::default()
    };
    let palette = Theme::Light.palette();
    let opts = ChartOptions {
        x_axis: Default::default(),
        log_y: false,
        smoothing: 0.0,
        palette,
        pixel_ratio: 1.0,
    };
    let info = draw_series(&canvas, &data, &opts).unwrap();
    assert_eq!(info.drawn, 1000);
    assert!(info.y.data_hi >= 100.0 && info.y.data_lo < 1.0);
    assert_eq!(info.line_color, "#2563eb");

    let ctx: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    let img = ctx.get_image_data(0.0, 0.0, w, h).unwrap().data();
    let line = palette.line;
    let mut top_hits = Vec::new();
    let top_band = info.top + info.height * 0.1;
    for y in 0..(h as usize) {
        for x in 0..(w as usize) {
            let i = (y * w as usize + x) * 4;
            let (r, g, b) = (img[i], img[i + 1], img[i + 2]);
            if (r, g, b) == (line.0, line.1, line.2) && (y as f64) < top_band {
                top_hits.push(x as f64);
            }
        }
    }
    assert!(!top_hits.is_empty(), "the spike reaches the top band");
    let spike_px = info.left + 600.0 / 999.0 * info.width;
    assert!(
        top_hits.iter().all(|x| (x - spike_px).abs() <= 4.0),
        "{top_hits:?} vs {spike_px}"
    );
}
