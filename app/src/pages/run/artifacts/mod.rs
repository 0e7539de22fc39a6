//! The run's Artifacts tab (`?tab=artifacts&file=<path>`): a lazy file tree with sizes,
//! downloads and zips of folders (`tree`), and a preview of the selected file
//! (`preview`): text paged, JSON coloured, CSV as a grid, images, the `MLmodel` summary.
//! [`ArtifactBrowser`] serves the logged model page too.

mod browser;
mod icons;
mod json;
mod kind;
mod mlmodel;
mod preview;
mod table;
mod text;
mod tree;

pub use browser::ArtifactBrowser;

use leptos::prelude::*;

use crate::api::{ApiError, ArtifactOwner, ErrorCode};
use crate::hooks::use_query_state;

/// How to log artifacts, for a run without any.
const RUN_HINT: &str = "Log files with mlflow.log_artifact(...) (or log_dict, log_text, \
log_figure, log_model) and they show here.";

/// Whether `e` says "no such file or folder" (the app's code or MLflow's).
pub fn is_not_found(e: &ApiError) -> bool {
    matches!(&e.code, ErrorCode::NotFound)
        || matches!(&e.code, ErrorCode::Other(c) if c == "RESOURCE_DOES_NOT_EXIST")
}

/// A failure in a part of the browser, in words a person can act on.
pub fn error_text(e: &ApiError) -> String {
    match &e.code {
        ErrorCode::PermissionDenied => {
            "You don't have access to this file: ask the experiment's owner to share it.".to_owned()
        }
        _ if is_not_found(e) => "Not found: it may have been deleted.".to_owned(),
        _ => e.message.clone(),
    }
}

/// The previewed file as `&file=` in the page URL, so a link opens the same preview.
pub fn use_selected_file() -> (Memo<Option<String>>, Callback<Option<String>>) {
    let qs = use_query_state();
    let selected = Memo::new(move |_| qs.get("file").filter(|f| !f.is_empty()));
    (selected, Callback::new(move |f| qs.set("file", f)))
}

/// The Artifacts tab.
#[component]
pub fn ArtifactsTab(
    /// The run.
    run_id: String,
) -> impl IntoView {
    let (selected, on_select) = use_selected_file();
    view! {
        <ArtifactBrowser owner=ArtifactOwner::Run(run_id) selected=selected on_select=on_select
            empty_hint=RUN_HINT />
    }
}
