//! A page title that can be renamed in place: the name with a "Rename" button; editing
//! shows an input (Enter saves, Escape cancels) and MLflow's message if the rename fails.

use leptos::html::Input;
use leptos::prelude::*;

use super::{action_error, error_view};
use crate::api::ApiError;

/// The `<h1>` of a run or experiment page, renamable when `can_edit`.
#[component]
pub fn EditableTitle(
    /// The current name.
    name: RwSignal<String>,
    /// Whether the rename control is shown.
    can_edit: bool,
    /// What is named, for labels: `run` or `experiment`.
    noun: &'static str,
    /// Saves a new name (and updates `name` on success).
    save: Action<String, Result<(), ApiError>>,
) -> impl IntoView {
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(String::new());
    let input = NodeRef::<Input>::new();
    let local_error = RwSignal::new(None::<String>);
    let server_error = action_error(save);
    let error = Signal::derive(move || local_error.get().or_else(|| server_error.get()));
    let pending = save.pending();
    let start = move |_| {
        draft.set(name.get_untracked());
        local_error.set(None);
        save.value().set(None);
        editing.set(true);
    };
    Effect::new(move |_| {
        if editing.get() {
            if let Some(el) = input.get() {
                let _ = el.focus();
                el.select();
            }
        }
    });
    // A finished save that succeeded closes the editor.
    Effect::new(move |_| {
        if let Some(Ok(())) = save.value().get() {
            editing.set(false);
        }
    });
    let submit = move || {
        let v = draft.get_untracked().trim().to_owned();
        if v.is_empty() {
            local_error.set(Some(format!("A {noun} needs a name.")));
        } else if v == name.get_untracked() {
            editing.set(false);
        } else {
            local_error.set(None);
            save.value().set(None);
            save.dispatch(v);
        }
    };
    let cancel = move || {
        editing.set(false);
        local_error.set(None);
        save.value().set(None);
    };
    let label = format!("Rename {noun}");
    let field = {
        let mut c = noun.chars();
        let first: String = c
            .next()
            .map(|f| f.to_uppercase().collect())
            .unwrap_or_default();
        format!("{first}{} name", c.as_str())
    };
    view! {
        <Show when=move || editing.get() fallback=move || view! {
            <h1 class="editable-title">{move || name.get()}</h1>
            {can_edit.then(|| view! {
                <button class="icon-button rename-button" type="button" aria-label=label.clone() title=label.clone()
                    on:click=start>"✎"</button>
            })}
        }>
            <form class="title-edit" on:submit=move |ev| { ev.prevent_default(); submit(); }>
                <input node_ref=input class="text-input title-input" type="text" aria-label=field.clone()
                    prop:value=move || draft.get()
                    on:input=move |ev| draft.set(event_target_value(&ev))
                    on:keydown=move |ev| if ev.key() == "Escape" { cancel() } />
                <button class="button button-primary button-small" type="submit" disabled=move || pending.get()>"Save"</button>
                <button class="button button-small" type="button" on:click=move |_| cancel()>"Cancel"</button>
            </form>
        </Show>
        {error_view(Signal::derive(move || editing.get().then(|| error.get()).flatten()))}
    }
}
