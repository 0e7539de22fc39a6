//! The list of API tokens (name, prefix, created, last used) with revoke-and-confirm.

use api_types as json;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::components::states::EmptyState;
use crate::format;

/// One token row; "Revoke" asks for confirmation in place.
#[component]
fn TokenRow(
    /// The token.
    token: json::TokenInfo,
    /// Called after it was revoked.
    on_revoked: Callback<()>,
) -> impl IntoView {
    let confirming = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let now = format::now_ms();
    let id = token.id;
    let revoke = move |_| {
        spawn_local(async move {
            match api::delete_token(id).await {
                Ok(()) => on_revoked.run(()),
                Err(e) => error.set(Some(e.message)),
            }
        });
    };
    let name = token.name.clone();
    let last_used = token
        .last_used
        .map(|t| format::relative(t, now))
        .unwrap_or_else(|| "Never".to_owned());
    view! {
        <tr>
            <td class="token-name">{token.name.clone()}</td>
            <td class="mono">{format!("{}…", token.prefix)}</td>
            <td title=format::datetime(token.created)>{format::date(token.created)}</td>
            <td>{last_used}</td>
            <td class="actions">
                <Show when=move || confirming.get() fallback=move || view! {
                    <button class="button button-small" on:click=move |_| confirming.set(true)
                        aria-label=format!("Revoke {}", name.clone())>"Revoke"</button>
                }>
                    <span class="confirm" role="group" aria-label="Confirm revoke">
                        <span class="small">"Programs using it stop working."</span>
                        <button class="button button-small button-danger" on:click=revoke>"Revoke token"</button>
                        <button class="button button-small" on:click=move |_| confirming.set(false)>"Cancel"</button>
                    </span>
                </Show>
                {move || error.get().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
            </td>
        </tr>
    }
}

/// The user's tokens.
#[component]
pub fn TokensTable(
    /// Tokens from the server.
    tokens: Vec<json::TokenInfo>,
    /// Called after a token was revoked.
    on_revoked: Callback<()>,
) -> impl IntoView {
    if tokens.is_empty() {
        return view! {
            <EmptyState title="No API tokens yet" hint="Create one above to log runs from scripts and notebooks." />
        }
        .into_any();
    }
    let rows = tokens
        .into_iter()
        .map(|t| view! { <TokenRow token=t on_revoked=on_revoked /> })
        .collect_view();
    view! {
        <table class="table tokens-table">
            <thead>
                <tr><th>"Name"</th><th>"Token"</th><th>"Created"</th><th>"Last used"</th><th class="actions"></th></tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}
