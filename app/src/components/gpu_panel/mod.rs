//! The GPU resources panel: per node a card with each GPU's current values and 2 h of
//! history charts, polled every `poll` seconds (`polling`), paused after `idle` seconds
//! without input or while the tab is hidden, with Refresh, Resume (back-fills the pause)
//! and "Copy embed link". Used by `/gpus`, `/embed/gpus` and the run page's side panel.

mod embed_link;
mod gauges;
mod history;
mod metrics;
mod node_card;
pub mod params;
mod pause;
mod polling;
pub mod state;

use leptos::prelude::*;

use crate::api::ErrorCode;
use crate::format;
use embed_link::EmbedLinkButton;
use node_card::NodeCard;
pub use params::Intervals;
use pause::{pause_text, Activity};
pub use polling::GpuSource;
use polling::{use_gpu_polling, GpuPolling};

/// The error banner: an unknown node or an invalid link said plainly, else the message.
fn error_view(p: GpuPolling) -> impl IntoView {
    move || {
        p.error.get().map(|e| {
            let title = match e.code {
                ErrorCode::NotFound => "Unknown node",
                ErrorCode::PermissionDenied => "This panel cannot be shown",
                _ => "Could not update the GPU panel",
            };
            view! {
                <div class="gpu-error" role="alert" data-testid="gpu-error">
                    <strong>{title}</strong>" "<span>{e.message}</span>
                </div>
            }
        })
    }
}

/// The pause banner with its Resume button.
fn pause_view(p: GpuPolling, idle_secs: u64) -> impl IntoView {
    move || {
        pause_text(p.activity.get(), idle_secs).map(|text| {
            view! {
                <div class="gpu-paused" role="status">
                    <span>{text}" — "</span>
                    <button class="button button-small" type="button" on:click=move |_| p.resume.run(())>"Resume"</button>
                </div>
            }
        })
    }
}

/// The panel for the nodes of `source`.
#[component]
pub fn GpuPanel(
    /// Where to read the GPUs.
    source: GpuSource,
    /// Polling intervals.
    intervals: Intervals,
    /// Show "Copy embed link" (not inside an embed).
    #[prop(optional)]
    embed_link: bool,
) -> impl IntoView {
    let nodes = source.nodes();
    let p = use_gpu_polling(source, intervals.poll_secs, intervals.idle_secs);
    let updated = move || {
        p.data.with(|d| d.fetches > 0).then(|| {
            format!(
                "Updated {} · every {} s",
                format::time_of_day(format::now_ms()),
                intervals.poll_secs
            )
        })
    };
    // A link that is not valid (tampered, expired) shows its error alone: no toolbar, no
    // empty cards.
    let refused = Memo::new(move |_| {
        p.error.with(|e| {
            e.as_ref()
                .is_some_and(|e| e.code == ErrorCode::PermissionDenied)
        }) && p.data.with(|d| d.fetches == 0)
    });
    let cards = nodes
        .iter()
        .map(|n| view! { <NodeCard data=p.data node=n.clone() /> })
        .collect_view();
    view! {
        <div class="gpu-panel"
            data-testid="gpu-panel"
            data-activity=move || p.activity.get().as_str()
            data-fetches=move || p.data.with(|d| d.fetches).to_string()
            data-samples=move || p.data.with(|d| d.samples()).to_string()>
            <div class="gpu-toolbar" class:hidden=refused>
                <button class="button" type="button" disabled=move || p.in_flight.get()
                    on:click=move |_| p.refresh.run(())>"Refresh"</button>
                <span class="muted small">{updated}</span>
                {move || p.in_flight.get().then(|| view! { <span class="spinner" aria-hidden="true"></span> })}
                <span class="gpu-toolbar-spacer"></span>
                {embed_link.then(|| view! { <EmbedLinkButton nodes=nodes.clone() /> })}
            </div>
            {pause_view(p, intervals.idle_secs)}
            {error_view(p)}
            {move || (p.activity.get() == Activity::Live && p.data.with(|d| d.fetches == 0) && p.error.with(Option::is_none))
                .then(|| view! { <div class="state state-loading"><span class="spinner"></span>"Loading GPUs…"</div> })}
            <div class="node-cards" class:hidden=refused>{cards}</div>
        </div>
    }
}
