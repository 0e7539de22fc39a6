//! One module per route.

pub mod experiment;
pub mod experiments;
pub mod not_found;
pub mod run;
pub mod settings;
pub mod signin;
