//! The signed-in user, as app-wide context: checked once at start (`GET /api/v1/session`),
//! set by the sign-in page, cleared by sign-out or by any 401, which also sends the user to
//! `/signin?next=<where they were>` so they come straight back after signing in.
//!
//! The check is made only when the page came with a credential (the server's signed-in
//! hint cookie, [`api::signed_in_hint`]); without one nobody is signed in and no request is
//! made. With one, pages start at once ([`SessionState::Resuming`]) and load their data
//! while the check runs; if it fails, the first 401 sends the user to sign in.

use api_types as json;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::NavigateOptions;

use crate::api::{self, ApiError, ErrorCode};
use crate::hooks::use_safe_navigate;
use crate::routes::AppRoute;

/// Where the session check stands.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionState {
    /// The page came with a credential and the first check has not answered yet.
    Resuming,
    /// Signed in as this user.
    SignedIn(json::Me),
    /// Nobody is signed in (or the session expired).
    SignedOut,
    /// The check itself failed (server unreachable).
    Failed(ApiError),
}

/// Handle to the session context; `Copy`.
#[derive(Clone, Copy)]
pub struct Session {
    state: RwSignal<SessionState>,
}

impl Session {
    /// The current state (tracked).
    pub fn state(&self) -> SessionState {
        self.state.get()
    }

    /// The signed-in user, if any (tracked).
    pub fn me(&self) -> Option<json::Me> {
        self.state.with(|s| match s {
            SessionState::SignedIn(me) => Some(me.clone()),
            _ => None,
        })
    }

    /// Records a successful sign-in; writes from now on carry its CSRF token.
    pub fn signed_in(&self, me: json::Me) {
        api::set_csrf_token(Some(me.csrf_token.clone()));
        self.state.set(SessionState::SignedIn(me));
    }

    /// Whether pages may load: signed in, or resuming a session (tracked).
    pub fn admits(&self) -> bool {
        self.state
            .with(|s| matches!(s, SessionState::SignedIn(_) | SessionState::Resuming))
    }

    /// Records that nobody is signed in.
    pub fn signed_out(&self) {
        api::set_csrf_token(None);
        api::clear_signed_in_hint();
        self.state.set(SessionState::SignedOut);
    }

    /// Asks the server who is signed in.
    pub fn check(&self) {
        let this = *self;
        spawn_local(async move {
            match api::get_session().await {
                Ok(me) => this.signed_in(me),
                Err(e) if e.code == ErrorCode::Unauthenticated => this.signed_out(),
                Err(e) => this.state.set(SessionState::Failed(e)),
            }
        });
    }
}

/// The browser's current path and query, e.g. `/experiments/3?tab=metrics`.
pub fn current_location() -> String {
    let loc = window().location();
    let path = loc.pathname().unwrap_or_else(|_| "/".into());
    format!("{path}{}", loc.search().unwrap_or_default())
}

/// Whether the browser is on the sign-in page already (where a redirect to it would lose
/// the page to return to).
pub fn on_sign_in_page() -> bool {
    window().location().pathname().ok().as_deref() == Some(AppRoute::SIGN_IN)
}

/// Link to the sign-in page that returns to where the user is now.
pub fn sign_in_here() -> String {
    AppRoute::SignIn {
        next: current_location(),
    }
    .href()
}

/// Creates the session context, starts the first check and routes every 401 to the
/// sign-in page. Call once, inside the `<Router>`.
pub fn provide_session() -> Session {
    let resuming = api::signed_in_hint();
    let session = Session {
        state: RwSignal::new(if resuming {
            SessionState::Resuming
        } else {
            SessionState::SignedOut
        }),
    };
    provide_context(session);
    let navigate = use_safe_navigate();
    api::on_unauthenticated(move || {
        session.signed_out();
        if !on_sign_in_page() {
            navigate(&sign_in_here(), NavigateOptions::default());
        }
    });
    if resuming {
        session.check();
    }
    session
}

/// The session context (panics outside [`provide_session`], a programming error).
pub fn use_session() -> Session {
    expect_context::<Session>()
}
