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
use leptos_router::hooks::use_location;
use leptos_router::{path, NavigateOptions};

use components::header::AppHeader;
use components::require_session::RequireSession;
use components::states::NotFoundView;
use hooks::use_safe_navigate;
use pages::{
    embed_gpus::EmbedGpus,
    experiment::ExperimentPage,
    experiments::Experiments,
    gpus::Gpus,
    logged_model::LoggedModelPage,
    models::{ModelVersionPage, Models, RegisteredModelPage},
    not_found::NotFound,
    run::RunPage,
    settings::Settings,
    signin::SignIn,
};
use routes::{mlflow_target, safe_path, AppRoute};
use session::provide_session;

/// The runlens page of the MLflow link in the address bar (`http://host/#/experiments/5/runs/<id>`,
/// see [`routes::mlflow_hash`]), if the address is one.
fn mlflow_link_target() -> Option<String> {
    let loc = window().location();
    if loc.pathname().ok()? != "/" {
        return None;
    }
    mlflow_target(&loc.hash().ok()?).map(|t| safe_path(&t))
}

/// Replaces an MLflow link in the address bar by its runlens page before the router reads
/// it (the hash never reaches the server, so only the app can do this).
fn rewrite_mlflow_link() {
    if let Some(target) = mlflow_link_target() {
        if let Ok(history) = window().history() {
            // Replacing with a same-origin path cannot fail; if it did, the list shows.
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&target));
        }
    }
}

/// Wraps a page so only signed-in users see it.
fn protected<V: IntoView + 'static>(page: fn() -> V) -> impl IntoView {
    view! { <RequireSession>{move || page()}</RequireSession> }
}

/// Everything inside the router: the session needs the router's navigation.
#[component]
fn Shell() -> impl IntoView {
    provide_session();
    // An MLflow link pasted over the current address changes only the hash (no reload).
    let navigate = use_safe_navigate();
    let on_hash = window_event_listener(leptos::ev::hashchange, move |_| {
        if let Some(target) = mlflow_link_target() {
            let opts = NavigateOptions {
                replace: true,
                ..Default::default()
            };
            navigate(&target, opts);
        }
    });
    on_cleanup(move || on_hash.remove());
    view! {
        <AppHeader />
        <main class="page">
            <Routes fallback=|| protected(NotFound)>
                <Route path=path!("/signin") view=SignIn />
                <Route path=path!("/") view=|| protected(Experiments) />
                <Route path=path!("/experiments/:id") view=|| protected(ExperimentPage) />
                <Route path=path!("/runs/:id") view=|| protected(RunPage) />
                <Route path=path!("/settings") view=|| protected(Settings) />
                <Route path=path!("/gpus") view=|| protected(Gpus) />
                <Route path=path!("/logged-models/:id") view=|| protected(LoggedModelPage) />
                <Route path=path!("/models") view=|| protected(Models) />
                <Route path=path!("/models/:name") view=|| protected(RegisteredModelPage) />
                <Route path=path!("/models/:name/versions/:version") view=|| protected(ModelVersionPage) />
            </Routes>
        </main>
    }
}

/// The chrome-less pages under [`AppRoute::EMBED_PREFIX`]: no header, no session (a
/// notebook's iframe on another origin has no session cookie; the link is signed).
#[component]
fn EmbedShell() -> impl IntoView {
    view! {
        <Routes fallback=|| view! { <NotFoundView title="Page not found" message="This embed link is not one runlens makes." /> }>
            <Route path=path!("/embed/gpus") view=EmbedGpus />
        </Routes>
    }
}

/// The app pages, or the embeds when the URL is under [`AppRoute::EMBED_PREFIX`] (an
/// embed never navigates to the app, so this is decided once).
#[component]
fn Root() -> impl IntoView {
    let embed = use_location()
        .pathname
        .get_untracked()
        .starts_with(AppRoute::EMBED_PREFIX);
    if embed {
        view! { <EmbedShell /> }.into_any()
    } else {
        view! { <Shell /> }.into_any()
    }
}

/// The root component: theme, session, top bar and the router (patterns mirror
/// [`routes::AppRoute::PATTERNS`]). Every page but sign-in and the embeds needs a session.
/// An MLflow hash link (`/#/experiments/5/runs/<id>`) is first rewritten to its page.
#[component]
pub fn App() -> impl IntoView {
    rewrite_mlflow_link();
    theme::provide_theme();
    view! {
        <Router>
            <Root />
        </Router>
    }
}
