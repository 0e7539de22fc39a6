//! The experiment page's Share dialog: who has access, grant / change / revoke (CAN_MANAGE
//! only), and "Copy link" for the current view (its whole state is in the URL).

mod access_list;
mod add_grant;
mod level_select;
pub mod levels;

use api_types as json;
use leptos::ev;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_location;

use crate::api::{self, ApiError};
use crate::components::copy_button::CopyButton;
use crate::components::states::Loading;
use access_list::AccessList;
use add_grant::AddGrant;

/// The full URL of the current view (the router's `search` has no leading `?`).
pub fn share_link(origin: &str, path: &str, search: &str) -> String {
    let search = search.trim_start_matches('?');
    if search.is_empty() {
        format!("{origin}{path}")
    } else {
        format!("{origin}{path}?{search}")
    }
}

/// "Share" button opening the dialog.
#[component]
pub fn ShareButton(
    /// Experiment id.
    experiment_id: String,
    /// Experiment name, for the dialog's title.
    experiment_name: String,
) -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <button class="button" aria-haspopup="dialog" on:click=move |_| open.set(true)>
            <svg viewBox="0 0 24 24" width="15" height="15" aria-hidden="true">
                <path d="M16 6l-4-4-4 4M12 2v13M5 12v7a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2v-7" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" />
            </svg>
            "Share"
        </button>
        <Show when=move || open.get()>
            <ShareDialog experiment_id=experiment_id.clone() experiment_name=experiment_name.clone()
                on_close=Callback::new(move |_| open.set(false)) />
        </Show>
    }
}

/// The modal dialog.
#[component]
fn ShareDialog(
    /// Experiment id.
    experiment_id: String,
    /// Experiment name.
    experiment_name: String,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let access = RwSignal::new(None::<Result<json::ExperimentAccess, ApiError>>);
    let action_error = RwSignal::new(None::<String>);
    let id = StoredValue::new(experiment_id);
    let load =
        move || spawn_local(async move { access.set(Some(api::get_access(id.get_value()).await)) });
    load();
    let can_manage = Signal::derive(move || {
        access.with(|a| matches!(a, Some(Ok(a)) if a.your_level == json::Level::CanManage))
    });
    let on_grant = Callback::new(move |req: json::GrantRequest| {
        spawn_local(async move {
            match api::put_grant(id.get_value(), req).await {
                Ok(()) => {
                    action_error.set(None);
                    load();
                }
                Err(e) => action_error.set(Some(e.message)),
            }
        })
    });
    let on_revoke = Callback::new(move |who: json::Principal| {
        spawn_local(async move {
            match api::delete_grant(id.get_value(), who).await {
                Ok(()) => {
                    action_error.set(None);
                    load();
                }
                Err(e) => action_error.set(Some(e.message)),
            }
        })
    });
    let key = window_event_listener(ev::keydown, move |e| {
        if e.key() == "Escape" {
            on_close.run(());
        }
    });
    on_cleanup(move || key.remove());
    let location = use_location();
    let link = Signal::derive(move || {
        let origin = window().location().origin().unwrap_or_default();
        share_link(&origin, &location.pathname.get(), &location.search.get())
    });
    view! {
        <div class="modal-backdrop" on:click=move |_| on_close.run(())>
            <div class="modal" role="dialog" aria-modal="true" aria-label="Share" on:click=|ev| ev.stop_propagation()>
                <div class="modal-header">
                    <h2>"Share " <span class="mono">{experiment_name}</span></h2>
                    <button class="icon-button" aria-label="Close" on:click=move |_| on_close.run(())>"✕"</button>
                </div>
                <div class="modal-body">
                    <AddGrant can_manage=can_manage on_grant=on_grant />
                    {move || (!can_manage.get() && access.with(|a| matches!(a, Some(Ok(_))))).then(|| view! {
                        <p class="muted small">"Only people who can manage this experiment can change who has access."</p>
                    })}
                    {move || action_error.get().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
                    {move || match access.get() {
                        None => view! { <Loading label="Loading who has access…" /> }.into_any(),
                        Some(Err(e)) => view! { <div class="form-error" role="alert">{e.message}</div> }.into_any(),
                        Some(Ok(a)) => view! {
                            <AccessList access=a can_manage=can_manage on_change=on_grant on_revoke=on_revoke />
                        }.into_any(),
                    }}
                </div>
                <div class="modal-footer">
                    <input class="text-input mono link-input" readonly aria-label="Link to this view" prop:value=move || link.get() />
                    <CopyButton text=link label="Copy link" done_label="Link copied" />
                </div>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::share_link;

    #[test]
    fn links_keep_the_query() {
        let o = "http://h:1";
        assert_eq!(
            share_link(o, "/experiments/1", "tab=x"),
            "http://h:1/experiments/1?tab=x"
        );
        assert_eq!(
            share_link(o, "/experiments/1", "?tab=x"),
            "http://h:1/experiments/1?tab=x"
        );
        assert_eq!(share_link(o, "/", ""), "http://h:1/");
    }
}
