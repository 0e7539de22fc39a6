//! The light/dark theme toggle button.

use leptos::prelude::*;

use crate::theme::{use_theme, Theme};

/// Switches between the light and the dark theme.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = use_theme();
    let title = move || match theme.get() {
        Theme::Light => "Switch to dark theme",
        Theme::Dark => "Switch to light theme",
    };
    view! {
        <button
            class="icon-button"
            aria-label="Toggle theme"
            title=title
            on:click=move |_| theme.update(|t| *t = t.toggled())
        >
            {move || match theme.get() {
                Theme::Light => view! {
                    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
                        <path d="M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z" fill="currentColor" />
                    </svg>
                }.into_any(),
                Theme::Dark => view! {
                    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
                        <circle cx="12" cy="12" r="4.5" fill="currentColor" />
                        <path
                            d="M12 1.5v3M12 19.5v3M1.5 12h3M19.5 12h3M4.6 4.6l2.1 2.1M17.3 17.3l2.1 2.1M4.6 19.4l2.1-2.1M17.3 6.7l2.1-2.1"
                            stroke="currentColor" stroke-width="2" stroke-linecap="round"
                        />
                    </svg>
                }.into_any(),
            }}
        </button>
    }
}
