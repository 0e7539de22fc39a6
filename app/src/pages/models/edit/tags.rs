//! A registered model's or a version's tags: a table, with Delete per row and an add/replace
//! form for those who may edit. A failed write shows MLflow's message.

use api_types::KeyValue;
use leptos::prelude::*;

use super::Target;
use crate::api::{self, ApiError};

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
pub fn EditableTags(
    /// What the tags belong to.
    target: Target,
    /// The tags as loaded.
    tags: Vec<KeyValue>,
    /// Whether the edit controls are shown.
    can_edit: bool,
) -> impl IntoView {
    let tags = RwSignal::new(tags);
    let error = RwSignal::new(None::<String>);
    let key = RwSignal::new(String::new());
    let value = RwSignal::new(String::new());
    let target = StoredValue::new(target);
    let remove = move |k: String| {
        leptos::task::spawn_local(async move {
            match delete(target.get_value(), k.clone()).await {
                Ok(()) => {
                    error.set(None);
                    tags.update(|t| t.retain(|kv| kv.key != k));
                }
                Err(e) => error.set(Some(e.message)),
            }
        });
    };
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (k, v) = (key.get_untracked().trim().to_owned(), value.get_untracked());
        if k.is_empty() {
            return;
        }
        leptos::task::spawn_local(async move {
            match set(target.get_value(), k.clone(), v.clone()).await {
                Ok(()) => {
                    error.set(None);
                    key.set(String::new());
                    value.set(String::new());
                    tags.update(|t| match t.iter_mut().find(|kv| kv.key == k) {
                        Some(kv) => kv.value = v,
                        None => t.push(KeyValue { key: k, value: v }),
                    });
                }
                Err(e) => error.set(Some(e.message)),
            }
        });
    };
    let rows = move || {
        tags.get()
            .into_iter()
            .map(|kv| {
                let k = kv.key.clone();
                view! {
                    <tr data-tag=kv.key.clone()>
                        <td class="mono">{kv.key.clone()}</td>
                        <td class="mono">{kv.value.clone()}</td>
                        {can_edit.then(|| view! {
                            <td><button class="button button-small" type="button"
                                aria-label=format!("Delete tag {k}")
                                on:click=move |_| remove(k.clone())>"Delete"</button></td>
                        })}
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <section class="card" aria-label="Tags">
            <h2 class="card-title">"Tags"</h2>
            <Show when=move || !tags.with(Vec::is_empty) fallback=|| view! { <p class="muted">"No tags"</p> }>
                <table class="table kv-table"><tbody>{rows}</tbody></table>
            </Show>
            {can_edit.then(|| view! {
                <form class="tag-form" on:submit=add>
                    <input class="text-input" placeholder="Key" aria-label="Tag key"
                        prop:value=move || key.get() on:input=move |ev| key.set(event_target_value(&ev)) />
                    <input class="text-input" placeholder="Value" aria-label="Tag value"
                        prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
                    <button class="button button-small" type="submit">"Set tag"</button>
                </form>
            })}
            {move || error.get().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
        </section>
    }
}
