//! The "Columns" dropdown of the runs table: checkboxes for every param, metric and tag
//! key of the experiment.

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

fn group(
    title: &'static str,
    kind: ColumnKind,
    keys: Vec<String>,
    selected: Signal<json::RunTableColumns>,
    on_change: Callback<json::RunTableColumns>,
) -> impl IntoView {
    let empty = keys.is_empty();
    let items = keys.into_iter().map(|key| {
        let k = key.clone();
        let checked = move || selected.with(|c| match kind {
            ColumnKind::Param => c.params.contains(&k),
            ColumnKind::Metric => c.metrics.contains(&k),
            ColumnKind::Tag => c.tags.contains(&k),
        });
        let k2 = key.clone();
        view! {
            <label class="check">
                <input type="checkbox" prop:checked=checked
                    on:change=move |_| on_change.run(toggled(&selected.get_untracked(), kind, &k2)) />
                <span class="truncate" title=key.clone()>{key.clone()}</span>
            </label>
        }
    }).collect_view();
    view! {
        <div class="picker-group">
            <div class="picker-title">{title}</div>
            {empty.then(|| view! { <div class="muted small">"None logged"</div> })}
            {items}
        </div>
    }
}

/// Dropdown to choose the runs table's param, metric and tag columns.
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
    view! {
        <details class="dropdown">
            <summary class="button">"Columns " <span class="count">{count}</span></summary>
            <div class="dropdown-menu">
                {group("Params", ColumnKind::Param, detail.param_keys, selected, on_change)}
                {group("Metrics", ColumnKind::Metric, detail.metric_keys, selected, on_change)}
                {group("Tags", ColumnKind::Tag, detail.tag_keys, selected, on_change)}
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
}
