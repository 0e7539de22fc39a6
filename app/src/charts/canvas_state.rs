//! What a chart canvas records about its last painting in `data-*` attributes: the
//! end-to-end tests read them, and they say at a glance in the inspector why a chart is
//! blank (`data-status`: `loading`, `error`, `empty` or `drawn`).

use web_sys::HtmlCanvasElement;

use super::draw::{DrawError, DrawInfo};

/// Sets `data-*` attributes on `canvas`.
pub(crate) fn set_attrs(canvas: &HtmlCanvasElement, attrs: &[(&str, String)]) {
    for (k, v) in attrs {
        // Setting a data attribute cannot fail on a live element.
        let _ = canvas.set_attribute(k, v);
    }
}

/// Records `data-status` alone (`loading`, `error`, `empty`).
pub(crate) fn set_status(canvas: &HtmlCanvasElement, status: &str) {
    set_attrs(canvas, &[("data-status", status.to_owned())]);
}

/// Records the outcome of a painting: on success, `attrs` (the chart's own facts) and
/// `data-status` `empty` or `drawn` as `empty` says; on failure, a warning in the console
/// and `data-status="error"`.
pub(crate) fn record(
    canvas: &HtmlCanvasElement,
    drawn: Result<DrawInfo, DrawError>,
    facts: impl FnOnce(&DrawInfo) -> (bool, Vec<(&'static str, String)>),
) -> Option<DrawInfo> {
    match drawn {
        Ok(info) => {
            let (empty, mut attrs) = facts(&info);
            attrs.push(("data-status", if empty { "empty" } else { "drawn" }.into()));
            set_attrs(canvas, &attrs);
            Some(info)
        }
        Err(e) => {
            leptos::logging::warn!("{e}");
            set_status(canvas, "error");
            None
        }
    }
}
