//! The top bar's user menu: the signed-in username opening "Settings" and "Sign out".

use api_types as json;
use leptos::ev;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::api;
use crate::hooks::use_safe_navigate;
use crate::routes::AppRoute;
use crate::session::use_session;

/// Username button with a small dropdown.
#[component]
pub fn UserMenu(
    /// The signed-in user.
    me: json::Me,
) -> impl IntoView {
    let session = use_session();
    let open = RwSignal::new(false);
    let root = NodeRef::<leptos::html::Div>::new();
    // Close on a click outside the menu or on Escape.
    let click = window_event_listener(ev::click, move |e| {
        let inside = match (root.get_untracked(), e.target()) {
            (Some(r), Some(t)) => t
                .dyn_ref::<web_sys::Node>()
                .is_some_and(|n| r.contains(Some(n))),
            _ => false,
        };
        if !inside {
            open.set(false);
        }
    });
    let key = window_event_listener(ev::keydown, move |e| {
        if e.key() == "Escape" {
            open.set(false);
        }
    });
    on_cleanup(move || {
        click.remove();
        key.remove();
    });
    let navigate = use_safe_navigate();
    let sign_out = move |_| {
        open.set(false);
        let navigate = navigate.clone();
        spawn_local(async move {
            // Signed out locally even when the server call fails: the cookie is HttpOnly,
            // so at worst the next check finds the session again.
            let _ = api::delete_session().await;
            session.signed_out();
            navigate(AppRoute::SIGN_IN, Default::default());
        });
    };
    let initial = me
        .username
        .chars()
        .next()
        .map(|c| c.to_uppercase().to_string())
        .unwrap_or_default();
    let role = if me.is_admin {
        "Administrator"
    } else {
        "Signed in"
    };
    view! {
        <div class="user-menu" node_ref=root>
            <button class="user-button" aria-haspopup="true" aria-expanded=move || open.get().to_string()
                on:click=move |_| open.update(|o| *o = !*o)>
                <span class="avatar" aria-hidden="true">{initial}</span>
                <span class="user-name">{me.username.clone()}</span>
            </button>
            <Show when=move || open.get()>
                <div class="menu">
                    <div class="menu-header">
                        <div class="menu-user">{me.username.clone()}</div>
                        <div class="muted small">{role}{(!me.groups.is_empty()).then(|| format!(" · {}", me.groups.join(", ")))}</div>
                    </div>
                    <a class="menu-item" href=AppRoute::Settings.path() on:click=move |_| open.set(false)>"Settings"</a>
                    <button class="menu-item" on:click=sign_out.clone()>"Sign out"</button>
                </div>
            </Show>
        </div>
    }
}
