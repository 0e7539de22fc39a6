//! The tracking domain: experiments, runs, params, tags and metrics, with MLflow's rules,
//! as queries against the store. Both API dialects and the demo call into here; no SQL
//! over these tables lives anywhere else. The app API's read models (pages' summaries, the
//! runs table, chart series) are here too, next to the tables they read.
//!
//! Offers the transaction wrappers [`write()`] and `read`, the public [`experiments`],
//! [`history`], [`log_batch`], [`model`] and [`series`], and to the crate `runs`,
//! `search`, `tags`, `run_table`, `runs_csv`, `overview` and MLflow's `validation`
//! limits; the column keys (`columns`), the filter grammar and page tokens stay inside.

pub(crate) mod columns;
pub mod experiments;
pub(crate) mod filter;
pub mod history;
pub mod log_batch;
pub mod model;
pub(crate) mod names;
pub(crate) mod overview;
pub(crate) mod page_token;
pub(crate) mod run_table;
pub(crate) mod runs;
pub(crate) mod runs_csv;
pub(crate) mod search;
pub mod series;
pub(crate) mod tags;
pub(crate) mod validation;

// The modules' former names, until the MLflow dialect imports the new ones.

use crate::db::{Behavior, Conn};

use crate::Error;

/// Which lifecycle stages a listing includes (MLflow's `ViewType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ViewType {
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
    pub(crate) fn sql_condition(self, column: &str) -> String {
        match self {
            ViewType::ActiveOnly => format!("{column} = 'active'"),
            ViewType::DeletedOnly => format!("{column} = 'deleted'"),
            ViewType::All => "1 = 1".to_string(),
        }
    }

    /// Parses MLflow's enum name (`ACTIVE_ONLY`, `DELETED_ONLY`, `ALL`) or number (1, 2, 3).
    pub(crate) fn parse(s: &str) -> Option<ViewType> {
        match s {
            "ACTIVE_ONLY" | "1" => Some(ViewType::ActiveOnly),
            "DELETED_ONLY" | "2" => Some(ViewType::DeletedOnly),
            "ALL" | "3" => Some(ViewType::All),
            _ => None,
        }
    }
}

/// Runs `f` in one IMMEDIATE transaction (one commit per request; taking the write lock up
/// front avoids SQLite's busy-on-upgrade between concurrent writers).
pub fn write<T>(conn: &mut Conn, f: impl FnOnce(&Conn) -> Result<T, Error>) -> Result<T, Error> {
    let tx = conn.transaction(Behavior::Immediate)?;
    let out = f(&tx)?;
    tx.commit()?;
    Ok(out)
}

/// Runs `f` in one read transaction, so a multi-query read sees one snapshot.
pub(crate) fn read<T>(
    conn: &mut Conn,
    f: impl FnOnce(&Conn) -> Result<T, Error>,
) -> Result<T, Error> {
    let tx = conn.transaction(Behavior::Deferred)?;
    let out = f(&tx)?;
    tx.commit()?;
    Ok(out)
}
