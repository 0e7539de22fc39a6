//! Metric series for charts: the query that streams a run's points in x order
//! ([`query()`]; against another metric of the run, `query_x_key`) and the M4
//! downsampling it feeds ([`downsample`]); the block summaries that let a chart of any
//! range read rows in proportion to its pixels (`block`, `blocks`, `chunks`, `cover`), kept
//! up to date by [`insert_points`], the one writer of a series' points.

mod axis;
mod block;
mod blocks;
mod chunks;
mod cover;
pub mod downsample;
mod ingest;
pub(crate) mod interval;
mod parallel;
mod query;
mod scan;
mod straddle;

pub use downsample::Viewport;
pub use ingest::insert_points;
pub(crate) use ingest::insert_series;
pub use query::{query, SeriesRequest};
pub(crate) use query::{query_x_key, runs_of_experiment};

#[cfg(test)]
mod tests;
