//! Reusable reactive hooks.

mod use_element_width;
mod use_query_state;

pub use use_element_width::use_element_width;
pub use use_query_state::{use_query_state, QueryState};
