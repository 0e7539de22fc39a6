//! Integration tests of the MLflow REST dialect on the real router: each endpoint's success
//! shape and its error codes.

mod experiments;
mod logging;
mod metrics;
mod runs;
mod search_grammar;
mod transport;
