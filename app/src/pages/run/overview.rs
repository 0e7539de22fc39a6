//! The run's Overview tab: the description (Markdown, editable), times, user, parent and
//! children, the logged models and datasets ([`super::io`]), params, latest metrics, user
//! tags (editable) and system tags ([`super::manage`]).

use api_types as json;
use leptos::prelude::*;

use crate::components::states::EmptyState;
use crate::components::status_badge::StatusBadge;
use crate::format;
use crate::routes::AppRoute;

use super::io::RunIoSections;
use super::manage::description::Description;
use super::manage::tags::RunTags;
use super::manage::RunEdit;

fn run_link(r: json::RunRef) -> impl IntoView {
    view! {
        <li class="run-ref">
            <a href=AppRoute::run(r.run_id.clone())>{r.run_name}</a>
            <StatusBadge status=r.status />
        </li>
    }
}

/// A card of key/value rows (params, tags), or an empty state.
pub fn kv_table(
    title: &'static str,
    rows: Vec<json::KeyValue>,
    empty: &'static str,
) -> impl IntoView {
    let body = if rows.is_empty() {
        view! { <EmptyState title=empty hint="" /> }.into_any()
    } else {
        let rows = rows.into_iter().map(|kv| {
            let title = kv.key.clone();
            view! { <tr><td class="key truncate" title=title>{kv.key}</td><td class="value mono wrap">{kv.value}</td></tr> }
        }).collect_view();
        view! { <table class="table kv-table"><tbody>{rows}</tbody></table> }.into_any()
    };
    view! { <section class="card"><h2 class="card-title">{title}</h2>{body}</section> }
}

/// Latest metric values as a table, or an empty state.
pub fn metrics_table(metrics: Vec<json::LatestMetric>) -> impl IntoView {
    if metrics.is_empty() {
        return view! { <EmptyState title="No metrics logged" hint="" /> }.into_any();
    }
    let rows = metrics
        .into_iter()
        .map(|m| {
            let title = m.key.clone();
            view! {
                <tr>
                    <td class="key truncate" title=title>{m.key}</td>
                    <td class="num mono" title=m.value.0.to_string()>{format::value(m.value.0)}</td>
                    <td class="num muted">{m.step}</td>
                    <td class="muted">{format::datetime(m.timestamp)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="table kv-table">
            <thead><tr><th>"Key"</th><th class="num">"Latest"</th><th class="num">"Step"</th><th>"Logged"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}

/// The Overview tab.
#[component]
pub fn Overview(
    /// The run.
    run: json::RunDetail,
    /// Its editable state (name, tags, deleted), shared with the header.
    edit: RunEdit,
) -> impl IntoView {
    let now = format::now_ms();
    let duration = format::duration(run.end_time.unwrap_or(now) - run.start_time);
    let end = run
        .end_time
        .map(format::datetime)
        .unwrap_or_else(|| "—".into());
    let children = run.children.clone();
    let has_children = !children.is_empty();
    view! {
        <div class="overview">
            <Description text=edit.description() can_edit=edit.can_edit save=edit.describe_action() card=true />
            <section class="card facts">
                <dl>
                    <div><dt>"Status"</dt><dd><StatusBadge status=run.status.clone() /></dd></div>
                    <div><dt>"Started"</dt><dd>{format::datetime(run.start_time)}</dd></div>
                    <div><dt>"Ended"</dt><dd>{end}</dd></div>
                    <div><dt>"Duration"</dt><dd>{duration}{run.end_time.is_none().then_some(" (running)")}</dd></div>
                    <div><dt>"User"</dt><dd>{run.user_id.clone()}</dd></div>
                    <div><dt>"Experiment"</dt><dd><a href=AppRoute::experiment(run.experiment_id.clone())>{run.experiment_name.clone()}</a></dd></div>
                    <div><dt>"Parent run"</dt><dd>{match run.parent.clone() {
                        Some(p) => view! { <a href=AppRoute::run(p.run_id.clone())>{p.run_name}</a> }.into_any(),
                        None => view! { <span class="muted">"—"</span> }.into_any(),
                    }}</dd></div>
                    <div><dt>"Artifacts"</dt><dd class="mono truncate" title=run.artifact_uri.clone()>
                        <a href=format!("{}?tab=artifacts", AppRoute::run(run.run_id.clone()))>{run.artifact_uri.clone()}</a>
                    </dd></div>
                </dl>
            </section>
            <Show when=move || has_children>
                <section class="card">
                    <h2 class="card-title">{format!("Child runs ({})", children.len())}</h2>
                    <ul class="run-refs">{children.clone().into_iter().map(run_link).collect_view()}</ul>
                </section>
            </Show>
            <RunIoSections run_id=run.run_id.clone() />
            <div class="overview-grid">
                {kv_table("Parameters", run.params.clone(), "No parameters logged")}
                <section class="card"><h2 class="card-title">"Metrics"</h2>{metrics_table(run.metrics.clone())}</section>
            </div>
            <RunTags edit=edit />
        </div>
    }
}
