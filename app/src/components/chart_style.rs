//! The log-scale switch and smoothing slider that both chart pages share (the run's
//! Metrics tab and the experiment's Charts view), kept in the URL as `log=1` and
//! `smooth=0.60`.

use leptos::prelude::*;
use leptos_use_fn_debounce_throttle::use_debounce_fn_with_arg;

use crate::hooks::QueryState;

/// The smoothing slider must rest this long (ms) before its value goes into the URL.
const SLIDER_REST_MS: f64 = 200.0;

/// "Log scale" and "Smoothing": the slider moves `smoothing` at once (charts redraw as it
/// slides) and writes the URL once it rests, replacing the history entry.
#[component]
pub fn ChartStyleControls(
    /// The page's URL state.
    qs: QueryState,
    /// Whether the y axis is logarithmic (from the URL).
    #[prop(into)]
    log_y: Signal<bool>,
    /// The smoothing weight shown, 0 to 0.99.
    smoothing: RwSignal<f64>,
) -> impl IntoView {
    let write_smoothing = use_debounce_fn_with_arg(
        move |v: f64| qs.update_replace(|q| q.set("smooth", (v > 0.0).then(|| format!("{v:.2}")))),
        SLIDER_REST_MS,
    );
    view! {
        <label class="control check">
            <input type="checkbox" prop:checked=move || log_y.get()
                on:change=move |ev| qs.set("log", event_target_checked(&ev).then(|| "1".to_owned())) />
            <span>"Log scale"</span>
        </label>
        <label class="control slider">
            <span class="control-label">"Smoothing"</span>
            <input type="range" min="0" max="0.99" step="0.01" aria-label="Smoothing"
                prop:value=move || smoothing.get().to_string()
                on:input=move |ev| {
                    let v = event_target_value(&ev).parse::<f64>().unwrap_or(0.0);
                    smoothing.set(v);
                    write_smoothing(v);
                } />
            <span class="mono control-value">{move || format!("{:.2}", smoothing.get())}</span>
        </label>
    }
}
