//! A registered model's or a version's tags: a table with Delete per row for those who may
//! delete, and an add/replace form for those who may edit. A failed write shows MLflow's
//! message.

use api_types::KeyValue;
use leptos::prelude::*;

use super::Target;
use crate::api::{self, ApiError};
use crate::components::states::EmptyState;
use crate::pages::run::manage::upsert;

async fn set(target: Target, key: String, value: String) -> Result<(), ApiError> {
    match target {
        Target::Model(n) => api::set_model_tag(n, key, value).await,
        Target::Version(n, v) => api::set_version_tag(n, v, key, value).await,
    }
}

async fn delete(target: Target, key: String) -> Result<(), ApiError> {
    match target {
        Target::Model(n) => api::delete_model_tag(n, key).await,
        Target::Version(n, v) => api::delete_version_tag(n, v, key).await,
    }
}

/// The tags card.
#[component]
pub(in crate::pages::models) fn EditableTags(
    /// What the tags belong to.
    target: Target,
    /// The tags as loaded.
    tags: Vec<KeyValue>,
    /// Whether the add/replace form is shown.
    can_edit: bool,
    /// Whether each row has Delete.
    can_delete: bool,
) -> impl IntoView {
    let tags = RwSignal::new({
        let mut t = tags;
        t.sort_by(|a, b| a.key.cmp(&b.key));
        t
    });
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let target = StoredValue::new(target);
    let remove = move |k: String| {
        busy.set(true);
        leptos::task::spawn_local(async move {
            match delete(target.get_value(), k.clone()).await {
                Ok(()) => {
                    error.set(None);
                    tags.update(|t| t.retain(|kv| kv.key != k));
                }
                Err(e) => error.set(Some(e.message)),
            }
            busy.set(false);
        });
    };
    let row = move |kv: KeyValue| {
        let k = kv.key.clone();
        view! {
            <tr data-tag=kv.key.clone()>
                <td class="key truncate" title=kv.key.clone()>{kv.key.clone()}</td>
                <td class="value mono wrap">{kv.value}</td>
                {can_delete.then(|| view! {
                    <td class="tag-actions">
                        <button class="button button-small button-danger" type="button"
                            aria-label=format!("Delete tag {k}") disabled=move || busy.get()
                            on:click=move |_| remove(k.clone())>"Delete"</button>
                    </td>
                })}
            </tr>
        }
    };
    view! {
        <section class="card tags-card" aria-label="Tags">
            <h2 class="card-title">"Tags"</h2>
            <Show when=move || !tags.with(Vec::is_empty) fallback=|| view! { <EmptyState title="No tags" hint="" /> }>
                <table class="table kv-table tags-table"><tbody>
                    <For each=move || tags.get() key=|kv| (kv.key.clone(), kv.value.clone()) children=row />
                </tbody></table>
            </Show>
            {can_edit.then(|| view! { <AddTag target=target tags=tags error=error busy=busy /> })}
            {move || error.get().map(|m| view! { <div class="form-error tag-error" role="alert">{m}</div> })}
        </section>
    }
}

/// The form setting a tag (a new key adds a row, a known one replaces its value).
#[component]
fn AddTag(
    /// What the tags belong to.
    target: StoredValue<Target>,
    /// The shown tags, updated on success.
    tags: RwSignal<Vec<KeyValue>>,
    /// The latest failure.
    error: RwSignal<Option<String>>,
    /// Whether a write is under way.
    busy: RwSignal<bool>,
) -> impl IntoView {
    let key = RwSignal::new(String::new());
    let value = RwSignal::new(String::new());
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (k, v) = (key.get_untracked().trim().to_owned(), value.get_untracked());
        if k.is_empty() {
            error.set(Some("A tag needs a key.".into()));
            return;
        }
        busy.set(true);
        leptos::task::spawn_local(async move {
            match set(target.get_value(), k.clone(), v.clone()).await {
                Ok(()) => {
                    error.set(None);
                    key.set(String::new());
                    value.set(String::new());
                    tags.update(|t| upsert(t, &k, &v));
                }
                Err(e) => error.set(Some(e.message)),
            }
            busy.set(false);
        });
    };
    view! {
        <form class="add-tag" on:submit=submit>
            <input class="text-input mono" type="text" placeholder="key" aria-label="Tag key"
                prop:value=move || key.get() on:input=move |ev| key.set(event_target_value(&ev)) />
            <input class="text-input mono" type="text" placeholder="value" aria-label="Tag value"
                prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
            <button class="button button-small" type="submit" disabled=move || busy.get()>"Set tag"</button>
        </form>
    }
}
