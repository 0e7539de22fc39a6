//! A search input that reports its value after the user pauses typing, and
//! [`write_search`], which puts that value in the URL with the right history entry.

use std::time::Duration;

use leptos::prelude::*;

use crate::hooks::QueryState;
use crate::query::Query;

/// Whether the search `new` only refines `old` (typing on, or deleting back).
pub fn refines(old: &str, new: &str) -> bool {
    !old.is_empty() && !new.is_empty() && (new.starts_with(old) || old.starts_with(new))
}

/// Writes a search box's value `new` to the URL key `key` (empty removes it), and `also`'s
/// edits (e.g. back to page 1): a new history entry, so Back undoes a search, except when
/// it only [refines] the current one, which replaces the entry (Back then leaves
/// the search at once instead of undoing each pause in typing).
pub fn write_search(qs: QueryState, key: &'static str, new: String, also: impl FnOnce(&mut Query)) {
    let old = qs.with(|q| q.get(key).unwrap_or_default().to_owned());
    let edit = |q: &mut Query| {
        q.set(key, (!new.is_empty()).then(|| new.clone()));
        also(q);
    };
    if refines(&old, &new) {
        qs.update_replace(edit);
    } else {
        qs.update(edit);
    }
}

/// Debounced search input.
#[component]
pub fn SearchBox(
    /// Current value (e.g. from the URL).
    #[prop(into)]
    value: Signal<String>,
    /// Called with the new value once typing pauses.
    on_change: Callback<String>,
    /// Accessible name.
    #[prop(into)]
    label: String,
    /// Placeholder text.
    #[prop(into)]
    placeholder: String,
    /// Pause before reporting, in milliseconds.
    #[prop(default = 250)]
    debounce_ms: u64,
) -> impl IntoView {
    let pending = StoredValue::new_local(None::<TimeoutHandle>);
    let on_input = move |ev| {
        let v = event_target_value(&ev);
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let h =
            set_timeout_with_handle(move || on_change.run(v), Duration::from_millis(debounce_ms))
                .ok();
        pending.set_value(h);
    };
    on_cleanup(move || {
        if let Some(h) = pending.get_value() {
            h.clear();
        }
    });
    view! {
        <label class="search">
            <svg class="search-icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
                <circle cx="11" cy="11" r="7" stroke="currentColor" stroke-width="2" fill="none" />
                <path d="M20 20l-4-4" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
            </svg>
            <input
                type="text"
                aria-label=label
                placeholder=placeholder
                prop:value=move || value.get()
                on:input=on_input
                on:keydown=move |ev| {
                    if ev.key() == "Enter" {
                        if let Some(h) = pending.get_value() {
                            h.clear();
                        }
                        on_change.run(event_target_value(&ev));
                    }
                }
            />
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::refines;

    #[test]
    fn typing_on_refines_the_search() {
        assert!(refines("lo", "los"));
        assert!(refines("loss", "lo"));
        assert!(!refines("", "loss"));
        assert!(!refines("loss", ""));
        assert!(!refines("loss", "acc"));
    }
}
