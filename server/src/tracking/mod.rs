//! The tracking domain: experiments, runs, params, tags and metrics, with MLflow's rules,
//! as queries against the store. Both API dialects call into here.

pub mod search;

/// Which lifecycle stages a listing includes (MLflow's `ViewType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ViewType {
    /// Only `active` entities (the default).
    #[default]
    ActiveOnly,
    /// Only `deleted` entities.
    DeletedOnly,
    /// Both.
    All,
}

impl ViewType {
    /// The SQL condition on a `lifecycle_stage` column for this view.
    pub fn sql_condition(self, column: &str) -> String {
        match self {
            ViewType::ActiveOnly => format!("{column} = 'active'"),
            ViewType::DeletedOnly => format!("{column} = 'deleted'"),
            ViewType::All => "1 = 1".to_string(),
        }
    }
}
