//! One module per route.

pub mod embed_gpus;
pub mod experiment;
pub mod experiments;
pub mod gpus;
pub mod logged_model;
pub mod models;
pub mod not_found;
pub mod run;
pub mod settings;
pub mod signin;
