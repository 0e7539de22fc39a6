//! The server's integration tests, in one binary (one link of the whole server instead of
//! one per file). Each module is a feature area; they all build the app through
//! [`helpers::TestApp`] (in-process router) or [`helpers::binary`] (the real binary).
//!
//! Run one area with `cargo test -p server --test it -- permissions_matrix::`.

mod architecture;
mod artifacts;
mod auth_api;
mod auth_cli;
mod auth_logs;
mod bad_input;
mod durability;
mod hardening;
mod helpers;
mod integrity;
mod jobs;
mod logs_api;
mod logs_cli;
mod migrate_store;
mod mlflow_api;
mod models;
mod nodes;
mod permissions_api;
mod permissions_matrix;
mod registry;
mod replicas;
mod startup;
mod static_files;
mod upgrade;
mod v1_api;
mod v1_bench;
pub mod workspace;
