//! `/settings`: the signed-in user's account and API tokens (create, list, revoke).

mod new_token;
mod tokens;

use leptos::prelude::*;

use crate::components::states::{ErrorView, Loading};
use crate::session::use_session;
use new_token::NewTokenForm;
use tokens::TokensTable;

/// The settings page.
#[component]
pub fn Settings() -> impl IntoView {
    let session = use_session();
    let tokens = LocalResource::new(crate::api::list_tokens);
    let refetch = Callback::new(move |_| tokens.refetch());
    let who = move || {
        session.me().map(|me| {
            let role = if me.is_admin { "administrator" } else { "user" };
            format!("Signed in as {} ({role}).", me.username)
        })
    };
    view! {
        <div class="page-header">
            <div>
                <h1>"Settings"</h1>
                <p class="subtitle">{who}</p>
            </div>
        </div>
        <section class="card settings-section" aria-labelledby="tokens-title">
            <div class="card-title">
                <h2 id="tokens-title">"API tokens"</h2>
                <p class="muted small">
                    "Programs such as the mlflow client sign in with a token. Each token acts as you; "
                    "revoke it when a machine or a script no longer needs it."
                </p>
            </div>
            <NewTokenForm on_created=refetch />
            <Transition fallback=|| view! { <Loading label="Loading tokens…" /> }>
                {move || Suspend::new(async move {
                    match tokens.await {
                        Ok(list) => view! { <TokensTable tokens=list on_revoked=refetch /> }.into_any(),
                        Err(e) => view! { <ErrorView title="Could not load your tokens" error=e retry=refetch /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}
