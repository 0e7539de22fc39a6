//! A registered model's aliases: chips (`@champion → v3`), with a remove button for those
//! who may delete an alias (CAN_MANAGE), and a form pointing an alias at a version for
//! those who may edit. A failed write shows MLflow's message.

use api_types::KeyValue;
use leptos::prelude::*;

use crate::api;

/// `v3` or `3` as the version number MLflow expects.
fn version_number(input: &str) -> &str {
    let v = input.trim();
    v.strip_prefix('v').unwrap_or(v)
}

/// The aliases and their controls.
#[component]
pub(in crate::pages::models) fn EditableAliases(
    /// The registered model's name.
    name: String,
    /// (alias, version) as loaded.
    aliases: Vec<KeyValue>,
    /// Whether the form setting an alias is shown.
    can_edit: bool,
    /// Whether each chip has a remove button.
    can_delete: bool,
) -> impl IntoView {
    let aliases = RwSignal::new(aliases);
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let name = StoredValue::new(name);
    let remove = move |a: String| {
        busy.set(true);
        leptos::task::spawn_local(async move {
            match api::delete_alias(name.get_value(), a.clone()).await {
                Ok(()) => {
                    error.set(None);
                    aliases.update(|l| l.retain(|kv| kv.key != a));
                }
                Err(e) => error.set(Some(e.message)),
            }
            busy.set(false);
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
                        {can_delete.then(|| view! {
                            <button class="chip-remove" type="button" aria-label=format!("Delete alias {a}")
                                title="Delete alias" disabled=move || busy.get()
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
        {can_edit.then(|| view! { <SetAlias name=name aliases=aliases error=error busy=busy /> })}
        {move || error.get().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
    }
}

/// The form pointing an alias at a version (moving it if it points elsewhere).
#[component]
fn SetAlias(
    /// The registered model's name.
    name: StoredValue<String>,
    /// The shown aliases, updated on success.
    aliases: RwSignal<Vec<KeyValue>>,
    /// The latest failure.
    error: RwSignal<Option<String>>,
    /// Whether a write is under way.
    busy: RwSignal<bool>,
) -> impl IntoView {
    let alias = RwSignal::new(String::new());
    let version = RwSignal::new(String::new());
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let a = alias.get_untracked().trim().to_owned();
        let v = version.with_untracked(|v| version_number(v).to_owned());
        if a.is_empty() || v.is_empty() {
            error.set(Some("An alias needs a name and a version.".into()));
            return;
        }
        busy.set(true);
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
            busy.set(false);
        });
    };
    view! {
        <form class="alias-form" on:submit=submit>
            <input class="text-input" type="text" placeholder="alias" aria-label="Alias"
                prop:value=move || alias.get() on:input=move |ev| alias.set(event_target_value(&ev)) />
            <input class="text-input" type="text" placeholder="version" aria-label="Alias version"
                prop:value=move || version.get() on:input=move |ev| version.set(event_target_value(&ev)) />
            <button class="button button-small" type="submit" disabled=move || busy.get()>"Set alias"</button>
        </form>
    }
}

#[cfg(test)]
mod tests {
    use super::version_number;

    #[test]
    fn versions_take_an_optional_v() {
        assert_eq!(version_number(" v3 "), "3");
        assert_eq!(version_number("12"), "12");
        assert_eq!(version_number(""), "");
    }
}
