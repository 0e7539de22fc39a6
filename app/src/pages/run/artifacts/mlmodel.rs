//! The `MLmodel` file as a summary card: flavors, signature, requirements, and who wrote
//! it (from `/artifacts/mlmodel`); the file itself one click away.

use api_types::artifacts::MlModelSummary;
use leptos::prelude::*;

use super::text::TextPreview;
use crate::api::{self, ArtifactOwner};
use crate::components::states::Loading;
use crate::routes::AppRoute;

/// A `<ul>` of monospace lines, or a muted "none".
fn line_list(items: Vec<String>, none: &'static str) -> AnyView {
    if items.is_empty() {
        return view! { <span class="muted">{none}</span> }.into_any();
    }
    let items = items
        .into_iter()
        .map(|i| view! { <li class="mono">{i}</li> })
        .collect_view();
    view! { <ul class="mlmodel-list">{items}</ul> }.into_any()
}

/// A link, or a dash when there is nothing to link.
fn link_or_dash(target: Option<(String, String)>) -> AnyView {
    match target {
        Some((href, text)) => view! { <a class="mono" href=href>{text}</a> }.into_any(),
        None => view! { <span class="muted">"—"</span> }.into_any(),
    }
}

/// `utc_time_created` without its microseconds: `2026-11-30 10:00:00 UTC`.
fn created(t: &str) -> String {
    let t = t.split('.').next().unwrap_or(t);
    format!("{t} UTC")
}

/// The facts of the card.
#[component]
fn Summary(
    /// What the file says.
    s: MlModelSummary,
) -> impl IntoView {
    let flavors = s
        .flavors
        .iter()
        .map(|f| view! { <span class="chip">{f.clone()}</span> })
        .collect_view();
    let dash = || "—".to_owned();
    let run = s.run_id.clone().map(|id| (AppRoute::run(id.clone()), id));
    let model = s
        .model_id
        .clone()
        .map(|id| (AppRoute::logged_model(id.clone()), id));
    view! {
        <div class="mlmodel-card" data-testid="mlmodel-card">
            <div class="mlmodel-flavors" aria-label="Flavors">{flavors}</div>
            <dl class="mlmodel-facts">
                <div><dt>"MLflow version"</dt><dd>{s.mlflow_version.clone().unwrap_or_else(dash)}</dd></div>
                <div><dt>"Created"</dt><dd>{s.created.as_deref().map(created).unwrap_or_else(dash)}</dd></div>
                <div><dt>"Run"</dt><dd>{link_or_dash(run)}</dd></div>
                <div><dt>"Logged model"</dt><dd>{link_or_dash(model)}</dd></div>
            </dl>
            <div class="mlmodel-sections">
                <section><h3>"Signature inputs"</h3>{line_list(s.signature_inputs, "No signature")}</section>
                <section><h3>"Signature outputs"</h3>{line_list(s.signature_outputs, "No signature")}</section>
                <section><h3>"Requirements"</h3>{line_list(s.requirements, "No requirements.txt")}</section>
            </div>
        </div>
    }
}

/// An `MLmodel` file: its summary, and a button showing the file as text.
#[component]
pub fn MlModelPreview(
    /// Whose artifact.
    owner: ArtifactOwner,
    /// The `MLmodel` file's path.
    path: String,
) -> impl IntoView {
    let raw = RwSignal::new(false);
    let summary = {
        let (owner, path) = (owner.clone(), path.clone());
        LocalResource::new(move || api::get_mlmodel(owner.clone(), path.clone()))
    };
    let card = move || {
        Suspend::new(async move {
            match summary.await {
                Ok(s) => view! { <Summary s=s /> }.into_any(),
                Err(e) => view! { <p class="preview-note preview-error" role="alert">{super::error_text(&e)}</p> }.into_any(),
            }
        })
    };
    view! {
        <Suspense fallback=|| view! { <Loading label="Reading MLmodel…" /> }>{card}</Suspense>
        <div class="preview-more">
            <button class="button button-small" type="button" aria-pressed=move || raw.get().to_string()
                on:click=move |_| raw.update(|r| *r = !*r)>
                {move || if raw.get() { "Hide the file" } else { "Show the file" }}
            </button>
        </div>
        <Show when=move || raw.get()>
            <TextPreview owner=owner.clone() path=path.clone() />
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::created;

    #[test]
    fn creation_time_drops_microseconds() {
        assert_eq!(
            created("2026-11-30 10:00:00.123456"),
            "2026-11-30 10:00:00 UTC"
        );
        assert_eq!(created("2026-11-30 10:00:00"), "2026-11-30 10:00:00 UTC");
    }
}
