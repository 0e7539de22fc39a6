//! The experiment page's live stream (`GET /experiments/{id}/live`, Server-Sent Events):
//! what is written to the experiment's runs while the page is open (see
//! [`api_types::workspace::LiveQuery`] for the events).
//!
//! The merging, its bounds and the caller's re-check are the live feed's
//! ([`crate::live::feed`]); this module is the HTTP side: the query, and each of the
//! feed's items as an event: `event: update` (a [`api_types::workspace::LiveUpdate`]),
//! `event: resync` (the page refetches), `event: unauthenticated` when the caller's
//! credential no longer holds ([`end_event`]), `: keep-alive` every 15 s.

use std::collections::HashSet;
use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::{Stream, StreamExt};

use super::guard::{ExperimentGuard, READ};
use super::query::QueryParams;
use super::stream_end::end_event;
use crate::auth::proof::Proof;
use crate::auth::stream_caller::StreamCaller;
use crate::live::feed::{Feed, Out};
use crate::{AppState, Error};

/// The keep-alive comment's period.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// `GET /api/v1/experiments/{id}/live?run=&run=`: the experiment's writes as they happen
/// (see the module doc). 400 for more than `MAX_BATCH_RUNS` runs.
pub(crate) async fn stream_live(
    State(state): State<AppState>,
    guard: ExperimentGuard<READ>,
    proof: Proof,
    query: QueryParams,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, Error> {
    let streamed: HashSet<String> = query.live()?.runs.into_iter().collect();
    let caller = StreamCaller::new(&state.store, proof);
    let feed = Feed::open(&state.live, &state.store, guard.id, caller, streamed);
    // Fused, so a layer that polls once more after the end finds it ended.
    let stream = futures_util::stream::unfold(feed, |mut f| async move {
        let event = event(f.next_out().await?)?;
        Some((Ok(event), f))
    })
    .fuse();
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("keep-alive")))
}

/// The event of a feed's item; `None` ends the stream (a failed check other than a
/// credential that no longer holds: the client's reconnect gets the refusal).
fn event(out: Out) -> Option<Event> {
    let update = match out {
        Out::Update(u) => u,
        Out::Resync => return Some(Event::default().event("resync").data("")),
        Out::End(e) => return end_event(&e),
    };
    Some(match serde_json::to_string(&update) {
        Ok(data) => Event::default().event("update").data(data),
        Err(e) => {
            tracing::warn!("live update not serialisable: {e}");
            Event::default().event("resync").data("")
        }
    })
}
