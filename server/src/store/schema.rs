//! The store's schema: its migrations, in order, each a numbered SQL file in
//! `migrations/` (`NNNN_name.sql`) and its PostgreSQL twin in `migrations/postgres/` (same
//! number and name), recorded in `schema_migrations` and run by [`crate::db::migrate`] when
//! the store opens. A `runlens.db` made by runlens 0.1.0 (tables, no `schema_migrations`)
//! is adopted as version 1.

use crate::db::migrate::{Migration, MigrationSet};
use crate::db::Engine;

/// Every migration, in order.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "initial",
        sql: include_str!("migrations/0001_initial.sql"),
        pg: include_str!("migrations/postgres/0001_initial.sql"),
        data: None,
    },
    Migration {
        version: 2,
        name: "nodes",
        sql: include_str!("migrations/0002_nodes.sql"),
        pg: include_str!("migrations/postgres/0002_nodes.sql"),
        data: None,
    },
    Migration {
        version: 3,
        name: "jobs",
        sql: include_str!("migrations/0003_jobs.sql"),
        pg: include_str!("migrations/postgres/0003_jobs.sql"),
        data: None,
    },
    Migration {
        version: 4,
        name: "models",
        sql: include_str!("migrations/0004_models.sql"),
        pg: include_str!("migrations/postgres/0004_models.sql"),
        data: None,
    },
    Migration {
        version: 5,
        name: "registry",
        sql: include_str!("migrations/0005_registry.sql"),
        pg: include_str!("migrations/postgres/0005_registry.sql"),
        data: None,
    },
    Migration {
        version: 6,
        name: "metric_blocks",
        sql: include_str!("migrations/0006_metric_blocks.sql"),
        pg: include_str!("migrations/postgres/0006_metric_blocks.sql"),
        data: None,
    },
    Migration {
        version: 7,
        name: "experiment_columns",
        sql: include_str!("migrations/0007_experiment_columns.sql"),
        pg: include_str!("migrations/postgres/0007_experiment_columns.sql"),
        data: None,
    },
    Migration {
        version: 8,
        name: "signin_limits",
        sql: include_str!("migrations/0008_signin_limits.sql"),
        pg: include_str!("migrations/postgres/0008_signin_limits.sql"),
        data: None,
    },
    Migration {
        version: 9,
        name: "metric_summaries",
        sql: include_str!("migrations/0009_metric_summaries.sql"),
        pg: include_str!("migrations/postgres/0009_metric_summaries.sql"),
        data: Some(super::repack::repack_blocks),
    },
    Migration {
        version: 10,
        name: "drop_metric_blocks",
        sql: include_str!("migrations/0010_drop_metric_blocks.sql"),
        pg: include_str!("migrations/postgres/0010_drop_metric_blocks.sql"),
        data: None,
    },
    Migration {
        version: 11,
        name: "metric_chunks",
        sql: include_str!("migrations/0011_metric_chunks.sql"),
        pg: include_str!("migrations/postgres/0011_metric_chunks.sql"),
        data: None,
    },
    Migration {
        version: 12,
        name: "sort_value_indexes",
        sql: include_str!("migrations/0012_sort_value_indexes.sql"),
        pg: include_str!("migrations/postgres/0012_sort_value_indexes.sql"),
        data: None,
    },
    Migration {
        version: 13,
        name: "point_series_check",
        sql: include_str!("migrations/0013_point_series_check.sql"),
        pg: include_str!("migrations/postgres/0013_point_series_check.sql"),
        data: None,
    },
    Migration {
        version: 14,
        name: "node_access",
        sql: include_str!("migrations/0014_node_access.sql"),
        pg: include_str!("migrations/postgres/0014_node_access.sql"),
        data: None,
    },
    Migration {
        version: 15,
        name: "runs_by_end_time",
        sql: include_str!("migrations/0015_runs_by_end_time.sql"),
        pg: include_str!("migrations/postgres/0015_runs_by_end_time.sql"),
        data: None,
    },
    Migration {
        version: 16,
        name: "summaries_to_top_level",
        sql: include_str!("migrations/0016_summaries_to_top_level.sql"),
        pg: include_str!("migrations/postgres/0016_summaries_to_top_level.sql"),
        data: None,
    },
];

/// The store's migrations and their bookkeeping table, for [`crate::db::migrate::run`].
pub(crate) const SCHEMA: MigrationSet = MigrationSet {
    what: "database",
    step: "migration",
    table: versions_table,
    migrations: MIGRATIONS,
    legacy_table: Some("experiments"),
};

/// The store records its versions in `schema_migrations` on both engines.
fn versions_table(_: Engine) -> &'static str {
    "schema_migrations"
}
