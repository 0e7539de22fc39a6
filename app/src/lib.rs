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
pub mod theme;

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

use components::header::AppHeader;
use pages::{
    experiment::ExperimentPage, experiments::Experiments, not_found::NotFound, run::RunPage,
};

/// The root component: theme, top bar and the router (patterns mirror
/// [`routes::AppRoute::PATTERNS`]).
#[component]
pub fn App() -> impl IntoView {
    theme::provide_theme();
    view! {
        <Router>
            <AppHeader />
            <main class="page">
                <Routes fallback=|| view! { <NotFound /> }>
                    <Route path=path!("/") view=Experiments />
                    <Route path=path!("/experiments/:id") view=ExperimentPage />
                    <Route path=path!("/runs/:id") view=RunPage />
                </Routes>
            </main>
        </Router>
    }
}
