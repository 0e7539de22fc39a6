//! The experiment's compare view (`?view=compare`) of the shown runs (selected, not
//! hidden): a diff table of params, latest metrics and tags ([`diff`]), parallel
//! coordinates over chosen params and a metric, and a scatter of any two columns
//! ([`plots`]). One runs-table request fetches them (`attributes.run_id IN (...)`, every
//! param and metric key of the experiment up to a cap).
//!
//! URL keys (besides the workspace's): `diff=1` only differing rows; `pcp=<param>`
//! (repeatable) and `pcm=<metric>` the parallel-coordinates axes (default: the params that
//! differ and the first metric); `pcc=<column>` colours its lines by a column's value
//! (default: each run's colour); `brush=<column>:<lo>:<hi>` (repeatable) a value range
//! brushed on an axis ([`brush`]); `sx=`, `sy=` the scatter's columns (`params.<key>` or
//! `metrics.<key>`).

mod brush;
mod diff;
mod draw;
mod layout;
mod model;
mod plots;

use api_types as json;
use leptos::prelude::*;

use super::workspace::Workspace;
use crate::api;
use crate::components::states::{EmptyState, ErrorView, Loading};
use diff::DiffTable;
use model::Compared;
use plots::{ParallelPanel, ScatterPanel};

/// Most param columns fetched for the comparison.
const MAX_PARAMS: usize = 200;
/// Most metric columns fetched.
const MAX_METRICS: usize = 100;
/// Most tag columns fetched.
const MAX_TAGS: usize = 50;

/// The filter selecting `ids` (ids that are not plain run ids are left out: they could
/// not match, and must not break the filter's quoting).
pub fn ids_filter(ids: &[String]) -> String {
    let quoted: Vec<String> = ids
        .iter()
        .filter(|id| {
            !id.is_empty()
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        .map(|id| format!("'{id}'"))
        .collect();
    format!("attributes.run_id IN ({})", quoted.join(", "))
}

fn capped(keys: &[String], max: usize) -> Vec<String> {
    keys.iter().take(max).cloned().collect()
}

/// The compare view.
#[component]
pub fn CompareView(
    /// The experiment and its keys.
    detail: json::ExperimentDetail,
    /// The URL's workspace state.
    ws: Workspace,
) -> impl IntoView {
    let exp_id = detail.experiment.id.clone();
    let columns = json::RunTableColumns {
        params: capped(&detail.param_keys, MAX_PARAMS),
        metrics: capped(&detail.metric_keys, MAX_METRICS),
        tags: capped(&detail.tag_keys, MAX_TAGS),
    };
    let shown = Memo::new(move |_| ws.shown());
    let table = LocalResource::new(move || {
        let ids = shown.get();
        let q = json::RunTableQuery {
            filter: Some(ids_filter(&ids)),
            order_by: Vec::new(),
            view: json::RunView::All,
            columns: columns.clone(),
            ..Default::default()
        };
        let exp_id = exp_id.clone();
        async move {
            if ids.len() < 2 {
                return Ok(None);
            }
            api::list_all_runs(exp_id, q).await.map(Some)
        }
    });
    let compared = Memo::new(move |_| match table.get() {
        Some(Ok(Some(t))) => Some(Compared::from_table(&t, &shown.get(), |id| ws.color(id))),
        _ => None,
    });
    let data = Signal::derive(move || compared.get().unwrap_or_default());
    let qs = ws.qs;
    view! {
        <div class="compare">
            {move || {
                if shown.with(|s| s.len() < 2) {
                    return view! {
                        <EmptyState title="Select at least two runs to compare"
                            hint="Tick runs in the Runs tab (and leave them shown): the compare view diffs their params, metrics and tags side by side." />
                    }.into_any();
                }
                match table.get() {
                    None => view! { <Loading label="Loading runs…" /> }.into_any(),
                    Some(Err(e)) => view! {
                        <ErrorView title="Could not load the runs" error=e retry=Callback::new(move |_| table.refetch()) />
                    }.into_any(),
                    Some(Ok(_)) if data.with(|d| d.runs.len() < 2) => view! {
                        <EmptyState title="Fewer than two of the selected runs exist"
                            hint="Some selected runs were not found in this experiment." />
                    }.into_any(),
                    Some(Ok(_)) => ().into_any(),
                }
            }}
            <Show when=move || compared.with(|c| c.as_ref().is_some_and(|c| c.runs.len() >= 2)) && shown.with(|s| s.len() >= 2)>
                <DiffTable data=data qs=qs />
                <div class="compare-plots">
                    <ParallelPanel data=data qs=qs />
                    <ScatterPanel data=data qs=qs />
                </div>
            </Show>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_quotes_plain_ids_only() {
        let ids = vec![
            "abc123".to_owned(),
            "x') OR ('1".to_owned(),
            "d_e-f".to_owned(),
        ];
        assert_eq!(ids_filter(&ids), "attributes.run_id IN ('abc123', 'd_e-f')");
    }
}
