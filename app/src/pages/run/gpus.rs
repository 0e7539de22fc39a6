//! The run page's GPU side panel: the GPU panel of the nodes named in the run's
//! `runlens.nodes` tag.

use api_types as json;
use leptos::prelude::*;

use crate::components::gpu_panel::params::parse_nodes;
use crate::components::gpu_panel::{GpuPanel, GpuSource, Intervals};
use crate::hooks::use_query_state;
use crate::query::Query;
use crate::routes::AppRoute;

/// The nodes of the run's `runlens.nodes` tag (none without it).
pub fn run_nodes(tags: &[json::KeyValue]) -> Vec<String> {
    tags.iter()
        .find(|t| t.key == json::nodes::RUN_NODES_TAG)
        .map(|t| parse_nodes(&t.value))
        .unwrap_or_default()
}

/// The side panel.
#[component]
pub fn GpuSidePanel(
    /// The run's nodes.
    nodes: Vec<String>,
    /// Called by the close button.
    on_close: Callback<()>,
) -> impl IntoView {
    let qs = use_query_state();
    // Read once: the panel restarts only when reopened.
    let q = untrack(|| {
        Query::new()
            .with_opt("poll", qs.get("poll"))
            .with_opt("idle", qs.get("idle"))
    });
    let intervals = Intervals::from_query(&q);
    let page = AppRoute::Gpus {
        nodes: nodes.clone(),
    }
    .href();
    view! {
        <aside class="side-panel card" aria-label="GPUs">
            <header class="side-panel-head">
                <h2 class="card-title">"GPUs"</h2>
                <a class="small" href=page>"Open as a page"</a>
                <button class="button button-small" type="button" aria-label="Close the GPU panel"
                    on:click=move |_| on_close.run(())>"Close"</button>
            </header>
            <GpuPanel source=GpuSource::Session { nodes } intervals=intervals embed_link=true />
        </aside>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_come_from_the_tag() {
        let tag = |k: &str, v: &str| json::KeyValue {
            key: k.into(),
            value: v.into(),
        };
        assert_eq!(
            run_nodes(&[tag("a", "b"), tag("runlens.nodes", "n1, n2")]),
            vec!["n1", "n2"]
        );
        assert!(run_nodes(&[tag("mlflow.user", "x")]).is_empty());
    }
}
