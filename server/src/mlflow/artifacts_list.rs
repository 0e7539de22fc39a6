//! `GET artifacts/list`: a run's artifacts as MLflow lists them.

use crate::routes::Route;

/// This module's routes.
pub(super) fn routes() -> Vec<Route> {
    Vec::new()
}
