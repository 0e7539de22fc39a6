//! The run's Metrics tab: one chart per metric key (`system/*` keys are in the System
//! metrics tab), live while the run runs,
//! with shared controls kept in the URL: `?x=step|wall|relative&log=1&smooth=0.6` and
//! `zoom=<key>:<min>:<max>` (repeatable, one per zoomed chart).

use api_types as json;
use leptos::prelude::*;

use crate::components::chart_panel::ChartPanel;
use crate::components::chart_style::ChartStyleControls;
use crate::components::states::EmptyState;
use crate::hooks::{use_query_state, QueryState};
use crate::routes::RunTab;

use super::live::use_run_live;

/// Parses `key:min:max` (the key may itself contain `:`).
pub fn parse_zoom(s: &str) -> Option<(String, f64, f64)> {
    let mut it = s.rsplitn(3, ':');
    let hi: f64 = it.next()?.parse().ok()?;
    let lo: f64 = it.next()?.parse().ok()?;
    let key = it.next()?;
    (lo.is_finite() && hi.is_finite() && lo < hi && !key.is_empty())
        .then(|| (key.to_owned(), lo, hi))
}

fn parse_axis(s: Option<&str>) -> json::XAxis {
    match s {
        Some("wall") => json::XAxis::Wall,
        Some("relative") => json::XAxis::Relative,
        _ => json::XAxis::Step,
    }
}

fn axis_value(a: json::XAxis) -> Option<String> {
    match a {
        json::XAxis::Step => None,
        json::XAxis::Wall => Some("wall".into()),
        json::XAxis::Relative => Some("relative".into()),
    }
}

/// Sets (or clears) the zoom of one key in the URL.
pub(super) fn set_zoom(qs: QueryState, key: &str, range: Option<(f64, f64)>) {
    qs.update(|q| {
        let mut zooms: Vec<String> = q
            .get_all("zoom")
            .into_iter()
            .filter(|z| parse_zoom(z).is_none_or(|(k, ..)| k != key))
            .map(str::to_owned)
            .collect();
        if let Some((lo, hi)) = range {
            zooms.push(format!("{key}:{lo}:{hi}"));
        }
        q.set_all("zoom", &zooms);
    });
}

/// The chart controls bar.
#[component]
fn Controls(
    /// URL state.
    qs: QueryState,
    /// Current x axis.
    #[prop(into)]
    x_axis: Signal<json::XAxis>,
    /// Log scale on.
    #[prop(into)]
    log_y: Signal<bool>,
    /// Smoothing weight: follows the slider at once, the URL once the slider rests.
    smoothing: RwSignal<f64>,
) -> impl IntoView {
    // Dragging the slider fires an input event per step; writing each to the URL would
    // redraw through the router and spend the browser's history-write budget. A continuous
    // value: it replaces the history entry (Back does not step through slider positions).
    let axis_button = move |label: &'static str, a: json::XAxis| {
        view! {
            <button class="seg" class:selected=move || x_axis.get() == a aria-pressed=move || (x_axis.get() == a).to_string()
                on:click=move |_| qs.update(|q| { q.set("x", axis_value(a)); q.set_all("zoom", &[]); })>
                {label}
            </button>
        }
    };
    view! {
        <div class="chart-controls card">
            <div class="control">
                <span class="control-label">"X axis"</span>
                <div class="segmented" role="group" aria-label="X axis">
                    {axis_button("Step", json::XAxis::Step)}
                    {axis_button("Wall time", json::XAxis::Wall)}
                    {axis_button("Relative", json::XAxis::Relative)}
                </div>
            </div>
            <ChartStyleControls qs=qs log_y=log_y smoothing=smoothing />
            <span class="muted small hint">"Drag on a chart to zoom · double-click to reset"</span>
        </div>
    }
}

