//! Loading, empty, error and not-found views, shared by every page, and
//! [`ResourceView`], the scaffold of a page that shows one resource loaded by id.

use leptos::prelude::*;

use crate::api::{ApiError, ErrorCode};
use crate::routes::AppRoute;

/// What a page shows for the resource it loaded: the resource, or why not.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceState<T> {
    /// Loaded.
    Ready(T),
    /// No such resource (404).
    NotFound,
    /// It exists but was not shared with the caller (403); the error names the grantors.
    PermissionDenied(ApiError),
    /// Any other failure, worth a retry.
    Failed(ApiError),
}

impl<T> From<Result<T, ApiError>> for ResourceState<T> {
    fn from(loaded: Result<T, ApiError>) -> Self {
        match loaded {
            Ok(v) => ResourceState::Ready(v),
            Err(e) => match e.code {
                ErrorCode::NotFound => ResourceState::NotFound,
                ErrorCode::PermissionDenied => ResourceState::PermissionDenied(e),
                _ => ResourceState::Failed(e),
            },
        }
    }
}

/// The words [`ResourceView`] uses for one kind of resource.
#[derive(Debug, Clone, Copy)]
pub struct ResourceTexts {
    /// While loading, e.g. "Loading run…".
    pub loading: &'static str,
    /// Headline of the 404, e.g. "Run not found".
    pub not_found: &'static str,
    /// Explanation of the 404.
    pub not_found_hint: &'static str,
    /// Headline of the 403, e.g. "You don't have access to this experiment".
    pub denied: &'static str,
    /// Headline of any other failure, e.g. "Could not load the run".
    pub failed: &'static str,
}

/// A page's one resource: a spinner while it loads, then `ready` with it, or the
/// not-found, permission-denied (with whom to ask) or error view (with a retry).
#[component]
pub fn ResourceView<T, V, F>(
    /// The resource, loaded through the API.
    resource: LocalResource<Result<T, ApiError>>,
    /// What to call it.
    texts: ResourceTexts,
    /// The page's view of the loaded resource.
    ready: F,
) -> impl IntoView
where
    T: Clone + 'static,
    V: IntoView + 'static,
    F: Fn(T) -> V + Clone + Send + Sync + 'static,
{
    view! {
        <Transition fallback=move || view! { <Loading label=texts.loading /> }>
            {move || {
                let ready = ready.clone();
                Suspend::new(async move {
                    match ResourceState::from(resource.await) {
                        ResourceState::Ready(v) => ready(v).into_any(),
                        ResourceState::NotFound => view! {
                            <NotFoundView title=texts.not_found message=texts.not_found_hint />
                        }.into_any(),
                        ResourceState::PermissionDenied(e) => view! {
                            <PermissionDenied title=texts.denied error=e />
                        }.into_any(),
                        ResourceState::Failed(e) => view! {
                            <ErrorView title=texts.failed error=e retry=Callback::new(move |_| resource.refetch()) />
                        }.into_any(),
                    }
                })
            }}
        </Transition>
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn err(code: ErrorCode) -> ApiError {
        ApiError {
            code,
            message: "m".into(),
            grantors: vec!["alice".into()],
        }
    }

    #[test]
    fn failures_are_told_apart_by_code() {
        assert_eq!(
            ResourceState::from(Ok::<_, ApiError>(1)),
            ResourceState::Ready(1)
        );
        assert_eq!(
            ResourceState::<()>::from(Err(err(ErrorCode::NotFound))),
            ResourceState::NotFound
        );
        assert_eq!(
            ResourceState::<()>::from(Err(err(ErrorCode::PermissionDenied))),
            ResourceState::PermissionDenied(err(ErrorCode::PermissionDenied))
        );
        for other in [
            ErrorCode::Network,
            ErrorCode::Internal,
            ErrorCode::Other("RESOURCE_DOES_NOT_EXIST".into()),
        ] {
            assert_eq!(
                ResourceState::<()>::from(Err(err(other.clone()))),
                ResourceState::Failed(err(other))
            );
        }
    }
}
