//! The experiment's compare view (`?view=compare`): diff table, parallel coordinates and
//! scatter of the shown runs. (Issue 9; built by the compare work.)

use api_types as json;
use leptos::prelude::*;

use super::workspace::Workspace;

/// The compare view.
#[component]
pub fn CompareView(
    /// The experiment and its keys.
    detail: json::ExperimentDetail,
    /// The URL's workspace state.
    ws: Workspace,
) -> impl IntoView {
    let n = move || ws.shown().len();
    view! { <p class="muted" data-keys=detail.param_keys.len()>{move || format!("{} runs selected", n())}</p> }
}
