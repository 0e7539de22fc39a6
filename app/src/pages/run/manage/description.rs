//! A Markdown description (the tag `mlflow.note.content` of a run or an experiment):
//! rendered safely ([`crate::components::markdown`]); those who may edit get "Edit" with a
//! text area, Save and Cancel.

use leptos::prelude::*;

use super::{action_error, error_view};
use crate::api::ApiError;
use crate::components::markdown::Markdown;

/// The description, editable when `can_edit`.
#[component]
pub fn Description(
    /// The Markdown source (empty = none).
    text: Signal<String>,
    /// Whether the edit control is shown.
    can_edit: bool,
    /// Saves new text (and updates `text` on success).
    save: Action<String, Result<(), ApiError>>,
    /// In a card with a title (run page) or plain (experiment header).
    #[prop(optional)]
    card: bool,
) -> impl IntoView {
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(String::new());
    let error = action_error(save);
    let pending = save.pending();
    Effect::new(move |_| {
        if let Some(Ok(())) = save.value().get() {
            editing.set(false);
        }
    });
    let start = move |_| {
        draft.set(text.get_untracked());
        save.value().set(None);
        editing.set(true);
    };
    let shown = move || {
        let empty = text.with(|t| t.trim().is_empty());
        view! {
            <Show when=move || !empty fallback=move || (card || can_edit).then(|| view! {
                <p class="muted description-empty">"No description."</p>
            })>
                <Markdown source=text />
            </Show>
            {can_edit.then(|| view! {
                <button class="button button-small description-edit" type="button" on:click=start>
                    {if empty { "Add description" } else { "Edit description" }}
                </button>
            })}
        }
    };
    let editor = move || {
        view! {
            <form class="description-form" on:submit=move |ev| { ev.prevent_default(); save.dispatch(draft.get_untracked()); }>
                <textarea class="text-input description-input mono" rows="8" aria-label="Description (Markdown)"
                    prop:value=move || draft.get()
                    on:input=move |ev| draft.set(event_target_value(&ev))></textarea>
                <div class="form-actions">
                    <span class="muted small">"Markdown: **bold**, lists, links, tables."</span>
                    <button class="button button-small" type="button" on:click=move |_| editing.set(false)>"Cancel"</button>
                    <button class="button button-primary button-small" type="submit" disabled=move || pending.get()>"Save description"</button>
                </div>
                {error_view(error)}
            </form>
        }
    };
    let body = move || {
        if editing.get() {
            editor().into_any()
        } else {
            shown().into_any()
        }
    };
    if card {
        view! {
            <section class="card description-card" aria-label="Description">
                <h2 class="card-title">"Description"</h2>
                <div class="description-body">{body}</div>
            </section>
        }
        .into_any()
    } else {
        view! { <div class="description-block" aria-label="Description">{body}</div> }.into_any()
    }
}
