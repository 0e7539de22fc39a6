//! runlens web app: a Leptos client-side-rendered app over the server's `/api/v1` JSON API.
//!
//! Layout: [`pages`] (one per route), [`components`] (reused pieces), [`charts`]
//! (signal-free canvas drawing), [`hooks`], [`api`] (the only module touching the network).

pub mod api;
pub mod charts;
pub mod components;
pub mod format;
pub mod hooks;
pub mod pages;
pub mod query;
pub mod routes;
pub mod session;
pub mod theme;

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

use components::header::AppHeader;
use components::require_session::RequireSession;
use pages::{
    experiment::ExperimentPage, experiments::Experiments, not_found::NotFound, run::RunPage,
    settings::Settings, signin::SignIn,
};
use session::provide_session;

/// Wraps a page so only signed-in users see it.
fn protected<V: IntoView + 'static>(page: fn() -> V) -> impl IntoView {
    view! { <RequireSession>{move || page()}</RequireSession> }
}

/// Everything inside the router: the session needs the router's navigation.
#[component]
fn Shell() -> impl IntoView {
    provide_session();
    view! {
        <AppHeader />
        <main class="page">
            <Routes fallback=|| protected(NotFound)>
                <Route path=path!("/signin") view=SignIn />
                <Route path=path!("/") view=|| protected(Experiments) />
                <Route path=path!("/experiments/:id") view=|| protected(ExperimentPage) />
                <Route path=path!("/runs/:id") view=|| protected(RunPage) />
                <Route path=path!("/settings") view=|| protected(Settings) />
            </Routes>
        </main>
    }
}

/// The root component: theme, session, top bar and the router (patterns mirror
/// [`routes::AppRoute::PATTERNS`]). Every page but sign-in needs a session.
#[component]
pub fn App() -> impl IntoView {
    theme::provide_theme();
    view! {
        <Router>
            <Shell />
        </Router>
    }
}
