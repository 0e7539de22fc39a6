//! Reusable reactive hooks.

mod scroll_into_view;
mod use_live;
mod use_now;
mod use_query_state;
mod use_safe_navigate;
mod use_settled_width;

pub use scroll_into_view::scroll_into_view;
pub use use_live::{is_live_status, provide_live_feed, use_live_feed, LiveFeed, LiveState};
pub use use_now::use_now;
pub use use_query_state::{use_query_state, QueryState};
pub use use_safe_navigate::use_safe_navigate;
pub use use_settled_width::use_settled_width;
