//! The model registry (`/registered-models...`, `/model-versions...`) and its permissions.

use crate::routes::Route;

/// This module's routes.
pub(super) fn routes() -> Vec<Route> {
    Vec::new()
}
