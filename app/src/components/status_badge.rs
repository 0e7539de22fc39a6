//! A coloured badge for a run's status.

use leptos::prelude::*;

/// CSS modifier for a status.
pub fn status_class(status: &str) -> &'static str {
    match status {
        "RUNNING" => "badge badge-running",
        "FINISHED" => "badge badge-finished",
        "FAILED" => "badge badge-failed",
        "KILLED" => "badge badge-killed",
        _ => "badge badge-scheduled",
    }
}

/// Shows a run status such as `FINISHED` as "Finished" in its colour.
#[component]
pub fn StatusBadge(
    /// RUNNING, SCHEDULED, FINISHED, FAILED or KILLED.
    #[prop(into)]
    status: String,
) -> impl IntoView {
    let label = {
        let lower = status.to_lowercase();
        let mut chars = lower.chars();
        chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect::<String>())
            .unwrap_or_default()
    };
    view! { <span class=status_class(&status) title=status.clone()>{label}</span> }
}
