//! The runs table as CSV (`GET /experiments/{id}/runs/csv`): every run matching the
//! table's query (no row cap), streamed a page of runs at a time so memory stays bounded
//! whatever the run count. The columns and the CSV are [`crate::tracking::runs_csv`]'s.

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures_util::stream;

use super::guard::{ExperimentGuard, READ};
use super::query::QueryParams;
use crate::tracking::runs_csv::{self, header_row};
use crate::{AppState, Error, Store};

/// `GET /api/v1/experiments/{id}/runs/csv?filter=&order_by=&view=&params=&metrics=&tags=`
/// (the query of `GET /experiments/{id}/runs`; its `limit` and `page_token` are ignored):
/// every matching run as CSV, as an attachment `experiment-<id>-runs.csv`, read in keyset
/// pages. Bad filters or orderings answer 400 before anything is sent.
pub(crate) async fn export_runs_csv(
    State(state): State<AppState>,
    guard: ExperimentGuard<READ>,
    query: QueryParams,
) -> Result<Response, Error> {
    let query = query.run_table()?.query;
    let mut first = header_row(&query.columns)?;
    let mut export = Export {
        store: state.store.clone(),
        experiment_id: guard.id,
        query,
        page_token: None,
        done: false,
    };
    // The first page parses the filter: a bad one is a 400, not a broken download.
    first.push_str(&export.next_page().await?);
    let rest = stream::unfold(export, |mut e| async move {
        if e.done {
            return None;
        }
        let page = e
            .next_page()
            .await
            .map(Bytes::from)
            .map_err(|err| std::io::Error::other(err.to_string()));
        if page.is_err() {
            e.done = true;
        }
        Some((page, e))
    });
    // Fused: the body may be polled again after its end, which `unfold` does not allow.
    let body = futures_util::StreamExt::fuse(futures_util::StreamExt::chain(
        stream::once(async { Ok::<_, std::io::Error>(Bytes::from(first)) }),
        rest,
    ));
    let disposition = format!("attachment; filename=\"experiment-{}-runs.csv\"", guard.id);
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        Body::from_stream(body),
    )
        .into_response())
}

/// Where an export is: the query and the token of the next page.
struct Export {
    store: Store,
    experiment_id: i64,
    query: api_types::RunTableQuery,
    /// Where the next page starts (after the previous page's last row, whatever was
    /// added or removed meanwhile); `None` for the first.
    page_token: Option<String>,
    done: bool,
}

impl Export {
    /// The next page of rows as CSV text; sets `done` after the last page.
    async fn next_page(&mut self) -> Result<String, Error> {
        let (id, query, token) = (
            self.experiment_id,
            self.query.clone(),
            self.page_token.take(),
        );
        let (text, next) = self
            .store
            .call(move |c| runs_csv::page(c, id, &query, token.as_deref()))
            .await?;
        self.done = next.is_none();
        self.page_token = next;
        Ok(text)
    }
}
