//! The runs view's toolbar extras: "Show deleted runs", "Export CSV" (every run matching
//! the table's query, streamed by the server) and the page's live state.

use std::collections::HashSet;

use api_types as json;
use leptos::prelude::*;

use super::super::workspace::Workspace;
use crate::api;
use crate::components::live_badge;
use crate::hooks::use_live_feed;

/// "Show deleted runs" (`deleted=1`) and the CSV export of what the table shows.
#[component]
pub fn TableActions(
    /// The URL's workspace state.
    ws: Workspace,
    /// The experiment.
    experiment_id: String,
    /// The table's query (filter, order, view, columns).
    #[prop(into)]
    query: Signal<json::RunTableQuery>,
) -> impl IntoView {
    let href = move || api::runs_csv_url(&experiment_id, &query.get());
    view! {
        <div class="table-actions">
            <label class="check show-deleted">
                <input type="checkbox" prop:checked=move || ws.show_deleted()
                    on:change=move |ev| ws.set_show_deleted(event_target_checked(&ev)) />
                <span>"Show deleted runs"</span>
            </label>
            <a class="button export-csv" href=href download="" rel="nofollow">"Export CSV"</a>
        </div>
    }
}

/// The page's live state and its controls (see [`live_badge::LiveBadge`]).
#[component]
pub fn LiveBadge() -> impl IntoView {
    use_live_feed().map(|feed| view! { <live_badge::LiveBadge feed=feed /> })
}

/// Ids of the deleted runs among those `query` matches, while it shows deleted runs
/// (the table's rows do not say which are deleted).
pub fn use_deleted_ids(
    experiment_id: String,
    query: Memo<json::RunTableQuery>,
) -> LocalResource<HashSet<String>> {
    LocalResource::new(move || {
        let q = query.get();
        let id = experiment_id.clone();
        async move {
            if q.view == json::RunView::Active {
                return HashSet::new();
            }
            let q = json::RunTableQuery {
                view: json::RunView::Deleted,
                columns: json::RunTableColumns::default(),
                ..q
            };
            api::list_all_runs(id, q)
                .await
                .map(|t| t.rows.into_iter().map(|r| r.run_id).collect())
                .unwrap_or_default()
        }
    })
}
