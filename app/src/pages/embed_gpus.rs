//! `/embed/gpus?nodes=..&exp=..&sig=..[&poll=][&idle=]`: the chrome-less GPU panel for a
//! notebook's iframe, read through the signed link (`/api/v1/embed/gpus`, no session).

use api_types as json;
use leptos::prelude::*;

use crate::components::gpu_panel::{GpuPanel, GpuSource, Intervals};
use crate::components::states::EmptyState;
use crate::query::Query;

/// The signed part of an embed URL's query, if complete.
pub fn embed_query(q: &Query) -> Option<json::nodes::EmbedGpusQuery> {
    Some(json::nodes::EmbedGpusQuery {
        nodes: q.get("nodes").filter(|n| !n.is_empty())?.to_owned(),
        exp: q.get("exp")?.parse().ok()?,
        sig: q.get("sig").filter(|s| !s.is_empty())?.to_owned(),
        since: None,
    })
}

/// The embed page (read once: an embed does not navigate).
#[component]
pub fn EmbedGpus() -> impl IntoView {
    let search = window().location().search().unwrap_or_default();
    let q = Query::parse(&search);
    let intervals = Intervals::from_query(&q);
    let body = match embed_query(&q) {
        Some(link) => {
            view! { <GpuPanel source=GpuSource::Embed(link) intervals=intervals /> }.into_any()
        }
        None => view! { <EmptyState title="This embed link is incomplete"
        hint="Copy the link again with “Copy embed link” on the GPU panel." /> }
        .into_any(),
    };
    view! { <main class="embed">{body}</main> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embed_query_needs_nodes_exp_and_sig() {
        let q = embed_query(&Query::parse("nodes=a%2Cb&exp=1700000000&sig=ab12&poll=2")).unwrap();
        assert_eq!(
            (q.nodes.as_str(), q.exp, q.sig.as_str()),
            ("a,b", 1_700_000_000, "ab12")
        );
        for bad in [
            "nodes=a&exp=1",
            "nodes=&exp=1&sig=x",
            "nodes=a&exp=x&sig=y",
            "exp=1&sig=y",
        ] {
            assert_eq!(embed_query(&Query::parse(bad)), None, "{bad}");
        }
    }
}
