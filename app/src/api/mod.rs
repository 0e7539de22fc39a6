//! The app's client of `/api/v1`: the only module that touches gloo-net. Every failure,
//! network and decoding included, comes back as an [`ApiError`] a page can show.
//!
//! Writes carry the session's CSRF token (`X-CSRF-Token`); any 401 outside the sign-in
//! calls runs the handler set with [`on_unauthenticated`] (the session sends the user to
//! the sign-in page and back).

mod artifacts;
mod auth;
mod early;
mod event_stream;
mod experiments_write;
mod http;
mod jobs;
mod logs;
mod manage;
mod mlflow_error;
mod models;
mod nodes;
mod registry_write;
mod tracking;
mod workspace;

pub use artifacts::*;
pub use auth::*;
pub use experiments_write::*;
pub use http::{
    clear_signed_in_hint, on_unauthenticated, set_csrf_token, signed_in_hint, ApiError, ErrorCode,
};
pub use jobs::*;
pub use logs::*;
pub use manage::*;
pub use models::*;
pub use nodes::*;
pub use registry_write::*;
pub use tracking::*;
pub use workspace::*;
