//! The lazy file tree: a folder lists its level only when opened, [`ARTIFACT_PAGE`]
//! entries at a time with "Load more". Each file shows its size and a download link, each
//! folder a zip link; folders on the way to the selected file start open.

use api_types::artifacts::{ArtifactEntry, ArtifactList, ARTIFACT_PAGE};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::icons::{DownloadIcon, FileIcon, FolderIcon};
use super::kind::file_name;
use crate::api::{self, ArtifactOwner};
use crate::format;

/// What every row of one tree shares; `Copy`.
#[derive(Clone, Copy)]
pub struct TreeCtx {
    /// Whose artifacts.
    pub owner: StoredValue<ArtifactOwner>,
    /// The previewed file.
    pub selected: Signal<Option<String>>,
    /// Selects a file for preview.
    pub on_select: Callback<Option<String>>,
}

/// Left padding of a row at `depth`, in px.
fn indent(depth: usize) -> String {
    format!("padding-left: {}px", 8 + depth * 16)
}

/// A file row: name (selects it), size, download.
#[component]
fn FileRow(ctx: TreeCtx, entry: ArtifactEntry, depth: usize) -> impl IntoView {
    let name = file_name(&entry.path).to_owned();
    let path = entry.path.clone();
    let selected = {
        let path = path.clone();
        Memo::new(move |_| ctx.selected.with(|s| s.as_deref() == Some(path.as_str())))
    };
    let download = ctx.owner.with_value(|o| o.download_url(&entry.path));
    let size = entry.size.map(format::bytes).unwrap_or_default();
    view! {
        <li class="tree-item">
            <div class="tree-row" class:selected=selected style=indent(depth)>
                <button class="tree-name" type="button" aria-current=move || selected.get().then_some("true")
                    on:click=move |_| ctx.on_select.run(Some(path.clone()))>
                    <FileIcon /><span class="truncate">{name.clone()}</span>
                </button>
                <span class="tree-size muted">{size}</span>
                <a class="tree-action" href=download download=name.clone() aria-label=format!("Download {name}") title="Download">
                    <DownloadIcon />
                </a>
            </div>
        </li>
    }
}

/// A folder row: toggles its listing; a zip link.
#[component]
fn FolderRow(ctx: TreeCtx, entry: ArtifactEntry, depth: usize) -> impl IntoView {
    let name = file_name(&entry.path).to_owned();
    let prefix = format!("{}/", entry.path);
    let open = RwSignal::new(
        ctx.selected
            .with_untracked(|s| s.as_deref().is_some_and(|s| s.starts_with(&prefix))),
    );
    let zip = ctx.owner.with_value(|o| o.zip_url(&entry.path));
    let path = entry.path.clone();
    view! {
        <li class="tree-item">
            <div class="tree-row" style=indent(depth)>
                <button class="tree-name" type="button" aria-expanded=move || open.get().to_string()
                    on:click=move |_| open.update(|o| *o = !*o)>
                    <span class="tree-caret" class:open=move || open.get() aria-hidden="true">"▸"</span>
                    <FolderIcon /><span class="truncate">{name.clone()}</span>
                </button>
                <a class="tree-action tree-zip" href=zip download=format!("{name}.zip")
                    aria-label=format!("Download folder {name} (zip)") title="Download folder (zip)">"zip"</a>
            </div>
            <Show when=move || open.get()>
                <FolderListing ctx=ctx path=path.clone() depth=depth + 1 />
            </Show>
        </li>
    }
}

/// Entries of one folder level, starting with a loaded first page; "Load more" fetches
/// the next [`ARTIFACT_PAGE`].
#[component]
pub fn Entries(ctx: TreeCtx, list: ArtifactList, depth: usize) -> impl IntoView {
    let folder = StoredValue::new(list.path);
    let entries = RwSignal::new(list.entries);
    let token = RwSignal::new(list.next_page_token);
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let load_more = move |_| {
        let Some(t) = token.get_untracked() else {
            return;
        };
        busy.set(true);
        let (owner, path) = (ctx.owner.get_value(), folder.get_value());
        spawn_local(async move {
            let r = api::list_artifacts(owner, path, Some(t)).await;
            if busy.try_set(false).is_none() {
                match r {
                    Ok(page) => {
                        entries.update(|e| e.extend(page.entries));
                        token.set(page.next_page_token);
                        error.set(None);
                    }
                    Err(e) => error.set(Some(super::error_text(&e))),
                }
            }
        });
    };
    view! {
        <ul class="tree-level">
            <For each=move || entries.get() key=|e| e.path.clone() let:entry>
                {if entry.is_dir {
                    view! { <FolderRow ctx=ctx entry=entry depth=depth /> }.into_any()
                } else {
                    view! { <FileRow ctx=ctx entry=entry depth=depth /> }.into_any()
                }}
            </For>
            <Show when=move || token.with(Option::is_some)>
                <li class="tree-more" style=indent(depth)>
                    <button class="button button-small" type="button" disabled=move || busy.get() on:click=load_more>
                        {move || format!("Load more ({} shown, {ARTIFACT_PAGE} per page)", format::count(entries.with(Vec::len) as u64))}
                    </button>
                    {move || error.get().map(|e| view! { <span class="preview-error small" role="alert">{e}</span> })}
                </li>
            </Show>
        </ul>
    }
}

/// A folder's listing, loaded when it is opened.
#[component]
fn FolderListing(ctx: TreeCtx, path: String, depth: usize) -> AnyView {
    let list = {
        let path = path.clone();
        LocalResource::new(move || api::list_artifacts(ctx.owner.get_value(), path.clone(), None))
    };
    let pad = indent(depth);
    view! {
        <Suspense fallback=move || view! { <div class="tree-note muted small" style=indent(depth)>"Loading…"</div> }>
            {move || {
                let pad = pad.clone();
                Suspend::new(async move {
                    match list.await {
                        Ok(l) if l.entries.is_empty() => view! { <div class="tree-note muted small" style=pad>"Empty folder"</div> }.into_any(),
                        Ok(l) => view! { <Entries ctx=ctx list=l depth=depth /> }.into_any(),
                        Err(e) => view! { <div class="tree-note preview-error small" role="alert" style=pad>{super::error_text(&e)}</div> }.into_any(),
                    }
                })
            }}
        </Suspense>
    }
    .into_any()
}
