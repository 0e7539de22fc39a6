//! Deleting and restoring a run: a "Delete" button that asks for confirmation in a dialog,
//! and on a deleted run a banner with "Restore" (the button only for those who may edit).

use leptos::ev;
use leptos::prelude::*;

use super::RunEdit;
use crate::api::{self, ApiError};

/// A confirmation dialog: `confirm_label` runs `on_confirm`; Cancel, Escape or a click
/// outside close it.
#[component]
pub fn ConfirmDialog(
    /// The dialog's title.
    title: String,
    /// What will happen.
    message: String,
    /// The confirming button's label.
    confirm_label: &'static str,
    /// Called on confirmation.
    on_confirm: Callback<()>,
    /// Called to close without confirming.
    on_cancel: Callback<()>,
    /// Whether the confirmed action is running.
    #[prop(into)]
    pending: Signal<bool>,
    /// The action's failure, if any.
    #[prop(into)]
    error: Signal<Option<String>>,
) -> impl IntoView {
    let key = window_event_listener(ev::keydown, move |e| {
        if e.key() == "Escape" {
            on_cancel.run(());
        }
    });
    on_cleanup(move || key.remove());
    view! {
        <div class="modal-backdrop" on:click=move |_| on_cancel.run(())>
            <div class="modal confirm-dialog" role="dialog" aria-modal="true" aria-label=title.clone()
                on:click=|ev| ev.stop_propagation()>
                <div class="modal-header"><h2>{title.clone()}</h2></div>
                <div class="modal-body">
                    <p>{message}</p>
                    {move || error.get().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
                </div>
                <div class="modal-footer confirm-actions">
                    <button class="button" type="button" on:click=move |_| on_cancel.run(())>"Cancel"</button>
                    <button class="button button-danger" type="button" disabled=move || pending.get()
                        on:click=move |_| on_confirm.run(())>{confirm_label}</button>
                </div>
            </div>
        </div>
    }
}

fn lifecycle_action(edit: RunEdit, delete: bool) -> Action<(), Result<(), ApiError>> {
    Action::new_local(move |_: &()| async move {
        let id = edit.run_id.get_value();
        if delete {
            api::delete_run(id).await?;
        } else {
            api::restore_run(id).await?;
        }
        edit.deleted.set(delete);
        Ok(())
    })
}

fn failure(a: Action<(), Result<(), ApiError>>) -> Signal<Option<String>> {
    let v = a.value();
    Signal::derive(move || v.get().and_then(|r| r.err()).map(|e| e.message))
}

/// The header's "Delete" button and its confirmation (hidden on a deleted run).
#[component]
pub fn DeleteRunButton(
    /// The run's editable state.
    edit: RunEdit,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let action = lifecycle_action(edit, true);
    let error = failure(action);
    Effect::new(move |_| {
        if let Some(Ok(())) = action.value().get() {
            open.set(false);
        }
    });
    let message = move || {
        format!(
            "“{}” leaves the runs table (it stays listed under “Show deleted runs”). You can restore it from this page.",
            edit.name.get_untracked()
        )
    };
    view! {
        <Show when=move || edit.can_edit && !edit.deleted.get()>
            <button class="button button-danger" type="button" on:click=move |_| {
                action.value().set(None);
                open.set(true);
            }>"Delete"</button>
        </Show>
        <Show when=move || open.get()>
            <ConfirmDialog title="Delete run".to_owned() message=message() confirm_label="Delete run"
                on_confirm=Callback::new(move |_| { action.dispatch(()); })
                on_cancel=Callback::new(move |_| open.set(false))
                pending=action.pending() error=error />
        </Show>
    }
}

/// The banner of a deleted run, with "Restore" for those who may edit.
#[component]
pub fn DeletedBanner(
    /// The run's editable state.
    edit: RunEdit,
) -> impl IntoView {
    let action = lifecycle_action(edit, false);
    let error = failure(action);
    view! {
        <Show when=move || edit.deleted.get()>
            <div class="banner banner-deleted" role="status">
                <span><strong>"This run is deleted."</strong>" It is hidden from the runs table unless deleted runs are shown."</span>
                {edit.can_edit.then(|| view! {
                    <button class="button button-small" type="button" disabled=move || action.pending().get()
                        on:click=move |_| { action.dispatch(()); }>"Restore"</button>
                })}
                {move || error.get().map(|m| view! { <span class="form-error" role="alert">{m}</span> })}
            </div>
        </Show>
    }
}
