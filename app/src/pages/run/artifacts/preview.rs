//! The preview pane: the selected file's name, a download button, and its preview by kind
//! ([`preview_kind`]). Images (SVG too) load through an `<img>` pointing at the file
//! route, never as markup in the page; HTML is shown as its source text.

use leptos::prelude::*;

use super::json::JsonPreview;
use super::kind::{file_name, preview_kind, PreviewKind};
use super::mlmodel::MlModelPreview;
use super::table::TablePreview;
use super::text::TextPreview;
use crate::api::ArtifactOwner;
use crate::hooks::scroll_into_view;

/// An image file.
#[component]
fn ImagePreview(
    /// The file route.
    src: String,
    /// Its name, as the alt text.
    name: String,
) -> impl IntoView {
    let failed = RwSignal::new(false);
    view! {
        <Show when=move || !failed.get()
            fallback=|| view! { <p class="preview-note preview-error" role="alert">"The image could not be shown: download it to open it."</p> }>
            <div class="artifact-image-wrap">
                <img class="artifact-image" src=src.clone() alt=name.clone() data-testid="artifact-image"
                    on:error=move |_| failed.set(true) />
            </div>
        </Show>
    }
}

/// A file with no preview of its kind: a note, and a way to try it as text.
#[component]
fn NoPreview(
    /// Whose artifact.
    owner: ArtifactOwner,
    /// Its path.
    path: String,
) -> impl IntoView {
    let as_text = RwSignal::new(false);
    view! {
        <Show when=move || as_text.get() fallback=move || view! {
            <div class="preview-note">
                <p>"No preview for this file type."</p>
                <button class="button button-small" type="button" on:click=move |_| as_text.set(true)>"Show as text"</button>
            </div>
        }>
            <TextPreview owner=owner.clone() path=path.clone() />
        </Show>
    }
}

/// The body of the pane for the file at `path`.
fn body(owner: ArtifactOwner, path: String) -> AnyView {
    match preview_kind(&path) {
        PreviewKind::MlModel => view! { <MlModelPreview owner=owner path=path /> }.into_any(),
        PreviewKind::Json => view! { <JsonPreview owner=owner path=path /> }.into_any(),
        PreviewKind::Table(sep) => {
            view! { <TablePreview owner=owner path=path sep=sep /> }.into_any()
        }
        PreviewKind::Image => {
            let name = file_name(&path).to_owned();
            view! { <ImagePreview src=owner.file_url(&path) name=name /> }.into_any()
        }
        PreviewKind::Text => view! { <TextPreview owner=owner path=path /> }.into_any(),
        PreviewKind::Binary => view! { <NoPreview owner=owner path=path /> }.into_any(),
    }
}

/// The preview pane of one file.
#[component]
pub fn Preview(
    /// Whose artifact.
    owner: ArtifactOwner,
    /// The file's path.
    path: String,
    /// Closes the pane (back to the tree on a phone).
    on_close: Callback<()>,
) -> impl IntoView {
    let name = file_name(&path).to_owned();
    let download = owner.download_url(&path);
    let node = NodeRef::<leptos::html::Section>::new();
    // On a phone the pane sits below the tree: bring it into view.
    Effect::new(move |_| {
        let narrow = window()
            .inner_width()
            .ok()
            .and_then(|w| w.as_f64())
            .is_some_and(|w| w <= 900.0);
        if let (true, Some(el)) = (narrow, node.get()) {
            scroll_into_view(el.into(), web_sys::ScrollLogicalPosition::Start);
        }
    });
    view! {
        <section node_ref=node class="card artifact-preview" aria-label="Preview">
            <header class="preview-header">
                <div class="preview-title">
                    <h2 class="truncate" title=path.clone()>{name.clone()}</h2>
                    <span class="mono muted small truncate">{path.clone()}</span>
                </div>
                <a class="button button-small" href=download download=name aria-label=format!("Download {}", file_name(&path))>"Download"</a>
                <button class="icon-button preview-close" type="button" aria-label="Close preview"
                    on:click=move |_| on_close.run(())>"×"</button>
            </header>
            <div class="preview-body">{body(owner, path)}</div>
        </section>
    }
}
