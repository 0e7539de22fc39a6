//! The model registry: registered models, their versions, tags, aliases and legacy stages,
//! with MLflow's rules, and who may do what to a registered model (its own grants, as
//! MLflow's auth app keeps them). Both API dialects read and write through here; no SQL over
//! these tables lives anywhere else.

pub mod aliases;
pub mod grants;
mod ids;
pub(crate) mod logged_pages;
pub mod logged_tag;
pub mod model;
pub mod models;
pub(crate) mod pages;
pub mod search;
pub mod source;
pub mod validate;
pub mod versions;

pub(crate) use model::{ModelVersion, RegisteredModel, Stage};
