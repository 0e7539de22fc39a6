//! `/gpus?nodes=a,b[&poll=10][&idle=300]`: the GPU resources panel of some nodes; without
//! `nodes`, of every node the user may watch (admins: all; others: the nodes of runs they
//! may read).

use leptos::prelude::*;

use crate::api;
use crate::components::gpu_panel::params::parse_nodes;
use crate::components::gpu_panel::{GpuPanel, GpuSource, Intervals};
use crate::components::states::{EmptyState, ResourceTexts, ResourceView};
use crate::hooks::use_query_state;
use crate::query::Query;

/// The words of the node list.
const NODES: ResourceTexts = ResourceTexts {
    loading: "Loading nodes…",
    not_found: "No nodes",
    not_found_hint: "",
    denied: "You may not list the nodes",
    failed: "Could not list the nodes",
};

/// The panel of `nodes`, or why there is none.
fn panel(nodes: Vec<String>, intervals: Intervals) -> AnyView {
    if nodes.is_empty() {
        return view! { <EmptyState title="No GPU nodes to show"
            hint="Nodes appear here once an agent (runlens-agent serve --server ...) has registered and a run you can read names it in its runlens.nodes tag (runlens-agent run does this)." /> }.into_any();
    }
    view! { <GpuPanel source=GpuSource::Session { nodes } intervals=intervals embed_link=true /> }
        .into_any()
}

/// Every node the user may watch.
#[component]
fn AllNodes(
    /// Polling intervals.
    intervals: Intervals,
) -> impl IntoView {
    let list = LocalResource::new(api::list_nodes);
    view! {
        <ResourceView resource=list texts=NODES
            ready=move |l| panel(l.nodes.into_iter().map(|n| n.name).collect(), intervals) />
    }
}

/// The GPUs page.
#[component]
pub fn Gpus() -> impl IntoView {
    let qs = use_query_state();
    // The panel is rebuilt only when the nodes or intervals change, not on other URL edits.
    let params = Memo::new(move |_| {
        let q = Query::new()
            .with_opt("poll", qs.get("poll"))
            .with_opt("idle", qs.get("idle"));
        (
            parse_nodes(&qs.get("nodes").unwrap_or_default()),
            Intervals::from_query(&q),
        )
    });
    let subtitle = move || {
        params.with(|(n, _)| match n.is_empty() {
            true => "Every node you can watch".to_owned(),
            false => n.join(", "),
        })
    };
    view! {
        <div class="page-header">
            <div class="title-block">
                <h1>"GPUs"</h1>
                <p class="subtitle">{subtitle}</p>
            </div>
        </div>
        {move || {
            let (nodes, intervals) = params.get();
            if nodes.is_empty() {
                view! { <AllNodes intervals=intervals /> }.into_any()
            } else {
                panel(nodes, intervals)
            }
        }}
    }
}