/// The Metrics tab. While the run is live (see [`super::live`]), each chart appends its
/// key's new points and a newly logged key gets its chart.
#[component]
pub fn MetricsTab(
    /// The run's experiment id.
    experiment_id: String,
    /// Run id.
    run_id: String,
    /// The run's metric keys, sorted (as loaded; the live keys when the page is live).
    keys: Vec<String>,
) -> impl IntoView {
    let qs = use_query_state();
    let x_axis = Signal::derive(move || parse_axis(qs.get("x").as_deref()));
    let log_y = Signal::derive(move || qs.get("log").is_some_and(|v| v == "1" || v == "true"));
    let smoothing_in_url = Memo::new(move |_| {
        qs.get("smooth")
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite())
            .unwrap_or(0.0)
            .clamp(0.0, 0.99)
    });
    let smoothing = RwSignal::new(smoothing_in_url.get_untracked());
    Effect::new(move |_| smoothing.set(smoothing_in_url.get()));
    let live = use_run_live();
    let keys: Signal<Vec<String>> = match live {
        Some(l) => l.keys.into(),
        None => Signal::stored(keys),
    };
    let user = Memo::new(move |_| {
        keys.with(|k| {
            k.iter()
                .filter(|k| !k.starts_with("system/"))
                .cloned()
                .collect::<Vec<_>>()
        })
    });
    let system_count =
        Memo::new(move |_| keys.with(|k| k.iter().filter(|k| k.starts_with("system/")).count()));
    let chart = move |key: String| {
        let k = key.clone();
        let zoom = Signal::derive(move || {
            qs.get_all("zoom")
                .iter()
                .filter_map(|z| parse_zoom(z))
                .find(|(zk, ..)| *zk == k)
                .map(|(_, lo, hi)| (lo, hi))
        });
        let k = key.clone();
        let on_zoom = Callback::new(move |r| set_zoom(qs, &k, r));
        let series = live.map(|l| l.series);
        view! { <ChartPanel experiment_id=experiment_id.clone() run_id=run_id.clone() key=key x_axis=x_axis log_y=log_y smoothing=smoothing zoom=zoom on_zoom=on_zoom live=series /> }
    };
    let system_note = move || {
        let n = system_count.get();
        (n > 0).then(|| {
            let text = format!("{n} system metrics (CPU, memory, GPUs…) are in the System metrics tab.");
            view! {
                <p class="muted small">{text}" "
                    <button class="link-button" type="button" on:click=move |_| qs.set("tab", RunTab::System.query_value().map(str::to_owned))>
                        "Show them"
                    </button>
                </p>
            }
        })
    };
    // A memo, so a new key does not redraw the tab (only its chart is added).
    let has_keys = Memo::new(move |_| !keys.with(Vec::is_empty));
    move || {
        if !has_keys.get() {
            return view! { <EmptyState title="No metrics logged" hint="Metrics logged with mlflow.log_metric() appear here as charts." /> }.into_any();
        }
        let chart = chart.clone();
        view! {
            <Controls qs=qs x_axis=x_axis log_y=log_y smoothing=smoothing />
            {system_note}
            <Show when=move || !user.with(Vec::is_empty)>
                <div class="chart-grid">
                    <For each=move || user.get() key=|k| k.clone() children=chart.clone() />
                </div>
            </Show>
        }
        .into_any()
    }
}

#[cfg(test)]
mod tests {
    use super::parse_zoom;

    #[test]
    fn zoom_values() {
        assert_eq!(
            parse_zoom("loss:10:20.5"),
            Some(("loss".into(), 10.0, 20.5))
        );
        assert_eq!(parse_zoom("a:b:1:2"), Some(("a:b".into(), 1.0, 2.0)));
        assert_eq!(parse_zoom("loss:20:10"), None);
        assert_eq!(parse_zoom("loss:x:1"), None);
        assert_eq!(parse_zoom(":1:2"), None);
        assert_eq!(parse_zoom("loss:NaN:2"), None);
    }
}
