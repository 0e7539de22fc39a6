//! How an open stream (log follow, experiment live) tells its page that the caller's
//! credential no longer holds ([`end_event`]), so the app signs the user out instead of
//! reconnecting. The check itself is [`StreamCaller`](crate::auth::stream_caller::StreamCaller)'s.

use axum::response::sse::Event;

use crate::Error;

/// The last event of a stream whose check failed with `e`: for a credential that no longer
/// holds, `event: unauthenticated` with the `ApiError` as data (the app then signs the user
/// out; a browser would otherwise reconnect and get a 401 it cannot read); `None` for
/// other failures (the stream just ends; the client's reconnect gets the refusal).
pub(crate) fn end_event(e: &Error) -> Option<Event> {
    let Error::Unauthenticated(_) = e else {
        return None;
    };
    let data = serde_json::to_string(&e.api_error()).ok()?;
    Some(Event::default().event("unauthenticated").data(data))
}
