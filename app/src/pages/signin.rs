//! `/signin?next=`: username and password; on success goes to `next` (same-origin paths
//! only, see [`crate::routes::safe_next`]). A user who is already signed in goes to `next`
//! at once, without seeing the form.

use api_types as json;
use leptos::prelude::*;
use leptos_router::hooks::use_location;
use leptos_router::NavigateOptions;

use crate::api::{self, ApiError, ErrorCode};
use crate::components::states::Loading;
use crate::hooks::use_safe_navigate;
use crate::routes::safe_next;
use crate::session::{use_session, SessionState};

/// What to tell the user when signing in failed.
fn failure_text(e: &ApiError) -> String {
    match e.code {
        ErrorCode::Unauthenticated => "Wrong username or password.".to_owned(),
        ErrorCode::TooManyRequests => format!(
            "Too many sign-in attempts. {}",
            if e.message.is_empty() {
                "Wait a minute, then try again."
            } else {
                &e.message
            }
        ),
        _ => format!("Could not sign in: {}", e.message),
    }
}

/// The sign-in page.
#[component]
pub fn SignIn() -> impl IntoView {
    let session = use_session();
    // Parse the raw query ourselves: leptos_router's query map decodes values a second
    // time, which corrupts `&`, `=` and `+` inside a shared link's own query.
    let search = use_location().search;
    let next = Memo::new(move |_| {
        let query = crate::query::Query::parse(&search.get());
        safe_next(query.get("next").unwrap_or_default())
    });
    let username = RwSignal::new(String::new());
    let password = RwSignal::new(String::new());
    let sign_in = Action::new_local(|req: &json::LoginRequest| api::create_session(req.clone()));
    Effect::new(move |_| {
        if let Some(Ok(me)) = sign_in.value().get() {
            session.signed_in(me);
        }
    });
    // Signed in (just now, or already when the page opened): on to `next`, replacing the
    // sign-in page in the history so Back does not return to it.
    let state = Memo::new(move |_| session.state());
    let signed_in = Memo::new(move |_| matches!(state.get(), SessionState::SignedIn(_)));
    let navigate = use_safe_navigate();
    Effect::new(move |_| {
        if signed_in.get() {
            let opts = NavigateOptions {
                replace: true,
                ..Default::default()
            };
            navigate(&next.get_untracked(), opts);
        }
    });
    let error = move || match sign_in.value().get() {
        Some(Err(e)) => Some(failure_text(&e)),
        _ => None,
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        sign_in.dispatch(json::LoginRequest {
            username: username.get_untracked().trim().to_owned(),
            password: password.get_untracked(),
        });
    };
    let form = move || {
        view! {
        <div class="signin">
            <form class="card signin-card" on:submit=on_submit>
                <div class="signin-brand">
                    <span class="brand-mark" aria-hidden="true"></span>
                    <h1>"Sign in to runlens"</h1>
                </div>
                {move || (next.get() != "/").then(|| view! {
                    <p class="muted small">"Sign in to open the page you were sent."</p>
                })}
                <label class="field">
                    <span>"Username"</span>
                    <input type="text" name="username" aria-label="Username" autocomplete="username" required autofocus
                        prop:value=move || username.get() on:input=move |ev| username.set(event_target_value(&ev)) />
                </label>
                <label class="field">
                    <span>"Password"</span>
                    <input type="password" name="password" aria-label="Password" autocomplete="current-password" required
                        prop:value=move || password.get() on:input=move |ev| password.set(event_target_value(&ev)) />
                </label>
                {move || error().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
                <button class="button button-primary" type="submit" disabled=move || sign_in.pending().get()>
                    {move || if sign_in.pending().get() { "Signing in…" } else { "Sign in" }}
                </button>
                <p class="muted small signin-hint">
                    "Programs log with an API token (Settings → API tokens) as "
                    <code>"MLFLOW_TRACKING_TOKEN"</code>"."
                </p>
            </form>
        </div>
        }
    };
    // Nothing to fill in while the session check runs or once signed in (leaving).
    move || match state.get() {
        SessionState::Resuming | SessionState::SignedIn(_) => {
            view! { <Loading label="Checking your session…" /> }.into_any()
        }
        _ => form().into_any(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(code: ErrorCode, message: &str) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            grantors: vec![],
        }
    }

    #[test]
    fn failures_read_well() {
        assert_eq!(
            failure_text(&err(ErrorCode::Unauthenticated, "x")),
            "Wrong username or password."
        );
        assert!(failure_text(&err(ErrorCode::TooManyRequests, "")).contains("Wait a minute"));
        assert!(failure_text(&err(ErrorCode::Network, "down")).ends_with("down"));
    }
}
