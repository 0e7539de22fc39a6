//! "Add people or groups": a principal search (`/api/v1/principals?q=`) with suggestions,
//! a level and the "Grant" button.

use api_types as json;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_use_fn_debounce_throttle::use_debounce_fn_with_arg;

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

/// Typing pauses this long (ms) before the principals are searched.
const SEARCH_PAUSE_MS: f64 = 200.0;

/// The picker's state; `Copy`.
#[derive(Clone, Copy)]
struct Picker {
    /// What is typed.
    text: RwSignal<String>,
    /// Principals matching it.
    suggestions: RwSignal<Vec<json::Principal>>,
    /// The suggestion picked, if any (cleared by typing).
    chosen: RwSignal<Option<json::Principal>>,
    /// Why the last grant could not be made.
    error: RwSignal<Option<String>>,
}

impl Picker {
    fn new() -> Self {
        Self {
            text: RwSignal::new(String::new()),
            suggestions: RwSignal::new(Vec::new()),
            chosen: RwSignal::new(None),
            error: RwSignal::new(None),
        }
    }

    /// Shows the principals matching `q`, unless the text has changed meanwhile.
    fn search(self, q: String) {
        spawn_local(async move {
            if let Ok(found) = api::list_principals(q.clone()).await {
                if self.text.try_get_untracked().as_ref() == Some(&q) {
                    self.suggestions.set(found);
                }
            }
        })
    }

    /// Picks a suggestion.
    fn choose(self, p: json::Principal) {
        self.text.set(p.name.clone());
        self.chosen.set(Some(p));
        self.suggestions.set(Vec::new());
    }

    /// Empties the picker after a grant.
    fn clear(self) {
        self.text.set(String::new());
        self.chosen.set(None);
        self.suggestions.set(Vec::new());
    }
}

/// Whom to grant: the picked suggestion when it is still what is typed, else whoever is
/// named exactly `name`; the error says why not.
async fn resolve_principal(
    name: String,
    picked: Option<json::Principal>,
) -> Result<json::Principal, String> {
    if let Some(p) = picked.filter(|p| p.name == name) {
        return Ok(p);
    }
    let found = api::list_principals(name.clone())
        .await
        .map_err(|e| e.message)?;
    exact_match(&found, &name).ok_or_else(|| format!("No user or group is named “{name}”."))
}

/// The suggestions under the text box.
#[component]
fn Suggestions(
    /// The picker.
    picker: Picker,
) -> impl IntoView {
    view! {
        <Show when=move || picker.suggestions.with(|s| !s.is_empty())>
            <ul class="suggestions" role="listbox" aria-label="Matching people and groups">
                <For each=move || picker.suggestions.get() key=|p| (p.kind == json::PrincipalKind::Group, p.name.clone()) let(p)>
                    <li role="option" aria-selected="false" class="suggestion" on:mousedown=move |ev| {
                        ev.prevent_default();
                        picker.choose(p.clone());
                    }>
                        {p.name.clone()}
                        {(p.kind == json::PrincipalKind::Group).then(|| view! { <span class="tag">"group"</span> })}
                    </li>
                </For>
            </ul>
        </Show>
    }
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
    let picker = Picker::new();
    let level = RwSignal::new(json::Level::CanRead);
    let search_later = use_debounce_fn_with_arg(move |q: String| picker.search(q), SEARCH_PAUSE_MS);
    let on_input = move |ev| {
        let q = event_target_value(&ev);
        picker.text.set(q.clone());
        picker.chosen.set(None);
        picker.error.set(None);
        if q.trim().is_empty() {
            picker.suggestions.set(Vec::new());
        } else {
            search_later(q);
        }
    };
    let grant = move || {
        let name = picker.text.get_untracked().trim().to_owned();
        if name.is_empty() {
            return;
        }
        let (level, picked) = (level.get_untracked(), picker.chosen.get_untracked());
        spawn_local(async move {
            match resolve_principal(name, picked).await {
                Ok(principal) => {
                    on_grant.run(json::GrantRequest { principal, level });
                    picker.clear();
                }
                Err(message) => picker.error.set(Some(message)),
            }
        });
    };
    let disabled = Signal::derive(move || !can_manage.get());
    view! {
        <form class="add-grant" on:submit=move |ev| { ev.prevent_default(); grant(); }>
            <div class="picker">
                <input type="text" class="text-input" aria-label="Add people or groups" autocomplete="off"
                    placeholder="Add people or groups" disabled=disabled
                    prop:value=move || picker.text.get() on:input=on_input />
                <Suggestions picker=picker />
            </div>
            <LevelSelect label="Level" value=level on_change=Callback::new(move |l| level.set(l))
                disabled=disabled />
            <button class="button button-primary" type="submit"
                disabled=move || disabled.get() || picker.text.with(|t| t.trim().is_empty())>"Grant"</button>
        </form>
        {move || picker.error.get().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
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
