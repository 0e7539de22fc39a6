//! Metric series for charts: the query that streams a run's points in x order
//! ([`query`]) and the M4 downsampling it feeds ([`downsample`]).

pub mod downsample;
mod query;

pub use downsample::Viewport;
pub use query::{query, SeriesRequest};
