//! The run's tags: user tags (editable when allowed: change a value, delete, add) and,
//! apart and read-only, MLflow's `mlflow.*` system tags (the description's tag is shown as
//! the description instead).

use api_types as json;
use leptos::prelude::*;

use super::{is_system_tag, RunEdit};
use crate::api::{self, NOTE_TAG};
use crate::components::states::EmptyState;

/// The latest failure of a tag write.
type TagError = RwSignal<Option<String>>;

async fn set_tag(edit: RunEdit, key: String, value: String, error: TagError) -> bool {
    match api::set_run_tag(edit.run_id.get_value(), key.clone(), value.clone()).await {
        Ok(()) => {
            edit.tag_set(&key, &value);
            error.set(None);
            true
        }
        Err(e) => {
            error.set(Some(e.message));
            false
        }
    }
}

/// One user tag's row: key, value, and (when editable) Edit and Delete.
#[component]
fn TagRow(kv: json::KeyValue, edit: RunEdit, error: TagError) -> impl IntoView {
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(kv.value.clone());
    let busy = RwSignal::new(false);
    let key = StoredValue::new(kv.key.clone());
    let save = move || {
        busy.set(true);
        leptos::task::spawn_local(async move {
            if set_tag(edit, key.get_value(), draft.get_untracked(), error).await {
                editing.set(false);
            }
            busy.set(false);
        });
    };
    let delete = move |_| {
        busy.set(true);
        leptos::task::spawn_local(async move {
            match api::delete_run_tag(edit.run_id.get_value(), key.get_value()).await {
                Ok(()) => {
                    error.set(None);
                    edit.tag_deleted(&key.get_value());
                }
                Err(e) => error.set(Some(e.message)),
            }
            busy.set(false);
        });
    };
    let value = kv.value.clone();
    view! {
        <tr data-tag=kv.key.clone()>
            <td class="key truncate" title=kv.key.clone()>{kv.key.clone()}</td>
            <td class="value mono wrap">
                <Show when=move || editing.get() fallback=move || value.clone()>
                    <form class="tag-edit" on:submit=move |ev| { ev.prevent_default(); save(); }>
                        <input class="text-input mono" type="text" aria-label=format!("Value of {}", key.get_value())
                            prop:value=move || draft.get() on:input=move |ev| draft.set(event_target_value(&ev))
                            on:keydown=move |ev| if ev.key() == "Escape" { editing.set(false) } />
                        <button class="button button-primary button-small" type="submit" disabled=move || busy.get()>"Save"</button>
                        <button class="button button-small" type="button" on:click=move |_| editing.set(false)>"Cancel"</button>
                    </form>
                </Show>
            </td>
            {edit.can_edit.then(|| view! {
                <td class="tag-actions">
                    <button class="button button-small" type="button" aria-label=format!("Edit tag {}", key.get_value())
                        disabled=move || busy.get() on:click=move |_| editing.set(true)>"Edit"</button>
                    <button class="button button-small button-danger" type="button" aria-label=format!("Delete tag {}", key.get_value())
                        disabled=move || busy.get() on:click=delete>"Delete"</button>
                </td>
            })}
        </tr>
    }
}

/// The form adding a tag.
#[component]
fn AddTag(edit: RunEdit, error: TagError) -> impl IntoView {
    let key = RwSignal::new(String::new());
    let value = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let k = key.get_untracked().trim().to_owned();
        if k.is_empty() {
            error.set(Some("A tag needs a key.".into()));
            return;
        }
        busy.set(true);
        leptos::task::spawn_local(async move {
            if set_tag(edit, k, value.get_untracked(), error).await {
                key.set(String::new());
                value.set(String::new());
            }
            busy.set(false);
        });
    };
    view! {
        <form class="add-tag" on:submit=submit>
            <input class="text-input mono" type="text" placeholder="key" aria-label="New tag key"
                prop:value=move || key.get() on:input=move |ev| key.set(event_target_value(&ev)) />
            <input class="text-input mono" type="text" placeholder="value" aria-label="New tag value"
                prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
            <button class="button button-small" type="submit" disabled=move || busy.get()>"Add tag"</button>
        </form>
    }
}

/// The user tags (editable) and the system tags (read-only).
#[component]
pub fn RunTags(
    /// The run's editable state.
    edit: RunEdit,
) -> impl IntoView {
    let error: TagError = RwSignal::new(None);
    let user = Memo::new(move |_| {
        edit.tags.with(|t| {
            t.iter()
                .filter(|kv| !is_system_tag(&kv.key))
                .cloned()
                .collect::<Vec<_>>()
        })
    });
    let system = Memo::new(move |_| {
        edit.tags.with(|t| {
            t.iter()
                .filter(|kv| is_system_tag(&kv.key) && kv.key != NOTE_TAG)
                .cloned()
                .collect::<Vec<_>>()
        })
    });
    let can_edit = edit.can_edit;
    view! {
        <section class="card tags-card" aria-label="Tags">
            <h2 class="card-title">"Tags"</h2>
            <Show when=move || !user.with(Vec::is_empty) fallback=|| view! { <EmptyState title="No tags" hint="" /> }>
                <table class="table kv-table tags-table">
                    <tbody>
                        <For each=move || user.get() key=|kv| (kv.key.clone(), kv.value.clone()) let:kv>
                            <TagRow kv=kv edit=edit error=error />
                        </For>
                    </tbody>
                </table>
            </Show>
            {can_edit.then(|| view! { <AddTag edit=edit error=error /> })}
            {move || error.get().map(|m| view! { <div class="form-error tag-error" role="alert">{m}</div> })}
        </section>
        <section class="card tags-card" aria-label="System tags">
            <h2 class="card-title">"System tags" <span class="muted small">" (mlflow.*, read-only)"</span></h2>
            <Show when=move || !system.with(Vec::is_empty) fallback=|| view! { <EmptyState title="No system tags" hint="" /> }>
                <table class="table kv-table">
                    <tbody>
                        <For each=move || system.get() key=|kv| (kv.key.clone(), kv.value.clone()) let:kv>
                            <tr>
                                <td class="key truncate" title=kv.key.clone()>{kv.key.clone()}</td>
                                <td class="value mono wrap">{kv.value.clone()}</td>
                            </tr>
                        </For>
                    </tbody>
                </table>
            </Show>
        </section>
    }
}
