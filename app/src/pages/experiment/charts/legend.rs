//! The chart view's legend: every selected run with its colour and name (a click hides or
//! shows it in every panel) and, when grouped, each group's value and run count.

use leptos::prelude::*;

use super::super::workspace::Workspace;
use super::runs::short_id;
use super::ViewCtx;

/// Legend of the whole view.
#[component]
pub fn Legend(
    /// The URL's workspace state.
    ws: Workspace,
    /// The view's shared state.
    ctx: ViewCtx,
) -> impl IntoView {
    let groups = move || {
        let specs = ctx.specs.get();
        let grouped: Vec<_> = specs.into_iter().filter(|s| s.group).collect();
        (!grouped.is_empty()).then(|| {
            let items = grouped
                .into_iter()
                .map(|g| {
                    let n = g.runs.len();
                    let count = format!("{n} run{}", if n == 1 { "" } else { "s" });
                    view! {
                        <li class="wlegend-group">
                            <span class="swatch swatch-band" style=format!("background:{}", g.color)></span>
                            <span class="wlegend-name truncate" title=g.label.clone()>{g.label.clone()}</span>
                            <span class="muted small">{count}</span>
                        </li>
                    }
                })
                .collect_view();
            view! { <ul class="wlegend wlegend-groups" aria-label="Groups">{items}</ul> }
        })
    };
    let runs = move || {
        ws.selected()
            .into_iter()
            .map(|id| {
                let hidden = ws.is_hidden(&id);
                let color = ws.color(&id);
                let name = ctx.name_or(&id, short_id(&id));
                let title = format!(
                    "{name} ({id}): click to {}",
                    if hidden { "show" } else { "hide" }
                );
                let toggle = id.clone();
                view! {
                    <li>
                        <button type="button" class="wlegend-run" class:off=hidden
                            aria-pressed=(!hidden).to_string() title=title data-run=id.clone()
                            on:click=move |_| ws.toggle_hidden(&toggle)>
                            <span class="swatch" style=format!("background:{color}")></span>
                            <span class="wlegend-name truncate">{name}</span>
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <div class="wlegend-wrap">
            {groups}
            <ul class="wlegend" aria-label="Runs">{runs}</ul>
        </div>
    }
}
