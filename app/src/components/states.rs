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

/// A 403: the thing exists but was not shared with the caller; says whom to ask.
#[component]
pub fn PermissionDenied(
    /// Headline, e.g. "You don't have access to this experiment".
    #[prop(into)]
    title: String,
    /// The error, whose `grantors` name who can grant access.
    error: ApiError,
) -> impl IntoView {
    let ask = match error.grantors.len() {
        0 => view! { <p class="state-hint">"Ask the experiment's owner or an administrator to share it with you."</p> }.into_any(),
        _ => {
            let names = error.grantors.into_iter().map(|g| view! { <li class="grantor">{g}</li> }).collect_view();
            view! {
                <p class="state-hint">"Ask one of these people to share it with you:"</p>
                <ul class="grantors" aria-label="People who can grant access">{names}</ul>
            }.into_any()
        }
    };
    view! {
        <div class="state state-denied" role="alert">
            <div class="state-icon" aria-hidden="true">
                <svg viewBox="0 0 24 24" width="40" height="40">
                    <rect x="5" y="10.5" width="14" height="10" rx="2" fill="none" stroke="currentColor" stroke-width="1.8" />
                    <path d="M8 10.5V8a4 4 0 0 1 8 0v2.5" fill="none" stroke="currentColor" stroke-width="1.8" />
                </svg>
            </div>
            <h1 class="state-title">{title}</h1>
            {ask}
            <a class="button" href=AppRoute::Experiments.path()>"Back to experiments"</a>
        </div>
    }
}
