//! A `<select>` of permission levels.

use api_types as json;
use leptos::prelude::*;

use super::levels::{self, LEVELS};

/// Level picker; reports the chosen level.
#[component]
pub fn LevelSelect(
    /// Accessible name, e.g. "Level" or "Level for bob".
    #[prop(into)]
    label: String,
    /// The level shown.
    #[prop(into)]
    value: Signal<json::Level>,
    /// Called with the new level.
    on_change: Callback<json::Level>,
    /// Disabled (the caller cannot manage access).
    #[prop(into)]
    disabled: Signal<bool>,
) -> impl IntoView {
    let options = LEVELS
        .into_iter()
        .map(|l| {
            view! {
                <option value=levels::value(l) title=levels::meaning(l) selected=move || value.get() == l>
                    {levels::label(l)}
                </option>
            }
        })
        .collect_view();
    view! {
        <select class="select" aria-label=label disabled=disabled
            prop:value=move || levels::value(value.get())
            on:change=move |ev| {
                if let Some(l) = levels::parse(&event_target_value(&ev)) {
                    on_change.run(l);
                }
            }>
            {options}
        </select>
    }
}
