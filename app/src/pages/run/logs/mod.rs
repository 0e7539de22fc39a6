//! The run's Logs tab (`?tab=logs`): the output of the job run attempt that produced the
//! run, every node, live. Filters live in the page URL ([`filters`]); only the lines in
//! view are rendered ([`list`]); while the job run is active new lines arrive over SSE
//! ([`follow`]). A run no job produced explains how to get logs; a caller without CAN_VIEW
//! on the job sees whom to ask and no line (the log routes are not even called).

mod actions;
mod ansi;
mod body;
mod filter_bar;
mod filters;
mod follow;
mod line;
mod list;
mod paging;
mod states;
mod store;

use api_types as json;
use leptos::prelude::*;

use crate::api::ApiError;
use crate::components::states::{ErrorView, Loading};
use crate::hooks::use_query_state;
use body::{BodyProps, LogBody};
use filter_bar::{clear_filters, FilterBar};
use filters::LogFilters;
use states::{AccessPanel, NotJobBacked};

/// The Logs tab of a job-backed run the caller may read.
#[component]
fn LogsView(
    /// The run.
    run_id: String,
    /// Its job run.
    info: json::jobs::RunJobInfo,
) -> impl IntoView {
    let qs = use_query_state();
    let filters = Memo::new(move |_| LogFilters::from_url(|k| qs.get(k)));
    let nodes = RwSignal::new(info.nodes.clone());
    let reload = RwSignal::new(0u32);
    let on_clear = Callback::new(move |_| clear_filters(qs));
    let on_latest = Callback::new(move |_| {
        if filters.with_untracked(|f| f.at.is_some()) {
            qs.set("at", None);
        } else {
            reload.update(|r| *r += 1);
        }
    });
    let job_run_id = info.job_run_id;
    let body = move || {
        reload.track();
        let props = BodyProps {
            run_id: run_id.clone(),
            job_run_id,
            filters: filters.get(),
            nodes,
            on_clear,
            on_latest,
        };
        view! { <LogBody props=props /> }
    };
    view! {
        <div class="logs-tab">
            <FilterBar qs=qs filters=filters nodes=nodes />
            {body}
        </div>
    }
}

/// The Logs tab.
#[component]
pub fn LogsTab(
    /// The run.
    run_id: String,
    /// The job behind the run (`GET /runs/{id}/job`), shared with the page's job header.
    job: LocalResource<Result<json::jobs::RunJob, ApiError>>,
) -> impl IntoView {
    view! {
        <Transition fallback=move || view! { <Loading label="Loading logs…" /> }>
            {move || {
                let run_id = run_id.clone();
                Suspend::new(async move {
                    match job.await {
                        Ok(json::jobs::RunJob { job: None }) => view! { <NotJobBacked /> }.into_any(),
                        Ok(json::jobs::RunJob { job: Some(info) }) if !info.can_view_logs => {
                            view! { <AccessPanel info=info /> }.into_any()
                        }
                        Ok(json::jobs::RunJob { job: Some(info) }) => {
                            view! { <LogsView run_id=run_id info=info /> }.into_any()
                        }
                        Err(e) => view! {
                            <ErrorView title="Could not load the logs" error=e retry=Callback::new(move |_| job.refetch()) />
                        }.into_any(),
                    }
                })
            }}
        </Transition>
    }
}
