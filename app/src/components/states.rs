//! Loading, empty, error and not-found views, shared by every page.

use leptos::prelude::*;

use crate::api::ApiError;
use crate::routes::AppRoute;

/// A quiet spinner with a label.
#[component]
pub fn Loading(
    /// What is loading, e.g. "Loading runs…".
    #[prop(into)]
    label: String,
) -> impl IntoView {
    view! {
        <div class="state state-loading" role="status" aria-live="polite">
            <span class="spinner" aria-hidden="true"></span>
            <span>{label}</span>
        </div>
    }
}

/// Nothing to show, with a hint of what to do.
#[component]
pub fn EmptyState(
    /// Headline.
    #[prop(into)]
    title: String,
    /// What the user can do about it.
    #[prop(into)]
    hint: String,
) -> impl IntoView {
    view! {
        <div class="state state-empty">
            <div class="state-title">{title}</div>
            <div class="state-hint">{hint}</div>
        </div>
    }
}

/// A failed request: what failed, the server's message, and a retry button.
#[component]
pub fn ErrorView(
    /// What was being done, e.g. "Could not load experiments".
    #[prop(into)]
    title: String,
    /// The error.
    error: ApiError,
    /// Called by the "Try again" button.
    #[prop(optional)]
    retry: Option<Callback<()>>,
) -> impl IntoView {
    view! {
        <div class="state state-error" role="alert">
            <div class="state-title">{title}</div>
            <div class="state-hint">{error.message}</div>
            {retry.map(|r| view! {
                <button class="button" on:click=move |_| r.run(())>"Try again"</button>
            })}
        </div>
    }
}

/// A page or an object that does not exist, with a way back.
#[component]
pub fn NotFoundView(
    /// Headline, e.g. "Run not found".
    #[prop(into)]
    title: String,
    /// Explanation.
    #[prop(into)]
    message: String,
) -> impl IntoView {
    view! {
        <div class="state state-notfound">
            <div class="state-code" aria-hidden="true">"404"</div>
            <h1 class="state-title">{title}</h1>
            <p class="state-hint">{message}</p>
            <a class="button" href=AppRoute::Experiments.path()>"Go to experiments"</a>
        </div>
    }
}
