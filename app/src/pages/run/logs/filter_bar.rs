//! The Logs tab's filters: node, level (at least / exactly), search, time range and jump
//! to time. Each writes its key of the page URL; the list reloads from there.

use api_types::logs::{LevelMode, LogLevel};
use leptos::prelude::*;

use super::filters::{input_value, parse_input, LogFilters, KEYS};
use crate::components::search_box::{write_search, SearchBox};
use crate::format::local_offset_min;
use crate::hooks::QueryState;

/// Clears every filter and the jump-to time.
pub fn clear_filters(qs: QueryState) {
    qs.update(|q| {
        for k in KEYS {
            q.set(k, None);
        }
    });
}

/// A `datetime-local` input bound to a URL key holding ms.
#[component]
fn TimeInput(
    /// URL state.
    qs: QueryState,
    /// The URL key.
    key: &'static str,
    /// Label.
    label: &'static str,
    /// The value (ms).
    #[prop(into)]
    value: Signal<Option<i64>>,
) -> impl IntoView {
    let shown = move || {
        value
            .get()
            .map(|ms| input_value(ms, local_offset_min(ms)))
            .unwrap_or_default()
    };
    view! {
        <label class="control log-time-input">
            <span class="control-label">{label}</span>
            <input type="datetime-local" step="1" class="text-input" aria-label=label prop:value=shown
                on:change=move |ev| {
                    let ms = parse_input(&event_target_value(&ev), local_offset_min);
                    qs.set(key, ms.map(|m| m.to_string()));
                } />
        </label>
    }
}

/// The node and level selects.
#[component]
fn NodeAndLevel(
    /// URL state.
    qs: QueryState,
    /// The filters.
    #[prop(into)]
    filters: Signal<LogFilters>,
    /// The job run's nodes.
    #[prop(into)]
    nodes: Signal<Vec<String>>,
) -> impl IntoView {
    let node_options = move || {
        let current = filters.with(|f| f.node.clone()).unwrap_or_default();
        nodes
            .get()
            .into_iter()
            .map(|n| view! { <option value=n.clone() selected=n == current>{n.clone()}</option> })
            .collect_view()
    };
    let level_options = LogLevel::ALL
        .map(|l| view! { <option value=l.as_str() selected=move || filters.with(|f| f.level == Some(l))>{l.as_str()}</option> })
        .collect_view();
    let mode = move |m: LevelMode, label: &'static str, value: Option<&'static str>| {
        let on = move || filters.with(|f| f.level_mode == m);
        view! {
            <button class="seg" type="button" class:selected=on aria-pressed=move || on().to_string()
                disabled=move || filters.with(|f| f.level.is_none())
                on:click=move |_| qs.set("level_mode", value.map(str::to_owned))>{label}</button>
        }
    };
    view! {
        <label class="control">
            <span class="control-label">"Node"</span>
            <select class="select" aria-label="Node"
                on:change=move |ev| qs.set("node", Some(event_target_value(&ev)).filter(|v| !v.is_empty()))>
                <option value="" selected=move || filters.with(|f| f.node.is_none())>"All nodes"</option>
                {node_options}
            </select>
        </label>
        <label class="control">
            <span class="control-label">"Level"</span>
            <select class="select" aria-label="Level"
                on:change=move |ev| qs.set("level", Some(event_target_value(&ev)).filter(|v| !v.is_empty()))>
                <option value="" selected=move || filters.with(|f| f.level.is_none())>"Any level"</option>
                {level_options}
            </select>
        </label>
        <div class="segmented" role="group" aria-label="Level mode">
            {mode(LevelMode::AtLeast, "At least", None)}
            {mode(LevelMode::Exactly, "Exactly", Some("exactly"))}
        </div>
    }
}

/// The filter bar.
#[component]
pub fn FilterBar(
    /// URL state.
    qs: QueryState,
    /// The filters.
    #[prop(into)]
    filters: Signal<LogFilters>,
    /// The job run's nodes.
    #[prop(into)]
    nodes: Signal<Vec<String>>,
) -> impl IntoView {
    let q = Signal::derive(move || filters.with(|f| f.q.clone().unwrap_or_default()));
    let on_search = Callback::new(move |v: String| {
        let v = if v.trim().is_empty() {
            String::new()
        } else {
            v
        };
        write_search(qs, "q", v, |_| {})
    });
    let filtered = move || filters.with(|f| f.is_filtered() || f.at.is_some());
    view! {
        <div class="log-filters card">
            <SearchBox value=q on_change=on_search label="Search logs" placeholder="Search lines" />
            <NodeAndLevel qs=qs filters=filters nodes=nodes />
            <TimeInput qs=qs key="since" label="From" value=Signal::derive(move || filters.with(|f| f.since)) />
            <TimeInput qs=qs key="until" label="To" value=Signal::derive(move || filters.with(|f| f.until)) />
            <TimeInput qs=qs key="at" label="Jump to" value=Signal::derive(move || filters.with(|f| f.at)) />
            <Show when=filtered>
                <button class="button button-small" type="button" on:click=move |_| clear_filters(qs)>"Clear filters"</button>
            </Show>
        </div>
    }
}
