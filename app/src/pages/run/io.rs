//! The run overview's "Models" (logged models it produced, with their registrations) and
//! "Datasets" (its `mlflow.log_input` datasets) sections, from `GET /runs/{id}/io`. Each is
//! hidden when empty, and both when the call fails (the rest of the overview stands).

use api_types::models::{DatasetInput, LoggedModelSummary, ModelVersionRef};
use leptos::prelude::*;

use crate::api;
use crate::format;
use crate::routes::AppRoute;

/// Chips linking each registered version (`name v1`) to its registered model.
pub fn registration_chips(regs: Vec<ModelVersionRef>) -> AnyView {
    if regs.is_empty() {
        return view! { <span class="muted">"—"</span> }.into_any();
    }
    regs.into_iter()
        .map(|r| {
            let label = format!("{} v{}", r.name, r.version);
            view! { <a class="chip chip-link" href=AppRoute::registered_model(r.name)>{label}</a> }
        })
        .collect_view()
        .into_any()
}

/// A logged model's status without its prefix: `READY`, `PENDING`, `UPLOAD_FAILED`.
pub fn model_status(status: &str) -> &str {
    status.strip_prefix("LOGGED_MODEL_").unwrap_or(status)
}

/// A logged model's (or model version's) status as a coloured badge.
pub fn model_status_badge(status: &str) -> impl IntoView {
    let short = model_status(status).to_owned();
    let class = match short.as_str() {
        "READY" => "badge badge-finished",
        "PENDING" | "PENDING_REGISTRATION" => "badge badge-running",
        s if s.contains("FAILED") => "badge badge-failed",
        _ => "badge badge-scheduled",
    };
    view! { <span class=class>{short}</span> }
}

fn model_row(m: LoggedModelSummary) -> impl IntoView {
    view! {
        <tr>
            <td><a href=AppRoute::logged_model(m.model_id.clone())>{m.name.clone()}</a>
                <div class="mono muted small">{m.model_id.clone()}</div></td>
            <td>{model_status_badge(&m.status)}</td>
            <td class="muted">{m.model_type.clone().unwrap_or_default()}</td>
            <td class="muted">{format::datetime(m.creation_time)}</td>
            <td>{registration_chips(m.registrations)}</td>
        </tr>
    }
}

/// The value of an input tag, e.g. `mlflow.data.context`.
fn tag<'a>(d: &'a DatasetInput, key: &str) -> Option<&'a str> {
    d.tags
        .iter()
        .find(|t| t.key == key)
        .map(|t| t.value.as_str())
}

/// What to show of a dataset's source: its `uri`/`url`/`path` field when the logged
/// JSON has one, else the JSON text.
pub fn source_text(source: &str) -> String {
    serde_json::from_str::<serde_json::Value>(source)
        .ok()
        .and_then(|v| {
            ["uri", "url", "path", "source"]
                .into_iter()
                .find_map(|k| v.get(k).and_then(|s| s.as_str()).map(str::to_owned))
        })
        .unwrap_or_else(|| source.to_owned())
}

fn dataset_row(d: DatasetInput) -> impl IntoView {
    let context = tag(&d, "mlflow.data.context").unwrap_or("—").to_owned();
    let source = source_text(&d.source);
    view! {
        <tr>
            <td>{d.name.clone()}</td>
            <td class="mono small">{d.digest.clone()}</td>
            <td>{context}</td>
            <td class="mono small wrap" title=d.source.clone()><span class="muted">{d.source_type.clone()}": "</span>{source}</td>
        </tr>
    }
}

/// The "Models" and "Datasets" cards of a run.
#[component]
pub fn RunIoSections(
    /// The run.
    run_id: String,
) -> impl IntoView {
    let io = LocalResource::new(move || api::get_run_io(run_id.clone()));
    let cards = move || {
        Suspend::new(async move {
            let Ok(io) = io.await else {
                return ().into_any();
            };
            let models = (!io.models.is_empty()).then(|| {
                let n = io.models.len();
                let rows = io.models.into_iter().map(model_row).collect_view();
                view! {
                    <section class="card" aria-label="Models">
                        <h2 class="card-title">{format!("Models ({n})")}</h2>
                        <div class="table-scroll"><table class="table">
                            <thead><tr><th>"Name"</th><th>"Status"</th><th>"Type"</th><th>"Created"</th><th>"Registered as"</th></tr></thead>
                            <tbody>{rows}</tbody>
                        </table></div>
                    </section>
                }
            });
            let datasets = (!io.datasets.is_empty()).then(|| {
                let n = io.datasets.len();
                let rows = io.datasets.into_iter().map(dataset_row).collect_view();
                view! {
                    <section class="card" aria-label="Datasets">
                        <h2 class="card-title">{format!("Datasets ({n})")}</h2>
                        <div class="table-scroll"><table class="table">
                            <thead><tr><th>"Name"</th><th>"Digest"</th><th>"Context"</th><th>"Source"</th></tr></thead>
                            <tbody>{rows}</tbody>
                        </table></div>
                    </section>
                }
            });
            view! { {models} {datasets} }.into_any()
        })
    };
    view! { <Suspense fallback=|| ()>{cards}</Suspense> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_show_their_location() {
        assert_eq!(
            source_text(r#"{"uri": "s3://b/train.csv"}"#),
            "s3://b/train.csv"
        );
        assert_eq!(source_text(r#"{"url": "https://x/y"}"#), "https://x/y");
        assert_eq!(source_text(r#"{"tags": {}}"#), r#"{"tags": {}}"#);
        assert_eq!(source_text("not json"), "not json");
    }

    #[test]
    fn statuses_lose_their_prefix() {
        assert_eq!(model_status("LOGGED_MODEL_READY"), "READY");
        assert_eq!(model_status("OTHER"), "OTHER");
    }
}
