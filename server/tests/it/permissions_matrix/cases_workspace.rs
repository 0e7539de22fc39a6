//! Matrix cases of the experiment workspace's routes: charts of several runs,
//! the live stream and the runs table's CSV export, all CAN_READ on the experiment.

use super::cases::{case, Case, R};

/// The workspace routes' cases.
#[rustfmt::skip]
pub const CASES: &[Case] = &[
    case("GET", "/api/v1/experiments/{id}/series", R, "/api/v1/experiments/{exp}/series?run={run}&key=secret_metric", None),
    case("GET", "/api/v1/experiments/{id}/live", R, "/api/v1/experiments/{exp}/live?run={run}", None),
    case("GET", "/api/v1/experiments/{id}/runs/csv", R, "/api/v1/experiments/{exp}/runs/csv?params=secret_param&metrics=secret_metric", None),
];
