//! The HTTP side of artifacts: MLflow's artifact proxy (`proxy::dialect`) with its
//! per-experiment guard ([`access`]), and what both it and the app API's artifact routes
//! answer with: file responses (content types, `Range`, the sandbox CSP, [`download`]) and
//! a folder as a streamed zip ([`zip`]).

pub mod access;
pub mod download;
pub mod proxy;
pub mod zip;
