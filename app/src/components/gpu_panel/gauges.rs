//! A GPU's current values: name, utilisation, memory, temperature and power as bars, with
//! the hot / saturated cues.

use api_types as json;
use leptos::prelude::*;

use super::metrics::{
    cues, memory_percent, memory_text, power_text, HOT_CELSIUS, SATURATED_PERCENT,
};

/// One bar: label, value text and a fill of `percent` (absent: not read).
fn gauge(label: &'static str, text: String, percent: Option<f64>, alert: bool) -> impl IntoView {
    let width = percent.map_or(0.0, |p| p.clamp(0.0, 100.0));
    view! {
        <div class="gauge" class:alert=alert>
            <div class="gauge-head"><span class="gauge-label">{label}</span><span class="gauge-value mono">{text}</span></div>
            <div class="gauge-track" aria-hidden="true"><div class="gauge-fill" style=format!("width:{width:.1}%")></div></div>
        </div>
    }
}

/// The current values of one GPU.
#[component]
pub fn GpuGauges(
    /// The node's name (for test ids).
    node: String,
    /// The GPU's latest sample.
    gpu: json::agent::GpuSample,
) -> impl IntoView {
    let c = cues(&gpu);
    let util = gpu.utilization_percent.map(f64::from);
    let memory = memory_percent(&gpu);
    let full = |p: Option<f64>| p.is_some_and(|p| p >= SATURATED_PERCENT);
    let temp = gpu.temperature_celsius;
    let power_pct = match (gpu.power_draw_watts, gpu.power_limit_watts) {
        (Some(d), Some(l)) if l > 0.0 => Some(d * 100.0 / l),
        _ => None,
    };
    let name = gpu.name.clone().unwrap_or_else(|| "Unknown GPU".to_owned());
    let badges = (c.hot || c.saturated).then(|| {
        view! {
            {c.hot.then(|| view! { <span class="badge badge-hot" title=format!("At or above {HOT_CELSIUS} °C")>"hot"</span> })}
            {c.saturated.then(|| view! { <span class="badge badge-saturated" title="Utilization or memory at or above 95 %">"saturated"</span> })}
        }
    });
    view! {
        <div class="gpu" class:hot=c.hot class:saturated=c.saturated
            data-testid=format!("gpu-{node}-{}", gpu.index)>
            <div class="gpu-head">
                <span class="gpu-index mono">{format!("GPU {}", gpu.index)}</span>
                <span class="gpu-name truncate" title=name.clone()>{name.clone()}</span>
                {badges}
            </div>
            <div class="gauges">
                {gauge("Util", util.map_or("—".into(), |u| format!("{u:.0} %")), util, full(util))}
                {gauge("Memory", memory_text(&gpu), memory, full(memory))}
                {gauge("Temp", temp.map_or("—".into(), |t| format!("{t} °C")), temp.map(f64::from), c.hot)}
                {gauge("Power", power_text(&gpu), power_pct, false)}
            </div>
        </div>
    }
}
