//! The model registry: registered models, their versions, tags, aliases and legacy stages,
//! with MLflow's rules, and who may do what to a registered model (its own grants, as
//! MLflow's auth app keeps them). Both API dialects read and write through here; no SQL over
//! these tables lives anywhere else.
//!
//! Offers [`grants`] (a registered model's grants and its read filter), and to the crate
//! `models`, `versions`, `aliases`, `search`, the app's pages (`pages`, `logged_pages`)
//! and the types `RegisteredModel`, `ModelVersion`, `Stage`; MLflow's name and length
//! rules (`validate`) and version sources (`source`) stay inside.

pub(crate) mod aliases;
pub mod grants;
mod ids;
pub(crate) mod logged_pages;
pub(crate) mod logged_tag;
pub(crate) mod model;
pub(crate) mod models;
pub(crate) mod pages;
pub(crate) mod search;
pub(crate) mod source;
pub(crate) mod validate;
pub(crate) mod versions;

pub(crate) use model::{ModelVersion, RegisteredModel, Stage};
