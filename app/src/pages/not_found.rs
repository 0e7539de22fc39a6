//! The page shown for unknown routes.

use leptos::prelude::*;

use crate::components::states::NotFoundView;

/// "Page not found" with a link home.
#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <NotFoundView
            title="Page not found"
            message="There is nothing at this address. It may have moved, or the link may be mistyped."
        />
    }
}
