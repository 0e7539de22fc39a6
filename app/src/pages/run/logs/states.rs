//! What the Logs tab shows instead of lines: a run no job produced, the access panel (no
//! CAN_VIEW on the job), no output yet, filters matching nothing; and the notes above the
//! lines (retention, missing lines).

use api_types as json;
use json::logs::{access_denied_message, NodeGaps};
use leptos::prelude::*;

use crate::components::states::EmptyState;
use crate::format;

/// How to get logs, for a run no job produced.
const HOW_TO: &str = "Logs are captured for runs started as a job: launch your script with \
`runlens-agent run --experiment NAME -- python train.py` and the output of every node shows \
here, live.";

/// The run was not produced by a job.
#[component]
pub fn NotJobBacked() -> impl IntoView {
    view! { <EmptyState title="This run has no logs" hint=HOW_TO /> }
}

/// The caller may read the experiment but not the job: whom to ask, and no line.
#[component]
pub fn AccessPanel(
    /// The job run behind the run.
    info: json::jobs::RunJobInfo,
) -> impl IntoView {
    let message = access_denied_message(&info.job.name, &info.managers);
    let managers = info
        .managers
        .iter()
        .map(|p| {
            let name = match p.kind {
                json::PrincipalKind::User => p.name.clone(),
                json::PrincipalKind::Group => format!("group {}", p.name),
            };
            view! { <li class="grantor">{name}</li> }
        })
        .collect_view();
    view! {
        <div class="state state-denied logs-denied" role="alert">
            <div class="state-icon" aria-hidden="true">
                <svg viewBox="0 0 24 24" width="40" height="40">
                    <rect x="5" y="10.5" width="14" height="10" rx="2" fill="none" stroke="currentColor" stroke-width="1.8" />
                    <path d="M8 10.5V8a4 4 0 0 1 8 0v2.5" fill="none" stroke="currentColor" stroke-width="1.8" />
                </svg>
            </div>
            <h2 class="state-title">"Logs are restricted"</h2>
            <p class="state-hint access-message">{message}</p>
            <ul class="grantors" aria-label="Managers of the job">{managers}</ul>
        </div>
    }
}

/// No line to show: none printed yet, or none matching the filters.
#[component]
pub fn NoLines(
    /// The job run.
    job_run_id: i64,
    /// Whether filters are set.
    filtered: bool,
    /// Clears the filters.
    on_clear: Callback<()>,
) -> impl IntoView {
    if filtered {
        view! {
            <div class="state state-empty">
                <div class="state-title">"No lines match these filters"</div>
                <div class="state-hint">"Try another search, node, level or time range."</div>
                <button class="button" type="button" on:click=move |_| on_clear.run(())>"Clear filters"</button>
            </div>
        }
        .into_any()
    } else {
        let title = format!("No output yet: job run #{job_run_id} has not printed anything");
        view! { <EmptyState title=title hint="Lines appear here as soon as the job prints them." /> }
            .into_any()
    }
}

/// "N lines from node X have not arrived (yet)" for each node with missing lines.
pub fn gap_notes(gaps: &[NodeGaps]) -> Vec<String> {
    gaps.iter()
        .filter_map(|g| {
            let n: u64 = g
                .gaps
                .iter()
                .map(|r| r.last_missing.saturating_sub(r.first_missing) + 1)
                .sum();
            let (s, have) = if n == 1 {
                ("line", "has")
            } else {
                ("lines", "have")
            };
            (n > 0).then(|| format!("{n} {s} from node {} {have} not arrived (yet)", g.node))
        })
        .collect()
}

/// Retention and missing-lines notes.
#[component]
pub fn Notes(
    /// Lines before this time were purged.
    #[prop(into)]
    expired: Signal<Option<i64>>,
    /// Missing lines per node.
    #[prop(into)]
    gaps: Signal<Vec<NodeGaps>>,
) -> impl IntoView {
    let retention = move || {
        expired.get().map(|ms| {
            let text = format!(
                "Lines before {} were removed by the retention policy",
                format::datetime(ms)
            );
            view! { <p class="log-note">{text}</p> }
        })
    };
    let gaps = move || {
        gap_notes(&gaps.get())
            .into_iter()
            .map(|t| view! { <p class="log-note log-note-gap">{t}</p> })
            .collect_view()
    };
    view! { {retention} {gaps} }
}

#[cfg(test)]
mod tests {
    use super::*;
    use json::logs::LogGap;

    #[test]
    fn gaps_are_counted_per_node() {
        let g = |node: &str, r: &[(u64, u64)]| NodeGaps {
            node: node.into(),
            gaps: r
                .iter()
                .map(|&(a, b)| LogGap {
                    first_missing: a,
                    last_missing: b,
                })
                .collect(),
        };
        assert_eq!(
            gap_notes(&[
                g("n-0", &[(3, 5), (9, 9)]),
                g("n-1", &[]),
                g("n-2", &[(0, 0)])
            ]),
            vec![
                "4 lines from node n-0 have not arrived (yet)",
                "1 line from node n-2 has not arrived (yet)",
            ]
        );
    }
}
