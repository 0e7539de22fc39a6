//! Search: MLflow's filter grammar (parsed by [`crate::tracking::filter`]) given meaning
//! over runs ([`runs`]: metrics, params, tags, attributes; with [`fields`] and [`order`])
//! and over experiments ([`experiments`]), compiled to parameterised SQL.

mod cursor;
pub(crate) mod experiments;
mod fields;
mod order;
pub(crate) mod runs;
#[cfg(test)]
mod tests;

use crate::db::Value;

pub(crate) use experiments::search_experiments;
pub(crate) use runs::{search_run_ids, search_run_page, RunQuery};

/// A SQL fragment with its bound values, in textual order.
#[derive(Default, Clone)]
struct Sql {
    text: String,
    params: Vec<Value>,
}

impl Sql {
    /// Appends `other`'s text and its values.
    fn append(&mut self, other: Sql) {
        self.text.push_str(&other.text);
        self.params.extend(other.params);
    }
}
