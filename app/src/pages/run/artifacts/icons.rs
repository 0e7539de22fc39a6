//! The tree's small icons (inline SVG of our own, drawn in the text colour).

use leptos::prelude::*;

/// A folder.
#[component]
pub fn FolderIcon() -> impl IntoView {
    view! {
        <svg class="tree-icon icon-folder" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
            <path d="M3 6.5A1.5 1.5 0 0 1 4.5 5h4.6l2 2.2h8.4A1.5 1.5 0 0 1 21 8.7v9.8a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 18.5z"
                fill="currentColor" opacity="0.85" />
        </svg>
    }
}

/// A file.
#[component]
pub fn FileIcon() -> impl IntoView {
    view! {
        <svg class="tree-icon icon-file" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
            <path d="M6 3h8l4 4v14H6z M14 3v4h4" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linejoin="round" />
        </svg>
    }
}

/// A download arrow.
#[component]
pub fn DownloadIcon() -> impl IntoView {
    view! {
        <svg viewBox="0 0 24 24" width="15" height="15" aria-hidden="true">
            <path d="M12 4v11m-5-5 5 5 5-5M5 20h14" fill="none" stroke="currentColor" stroke-width="1.9"
                stroke-linecap="round" stroke-linejoin="round" />
        </svg>
    }
}
