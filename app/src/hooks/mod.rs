//! Reusable reactive hooks.

mod use_query_state;
mod use_safe_navigate;

pub use use_query_state::{use_query_state, QueryState};
pub use use_safe_navigate::use_safe_navigate;
