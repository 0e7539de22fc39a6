//! Logged models, registered models and datasets of the matrix fixture.

use axum::Router;

use super::fixture::Template;

/// Creates the fixture's models as `admin` and records their ids in `t.extra`.
pub async fn seed(_t: &mut Template, _app: &Router, _admin: &str) {}
