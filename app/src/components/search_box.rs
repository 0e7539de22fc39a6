//! A search input that reports its value after the user pauses typing.

use std::time::Duration;

use leptos::prelude::*;

/// Debounced search input.
#[component]
pub fn SearchBox(
    /// Current value (e.g. from the URL).
    #[prop(into)]
    value: Signal<String>,
    /// Called with the new value once typing pauses.
    on_change: Callback<String>,
    /// Accessible name.
    #[prop(into)]
    label: String,
    /// Placeholder text.
    #[prop(into)]
    placeholder: String,
    /// Pause before reporting, in milliseconds.
    #[prop(default = 250)]
    debounce_ms: u64,
) -> impl IntoView {
    let pending = StoredValue::new_local(None::<TimeoutHandle>);
    let on_input = move |ev| {
        let v = event_target_value(&ev);
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let h =
            set_timeout_with_handle(move || on_change.run(v), Duration::from_millis(debounce_ms))
                .ok();
        pending.set_value(h);
    };
    on_cleanup(move || {
        if let Some(h) = pending.get_value() {
            h.clear();
        }
    });
    view! {
        <label class="search">
            <svg class="search-icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
                <circle cx="11" cy="11" r="7" stroke="currentColor" stroke-width="2" fill="none" />
                <path d="M20 20l-4-4" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
            </svg>
            <input
                type="text"
                aria-label=label
                placeholder=placeholder
                prop:value=move || value.get()
                on:input=on_input
                on:keydown=move |ev| {
                    if ev.key() == "Enter" {
                        if let Some(h) = pending.get_value() {
                            h.clear();
                        }
                        on_change.run(event_target_value(&ev));
                    }
                }
            />
        </label>
    }
}
