//! Metric charts: pure, signal-free functions. [`data`] turns a server series into chart
//! points, [`smoothing`] applies TensorBoard's debiased EMA, [`scale`] picks ranges and
//! which ticks each axis gets, [`ticks`] places ticks at human steps and labels them (for
//! every chart, the compare view's too), [`axis`] hands them to plotters, [`nearest`]
//! finds the point under the cursor, [`draw`] prepares a canvas; [`multi`] paints every
//! line chart (one run's metric, several runs' or groups', a node's GPUs), [`bars`] one
//! value per run as bars, and [`group`] aggregates grouped runs.

pub mod axis;
pub mod bars;
pub(crate) mod canvas_state;
pub mod data;
pub mod draw;
pub mod group;
pub mod multi;
pub mod nearest;
pub mod scale;
pub mod smoothing;
pub mod ticks;

pub use data::{ChartData, ChartPoint, Marker, NonFinite};
pub use draw::{DrawError, DrawInfo, Palette};
pub use multi::{draw_multi, Layout, Line, MultiChart};
