//! MLflow 3's logged models (`/logged-models...`) and `runs/outputs`.

use crate::routes::Route;

/// This module's routes.
pub(super) fn routes() -> Vec<Route> {
    Vec::new()
}
