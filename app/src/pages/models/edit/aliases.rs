//! A registered model's aliases: chips (`@champion → v3`) with a delete button, and a form
//! pointing an alias at a version, for those who may edit. A failed write shows MLflow's
//! message.

use api_types::KeyValue;
use leptos::prelude::*;

use crate::api;

/// The aliases, editable when `can_edit`.
#[component]
pub fn EditableAliases(
    /// The registered model's name.
    name: String,
    /// (alias, version) as loaded.
    aliases: Vec<KeyValue>,
    /// Whether the edit controls are shown.
    can_edit: bool,
) -> impl IntoView {
    let aliases = RwSignal::new(aliases);
    let error = RwSignal::new(None::<String>);
    let alias = RwSignal::new(String::new());
    let version = RwSignal::new(String::new());
    let name = StoredValue::new(name);
    let remove = move |a: String| {
        leptos::task::spawn_local(async move {
            match api::delete_alias(name.get_value(), a.clone()).await {
                Ok(()) => {
                    error.set(None);
                    aliases.update(|l| l.retain(|kv| kv.key != a));
                }
                Err(e) => error.set(Some(e.message)),
            }
        });
    };
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let a = alias.get_untracked().trim().to_owned();
        let v = version
            .get_untracked()
            .trim()
            .trim_start_matches('v')
            .to_owned();
        if a.is_empty() || v.is_empty() {
            return;
        }
        leptos::task::spawn_local(async move {
            match api::set_alias(name.get_value(), a.clone(), v.clone()).await {
                Ok(()) => {
                    error.set(None);
                    alias.set(String::new());
                    version.set(String::new());
                    aliases.update(|l| {
                        l.retain(|kv| kv.key != a);
                        l.push(KeyValue { key: a, value: v });
                    });
                }
                Err(e) => error.set(Some(e.message)),
            }
        });
    };
    let chips = move || {
        let list = aliases.get();
        if list.is_empty() {
            return view! { <span class="muted">"—"</span> }.into_any();
        }
        list.into_iter()
            .map(|kv| {
                let a = kv.key.clone();
                view! {
                    <span class="chip" data-alias=kv.key.clone()>
                        {format!("@{} → v{}", kv.key, kv.value)}
                        {can_edit.then(|| view! {
                            <button class="chip-remove" type="button" aria-label=format!("Delete alias {a}")
                                on:click=move |_| remove(a.clone())>"×"</button>
                        })}
                    </span>
                }
            })
            .collect_view()
            .into_any()
    };
    view! {
        <span class="chips">{chips}</span>
        {can_edit.then(|| view! {
            <form class="alias-form" on:submit=add>
                <input class="text-input" placeholder="alias" aria-label="Alias"
                    prop:value=move || alias.get() on:input=move |ev| alias.set(event_target_value(&ev)) />
                <input class="text-input" placeholder="version" aria-label="Alias version"
                    prop:value=move || version.get() on:input=move |ev| version.set(event_target_value(&ev)) />
                <button class="button button-small" type="submit">"Set alias"</button>
            </form>
        })}
        {move || error.get().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
    }
}
