//! Metric series for charts: the query that streams a run's points in x order
//! ([`query`]; against another metric of the run, [`query_x_key`]) and the M4
//! downsampling it feeds ([`downsample`]).

pub mod downsample;
mod query;

pub use downsample::Viewport;
pub use query::{query, query_x_key, runs_of_experiment, SeriesRequest};
