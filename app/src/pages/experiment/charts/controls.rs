//! The chart view's controls: metric search, x axis (step, wall, relative or another
//! metric), log scale, smoothing, group by and the system metrics switch, all in the URL.

use api_types as json;
use leptos::prelude::*;
use leptos_use_fn_debounce_throttle::use_debounce_fn_with_arg;

use super::super::workspace::{GroupBy, Workspace};
use super::settings::{set_x, ChartSettings, XChoice, SYSTEM_PREFIX};
use crate::components::chart_style::ChartStyleControls;

/// Typing and sliding must pause this long (ms) before the URL follows.
const REST_MS: f64 = 250.0;

/// The `<select>` value of "x = another metric".
const METRIC_PREFIX: &str = "metric:";

/// The controls bar.
#[component]
pub fn Controls(
    /// The experiment's keys.
    detail: json::ExperimentDetail,
    /// The URL's workspace state.
    ws: Workspace,
    /// The chart settings read from the URL.
    settings: Memo<ChartSettings>,
) -> impl IntoView {
    let qs = ws.qs;
    let search = RwSignal::new(settings.with_untracked(|s| s.search.clone()));
    Effect::new(move |_| search.set(settings.with(|s| s.search.clone())));
    let write_search = use_debounce_fn_with_arg(
        move |v: String| {
            qs.update_replace(|q| q.set("q", (!v.trim().is_empty()).then_some(v)));
        },
        REST_MS,
    );
    let smoothing = RwSignal::new(settings.with_untracked(|s| s.smoothing));
    Effect::new(move |_| smoothing.set(settings.with(|s| s.smoothing)));
    let x_value = move || match settings.with(|s| s.x.clone()) {
        XChoice::Axis(json::XAxis::Step) => "step".to_owned(),
        XChoice::Axis(json::XAxis::Wall) => "wall".to_owned(),
        XChoice::Axis(json::XAxis::Relative) => "relative".to_owned(),
        XChoice::Metric(k) => format!("{METRIC_PREFIX}{k}"),
    };
    let set_x_from = move |v: String| {
        let x = match v.as_str() {
            "wall" => XChoice::Axis(json::XAxis::Wall),
            "relative" => XChoice::Axis(json::XAxis::Relative),
            _ => match v.strip_prefix(METRIC_PREFIX) {
                Some(k) => XChoice::Metric(k.to_owned()),
                None => XChoice::Axis(json::XAxis::Step),
            },
        };
        qs.update(|q| set_x(q, &x));
    };
    let x_opt = move |value: String, label: String| {
        let v = value.clone();
        view! { <option value=value prop:selected=move || x_value() == v>{label}</option> }
    };
    let x_metrics = detail
        .metric_keys
        .iter()
        .filter(|k| !k.starts_with(SYSTEM_PREFIX))
        .map(|k| x_opt(format!("{METRIC_PREFIX}{k}"), k.clone()))
        .collect_view();
    let group_value = move || ws.group().map(|g| g.query_value()).unwrap_or_default();
    let group_opt = move |value: String, label: String| {
        let v = value.clone();
        view! { <option value=value prop:selected=move || group_value() == v>{label}</option> }
    };
    let params = detail
        .param_keys
        .iter()
        .map(|k| group_opt(format!("params.{k}"), k.clone()))
        .collect_view();
    let tags = detail
        .tag_keys
        .iter()
        .map(|k| group_opt(format!("tags.{k}"), k.clone()))
        .collect_view();
    let has_system = detail
        .metric_keys
        .iter()
        .any(|k| k.starts_with(SYSTEM_PREFIX));
    view! {
        <div class="chart-controls card wchart-controls">
            <input class="wchart-search" type="search" aria-label="Search metrics" placeholder="Search metrics"
                prop:value=move || search.get()
                on:input=move |ev| {
                    let v = event_target_value(&ev);
                    search.set(v.clone());
                    write_search(v);
                } />
            <label class="control">
                <span class="control-label">"X axis"</span>
                <select aria-label="X axis" on:change=move |ev| set_x_from(event_target_value(&ev))>
                    {x_opt("step".into(), "Step".into())}
                    {x_opt("wall".into(), "Wall time".into())}
                    {x_opt("relative".into(), "Relative time".into())}
                    <optgroup label="Another metric">{x_metrics}</optgroup>
                </select>
            </label>
            <label class="control">
                <span class="control-label">"Group by"</span>
                <select aria-label="Group by"
                    on:change=move |ev| ws.set_group(GroupBy::parse(&event_target_value(&ev)))>
                    {group_opt(String::new(), "No grouping".into())}
                    <optgroup label="Params">{params}</optgroup>
                    <optgroup label="Tags">{tags}</optgroup>
                </select>
            </label>
            <ChartStyleControls qs=qs log_y=Signal::derive(move || settings.with(|s| s.log_y)) smoothing=smoothing />
            {has_system.then(|| view! {
                <label class="control check">
                    <input type="checkbox" prop:checked=move || settings.with(|s| s.system)
                        on:change=move |ev| qs.set("sys", event_target_checked(&ev).then(|| "1".to_owned())) />
                    <span>"System metrics"</span>
                </label>
            })}
            <span class="muted small hint">"Drag to zoom every chart · double-click to reset"</span>
        </div>
    }
}
