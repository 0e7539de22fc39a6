//! Wire types of the runlens app API (`/api/v1/...`), shared by the app (wasm32) and the
//! server (native). Serde only; imported on both sides as `use api_types as json;`.

pub mod agent;
pub mod artifacts;
mod auth;
mod error;
mod experiments;
pub mod jobs;
pub mod logs;
mod metrics;
pub mod models;
pub mod nodes;
mod query;
mod runs;
mod value;
pub mod workspace;

pub use auth::{
    CreatedToken, ExperimentAccess, Grant, GrantRequest, Level, LoginRequest, Me, NewToken,
    Principal, PrincipalKind, TokenInfo,
};
pub use error::{ApiError, ErrorCode};
pub use experiments::{ExperimentDetail, ExperimentList, ExperimentSort, ExperimentSummary};
pub use jobs::{JobLevel, JobRunStatus};
pub use metrics::{MetricSeries, SeriesPoint, XAxis};
pub use query::{
    ExperimentListQuery, PrincipalQuery, RevokeQuery, RunTableQuery, RunView, SeriesQuery,
    RUN_PAGE_DEFAULT, RUN_PAGE_MAX,
};
pub use runs::{KeyValue, LatestMetric, RunDetail, RunRef, RunRow, RunTable, RunTableColumns};
pub use value::F64;
