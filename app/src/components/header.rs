//! The top bar: product name linking home, the theme toggle and, when signed in, the
//! navigation and the user menu.

use leptos::prelude::*;

use super::theme_toggle::ThemeToggle;
use super::user_menu::UserMenu;
use crate::routes::AppRoute;
use crate::session::use_session;

/// The app's top bar.
#[component]
pub fn AppHeader() -> impl IntoView {
    let session = use_session();
    let me = Memo::new(move |_| session.me());
    view! {
        <header class="topbar">
            <a class="brand" href=AppRoute::Experiments.path()>
                <span class="brand-mark" aria-hidden="true"></span>
                <span class="brand-name">"runlens"</span>
            </a>
            <Show when=move || session.admits()>
                <nav class="topnav">
                    <a href=AppRoute::Experiments.path()>"Experiments"</a>
                    <a href=AppRoute::Models.path()>"Models"</a>
                    <a href=AppRoute::Gpus { nodes: Vec::new() }.path()>"GPUs"</a>
                </nav>
            </Show>
            <div class="topbar-spacer"></div>
            <ThemeToggle />
            {move || me.get().map(|me| view! { <UserMenu me=me /> })}
        </header>
    }
}
