//! The "Columns" dropdown of the runs table: checkboxes for every metric, param and tag
//! key of the experiment, a search box over them, full key names.

use api_types as json;
use leptos::prelude::*;

/// Which group a key belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// Params.
    Param,
    /// Metrics.
    Metric,
    /// Tags.
    Tag,
}

/// `cols` with `key` of `kind` added (at the end) or removed.
pub fn toggled(cols: &json::RunTableColumns, kind: ColumnKind, key: &str) -> json::RunTableColumns {
    let mut next = cols.clone();
    let list = match kind {
        ColumnKind::Param => &mut next.params,
        ColumnKind::Metric => &mut next.metrics,
        ColumnKind::Tag => &mut next.tags,
    };
    match list.iter().position(|k| k == key) {
        Some(i) => {
            list.remove(i);
        }
        None => list.push(key.to_owned()),
    }
    next
}

/// Whether `key` matches the search text (case-insensitive substring; every word must match).
pub fn matches(key: &str, search: &str) -> bool {
    let key = key.to_lowercase();
    search
        .to_lowercase()
        .split_whitespace()
        .all(|w| key.contains(w))
}

fn group(
    title: &'static str,
    kind: ColumnKind,
    keys: Vec<String>,
    search: RwSignal<String>,
    selected: Signal<json::RunTableColumns>,
    on_change: Callback<json::RunTableColumns>,
) -> impl IntoView {
    let total = keys.len();
    let item = move |key: String| {
        let k = key.clone();
        let checked = move || {
            selected.with(|c| match kind {
                ColumnKind::Param => c.params.contains(&k),
                ColumnKind::Metric => c.metrics.contains(&k),
                ColumnKind::Tag => c.tags.contains(&k),
            })
        };
        let k2 = key.clone();
        view! {
            <label class="check picker-item" title=key.clone()>
                <input type="checkbox" prop:checked=checked
                    on:change=move |_| on_change.run(toggled(&selected.get_untracked(), kind, &k2)) />
                <span class="picker-key">{key.clone()}</span>
            </label>
        }
    };
    let items = move || {
        let s = search.get();
        let shown: Vec<String> = keys.iter().filter(|k| matches(k, &s)).cloned().collect();
        let note = match (total, shown.len()) {
            (0, _) => Some("None logged"),
            (_, 0) => Some("No match"),
            _ => None,
        };
        view! {
            {note.map(|n| view! { <div class="muted small">{n}</div> })}
            {shown.into_iter().map(item).collect_view()}
        }
    };
    view! {
        <div class="picker-group" role="group" aria-label=title>
            <div class="picker-title">{title}</div>
            {items}
        </div>
    }
}

/// Dropdown to choose the runs table's metric, param and tag columns, with a search box;
/// keys are shown in full (they wrap).
#[component]
pub fn ColumnsPicker(
    /// The keys the experiment's runs use.
    detail: json::ExperimentDetail,
    /// The columns shown now.
    #[prop(into)]
    selected: Signal<json::RunTableColumns>,
    /// Called with the new column choice.
    on_change: Callback<json::RunTableColumns>,
) -> impl IntoView {
    let count = move || selected.with(|c| c.params.len() + c.metrics.len() + c.tags.len());
    let search = RwSignal::new(String::new());
    view! {
        <details class="dropdown columns-picker">
            <summary class="button">"Columns " <span class="count">{count}</span></summary>
            <div class="dropdown-menu columns-menu">
                <input class="filter-input picker-search" type="search" aria-label="Search columns"
                    placeholder="Search keys…"
                    prop:value=move || search.get()
                    on:input=move |ev| search.set(event_target_value(&ev)) />
                {group("Metrics", ColumnKind::Metric, detail.metric_keys, search, selected, on_change)}
                {group("Params", ColumnKind::Param, detail.param_keys, search, selected, on_change)}
                {group("Tags", ColumnKind::Tag, detail.tag_keys, search, selected, on_change)}
            </div>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toggles_keys() {
        let c = json::RunTableColumns {
            params: vec!["a".into()],
            ..Default::default()
        };
        let c = toggled(&c, ColumnKind::Param, "b");
        assert_eq!(c.params, vec!["a", "b"]);
        let c = toggled(&c, ColumnKind::Param, "a");
        assert_eq!(c.params, vec!["b"]);
        assert_eq!(
            toggled(&c, ColumnKind::Metric, "loss").metrics,
            vec!["loss"]
        );
    }

    #[test]
    fn search_matches_every_word() {
        assert!(matches(
            "system/system_memory_usage_megabytes",
            "MEMORY sys"
        ));
        assert!(matches("lr", ""));
        assert!(!matches("system/cpu_utilization_percentage", "memory"));
    }
}
