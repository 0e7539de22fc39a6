//! The gate in front of every page but sign-in: shows the page to a signed-in user and
//! sends everyone else to sign in (and back).

use leptos::prelude::*;
use leptos_router::NavigateOptions;

use crate::components::states::{ErrorView, Loading};
use crate::hooks::use_safe_navigate;
use crate::session::{on_sign_in_page, sign_in_here, use_session, SessionState};

/// Shows `children` only to a signed-in user; sends everyone else to sign in.
#[component]
pub fn RequireSession(
    /// The protected page.
    children: ChildrenFn,
) -> impl IntoView {
    let session = use_session();
    let state = Memo::new(move |_| session.state());
    // A memo of what to show, so confirming a resumed session (or the same user again)
    // does not re-mount the page.
    let gate = Memo::new(move |_| match state.get() {
        SessionState::SignedIn(_) | SessionState::Resuming => Gate::Page,
        SessionState::Failed(e) => Gate::Failed(e),
        SessionState::SignedOut => Gate::Wait,
    });
    let navigate = use_safe_navigate();
    // A 401 of a call may have taken the page to sign-in already (with the way back);
    // redirecting from there would drop it.
    Effect::new(move |_| {
        if state.get() == SessionState::SignedOut && !on_sign_in_page() {
            let opts = NavigateOptions {
                replace: true,
                ..Default::default()
            };
            navigate(&sign_in_here(), opts);
        }
    });
    move || match gate.get() {
        Gate::Page => children().into_any(),
        Gate::Failed(e) => view! {
            <ErrorView title="Could not check who is signed in" error=e
                retry=Callback::new(move |_| session.check()) />
        }
        .into_any(),
        Gate::Wait => view! { <Loading label="Checking your session…" /> }.into_any(),
    }
}

/// What the gate shows.
#[derive(Clone, PartialEq)]
enum Gate {
    Page,
    Failed(crate::api::ApiError),
    Wait,
}
