//! "Add people or groups": a principal search (`/api/v1/principals?q=`) with suggestions,
//! a level and the "Grant" button.

use std::time::Duration;

use api_types as json;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::level_select::LevelSelect;
use crate::api;

/// The principal named exactly `name` among `found` (users before groups).
pub fn exact_match(found: &[json::Principal], name: &str) -> Option<json::Principal> {
    let name = name.trim();
    let pick = |kind| {
        found
            .iter()
            .find(|p| p.kind == kind && p.name == name)
            .cloned()
    };
    pick(json::PrincipalKind::User).or_else(|| pick(json::PrincipalKind::Group))
}

/// Picker and "Grant" button.
#[component]
pub fn AddGrant(
    /// Whether the caller may change grants.
    #[prop(into)]
    can_manage: Signal<bool>,
    /// Called with the grant to make.
    on_grant: Callback<json::GrantRequest>,
) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let level = RwSignal::new(json::Level::CanRead);
    let suggestions = RwSignal::new(Vec::<json::Principal>::new());
    let chosen = RwSignal::new(None::<json::Principal>);
    let error = RwSignal::new(None::<String>);
    let pending = StoredValue::new_local(None::<TimeoutHandle>);
    let search = move |q: String| {
        spawn_local(async move {
            if let Ok(found) = api::list_principals(q.clone()).await {
                if text.get_untracked() == q {
                    suggestions.set(found);
                }
            }
        })
    };
    let on_input = move |ev| {
        let q = event_target_value(&ev);
        text.set(q.clone());
        chosen.set(None);
        error.set(None);
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let h = (!q.trim().is_empty())
            .then(|| set_timeout_with_handle(move || search(q), Duration::from_millis(200)).ok())
            .flatten();
        if h.is_none() {
            suggestions.set(Vec::new());
        }
        pending.set_value(h);
    };
    on_cleanup(move || {
        if let Some(h) = pending.get_value() {
            h.clear();
        }
    });
    let choose = move |p: json::Principal| {
        text.set(p.name.clone());
        chosen.set(Some(p));
        suggestions.set(Vec::new());
    };
    // Grant the chosen suggestion, or whoever is named exactly as typed.
    let grant = move || {
        let name = text.get_untracked().trim().to_owned();
        if name.is_empty() {
            return;
        }
        let lvl = level.get_untracked();
        let picked = chosen.get_untracked().filter(|p| p.name == name);
        spawn_local(async move {
            let who = match picked {
                Some(p) => Some(p),
                None => match api::list_principals(name.clone()).await {
                    Ok(found) => exact_match(&found, &name),
                    Err(e) => return error.set(Some(e.message)),
                },
            };
            match who {
                Some(principal) => {
                    on_grant.run(json::GrantRequest {
                        principal,
                        level: lvl,
                    });
                    text.set(String::new());
                    chosen.set(None);
                    suggestions.set(Vec::new());
                }
                None => error.set(Some(format!("No user or group is named “{name}”."))),
            }
        });
    };
    view! {
        <form class="add-grant" on:submit=move |ev| { ev.prevent_default(); grant(); }>
            <div class="picker">
                <input type="text" class="text-input" aria-label="Add people or groups" autocomplete="off"
                    placeholder="Add people or groups" disabled=move || !can_manage.get()
                    prop:value=move || text.get() on:input=on_input />
                <Show when=move || suggestions.with(|s| !s.is_empty())>
                    <ul class="suggestions" role="listbox" aria-label="Matching people and groups">
                        <For each=move || suggestions.get() key=|p| (p.kind == json::PrincipalKind::Group, p.name.clone()) let(p)>
                            <li role="option" aria-selected="false" class="suggestion" on:mousedown=move |ev| {
                                ev.prevent_default();
                                choose(p.clone());
                            }>
                                {p.name.clone()}
                                {(p.kind == json::PrincipalKind::Group).then(|| view! { <span class="tag">"group"</span> })}
                            </li>
                        </For>
                    </ul>
                </Show>
            </div>
            <LevelSelect label="Level" value=level on_change=Callback::new(move |l| level.set(l))
                disabled=Signal::derive(move || !can_manage.get()) />
            <button class="button button-primary" type="submit"
                disabled=move || !can_manage.get() || text.with(|t| t.trim().is_empty())>"Grant"</button>
        </form>
        {move || error.get().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(kind: json::PrincipalKind, name: &str) -> json::Principal {
        json::Principal {
            kind,
            name: name.into(),
        }
    }

    #[test]
    fn exact_match_prefers_users() {
        use json::PrincipalKind::{Group, User};
        let found = vec![p(Group, "bob"), p(User, "bobby"), p(User, "bob")];
        assert_eq!(exact_match(&found, " bob "), Some(p(User, "bob")));
        assert_eq!(exact_match(&found[..1], "bob"), Some(p(Group, "bob")));
        assert_eq!(exact_match(&found, "bo"), None);
    }
}
