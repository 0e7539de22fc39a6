//! The top bar: product name linking home, and the theme toggle.

use leptos::prelude::*;

use super::theme_toggle::ThemeToggle;
use crate::routes::AppRoute;

/// The app's top bar.
#[component]
pub fn AppHeader() -> impl IntoView {
    view! {
        <header class="topbar">
            <a class="brand" href=AppRoute::Experiments.path()>
                <span class="brand-mark" aria-hidden="true"></span>
                <span class="brand-name">"runlens"</span>
            </a>
            <nav class="topnav">
                <a href=AppRoute::Experiments.path()>"Experiments"</a>
            </nav>
            <div class="topbar-spacer"></div>
            <ThemeToggle />
        </header>
    }
}
