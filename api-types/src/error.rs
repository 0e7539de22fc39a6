//! The app API's error body.

use serde::{Deserialize, Serialize};

/// Error body of every non-2xx `/api/v1` answer: a stable machine code and a sentence a
/// person can act on. `Clone` so that resources can hold it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiError {
    /// Machine-readable code, e.g. `NOT_FOUND`, `INVALID_PARAMETER`, `NETWORK`.
    pub code: String,
    /// Human-readable explanation.
    pub message: String,
    /// For `PERMISSION_DENIED`: the users who can grant access (managers of the resource,
    /// then administrators), so the page can say whom to ask.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grantors: Vec<String>,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ApiError {}
