//! The experiment's chart view (`?view=charts`): one panel per metric with every shown run
//! overlaid. (Issue 9; built by the charts work.)

use api_types as json;
use leptos::prelude::*;

use super::workspace::Workspace;

/// The chart view.
#[component]
pub fn ChartsView(
    /// The experiment and its keys.
    detail: json::ExperimentDetail,
    /// The URL's workspace state.
    ws: Workspace,
) -> impl IntoView {
    let n = move || ws.shown().len();
    view! { <p class="muted" data-keys=detail.metric_keys.len()>{move || format!("{} runs selected", n())}</p> }
}
