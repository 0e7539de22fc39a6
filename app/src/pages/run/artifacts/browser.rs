//! The artifact browser of a run or a logged model: the tree beside the preview pane,
//! with the empty, loading, denied and failed states of the root listing.

use api_types::artifacts::ArtifactList;
use leptos::prelude::*;

use super::preview::Preview;
use super::tree::{Entries, TreeCtx};
use crate::api::{self, ArtifactOwner, ErrorCode};
use crate::components::states::{EmptyState, ErrorView, Loading};

/// The tree and the preview of a non-empty root.
#[component]
fn Browser(
    /// Shared by the rows.
    ctx: TreeCtx,
    /// The root's first page.
    list: ArtifactList,
) -> impl IntoView {
    let zip = ctx.owner.with_value(|o| o.zip_url(""));
    let root_uri = list.root_uri.clone();
    let preview = move || match ctx.selected.get() {
        Some(path) => {
            let close = Callback::new(move |_| ctx.on_select.run(None));
            view! { <Preview owner=ctx.owner.get_value() path=path on_close=close /> }.into_any()
        }
        None => view! {
            <section class="card artifact-preview artifact-preview-empty">
                <p class="muted">"Select a file to preview it."</p>
            </section>
        }
        .into_any(),
    };
    view! {
        <div class="artifacts" class:has-selection=move || ctx.selected.with(Option::is_some)>
            <section class="card artifact-tree-card">
                <header class="tree-header">
                    <span class="mono small muted truncate" title=root_uri.clone()>{root_uri.clone()}</span>
                    <a class="button button-small" href=zip download="artifacts.zip">"Download all (zip)"</a>
                </header>
                <nav class="artifact-tree" aria-label="Artifact files">
                    <Entries ctx=ctx list=list depth=0 />
                </nav>
            </section>
            {preview}
        </div>
    }
}

/// A run's or logged model's artifacts: tree, downloads and previews.
#[component]
pub fn ArtifactBrowser(
    /// Whose artifacts.
    owner: ArtifactOwner,
    /// The previewed file (its path), if any.
    #[prop(into)]
    selected: Signal<Option<String>>,
    /// Selects a file (`None`: closes the preview).
    on_select: Callback<Option<String>>,
    /// How to log files, for the empty state.
    #[prop(into)]
    empty_hint: String,
) -> impl IntoView {
    let ctx = TreeCtx {
        owner: StoredValue::new(owner),
        selected,
        on_select,
    };
    let root =
        LocalResource::new(move || api::list_artifacts(ctx.owner.get_value(), String::new(), None));
    let empty = move || {
        view! { <div class="card"><EmptyState title="No artifacts" hint=empty_hint.clone() /></div> }.into_any()
    };
    view! {
        <Transition fallback=move || view! { <Loading label="Loading artifacts…" /> }>
            {move || {
                let empty = empty.clone();
                Suspend::new(async move {
                    match root.await {
                        Ok(l) if l.entries.is_empty() => empty(),
                        Ok(l) => view! { <Browser ctx=ctx list=l /> }.into_any(),
                        // No folder yet: nothing was ever logged.
                        Err(e) if super::is_not_found(&e) => empty(),
                        Err(e) if e.code == ErrorCode::PermissionDenied => view! {
                            <div class="card state state-denied" role="alert">
                                <div class="state-title">"You don't have access to these artifacts"</div>
                                <div class="state-hint">{e.message}</div>
                            </div>
                        }.into_any(),
                        Err(e) => view! { <div class="card">
                            <ErrorView title="Could not load the artifacts" error=e retry=Callback::new(move |_| root.refetch()) />
                        </div> }.into_any(),
                    }
                })
            }}
        </Transition>
    }
}
