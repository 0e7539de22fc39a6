//! The server's error type. Feature code returns [`Error`] (re-exported as `crate::Error`);
//! each dialect renders it: the MLflow dialect as `{"error_code", "message"}` with MLflow's
//! statuses ([`MlflowError`]), the app API as `api_types::ApiError`
//! ([`Error::api_error`]). Kept inside: which status and code each variant maps to, and
//! that internal causes are logged rather than sent.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// What can go wrong while serving a request. Only the `Display` text reaches clients;
/// internal causes are logged.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A request field is missing, malformed or out of range (MLflow `INVALID_PARAMETER_VALUE`, 400).
    #[error("{0}")]
    InvalidParameter(String),
    /// The request body or query cannot be decoded at all (MLflow `BAD_REQUEST`, 400).
    #[error("{0}")]
    BadRequest(String),
    /// The named resource does not exist (MLflow `RESOURCE_DOES_NOT_EXIST`, 404).
    #[error("{0}")]
    NotFound(String),
    /// The resource already exists (MLflow `RESOURCE_ALREADY_EXISTS`, 400).
    #[error("{0}")]
    AlreadyExists(String),
    /// The resource is in the wrong lifecycle state, e.g. logging to a deleted run
    /// (MLflow answers `INVALID_PARAMETER_VALUE` 400 for these; never a retried 5xx).
    #[error("{0}")]
    InvalidState(String),
    /// No valid credential came with the request (MLflow `UNAUTHENTICATED`, 401).
    #[error("{0}")]
    Unauthenticated(String),
    /// The caller is known but may not do this (MLflow `PERMISSION_DENIED`, 403). `grantors`
    /// names who could grant access; it is only filled for callers who may know the resource
    /// exists (never leak names of resources a caller cannot see).
    #[error("{message}")]
    PermissionDenied {
        /// What was refused, in words, e.g. "You don't have access to this experiment".
        message: String,
        /// Usernames that can grant access.
        grantors: Vec<String>,
    },
    /// Too many attempts (MLflow `REQUEST_LIMIT_EXCEEDED`, 429), e.g. sign-in rate limiting.
    #[error("{0}")]
    TooManyRequests(String),
    /// A bug or an I/O failure; the text is logged, clients get a generic message.
    #[error("internal error")]
    Internal(String),
}

impl Error {
    /// The MLflow `error_code` for this error.
    pub(crate) fn mlflow_code(&self) -> &'static str {
        match self {
            Error::InvalidParameter(_) | Error::InvalidState(_) => "INVALID_PARAMETER_VALUE",
            Error::BadRequest(_) => "BAD_REQUEST",
            Error::NotFound(_) => "RESOURCE_DOES_NOT_EXIST",
            Error::AlreadyExists(_) => "RESOURCE_ALREADY_EXISTS",
            Error::Unauthenticated(_) => "UNAUTHENTICATED",
            Error::PermissionDenied { .. } => "PERMISSION_DENIED",
            Error::TooManyRequests(_) => "REQUEST_LIMIT_EXCEEDED",
            Error::Internal(_) => "INTERNAL_ERROR",
        }
    }

    /// The HTTP status for this error (both dialects).
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            Error::InvalidParameter(_)
            | Error::BadRequest(_)
            | Error::AlreadyExists(_)
            | Error::InvalidState(_) => StatusCode::BAD_REQUEST,
            Error::NotFound(_) => StatusCode::NOT_FOUND,
            Error::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
            Error::PermissionDenied { .. } => StatusCode::FORBIDDEN,
            Error::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
            Error::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The error in the app API's shape (`api_types::ApiError`): its body on a response,
    /// or the data of an event that ends a stream.
    pub(crate) fn api_error(&self) -> api_types::ApiError {
        use api_types::ErrorCode;
        let code = match self {
            Error::InvalidParameter(_) | Error::InvalidState(_) => ErrorCode::InvalidParameter,
            Error::BadRequest(_) => ErrorCode::BadRequest,
            Error::NotFound(_) => ErrorCode::NotFound,
            Error::AlreadyExists(_) => ErrorCode::AlreadyExists,
            Error::Unauthenticated(_) => ErrorCode::Unauthenticated,
            Error::PermissionDenied { .. } => ErrorCode::PermissionDenied,
            Error::TooManyRequests(_) => ErrorCode::TooManyRequests,
            Error::Internal(_) => ErrorCode::Internal,
        };
        let grantors = match self {
            Error::PermissionDenied { grantors, .. } => grantors.clone(),
            _ => Vec::new(),
        };
        api_types::ApiError {
            code,
            message: self.to_string(),
            grantors,
        }
    }

    fn log(&self) {
        if let Error::Internal(cause) = self {
            tracing::error!(%cause, "internal error");
        }
    }
}

/// SQLite's answers to a statement beyond its limits (too many terms, variables, joins):
/// the request was too large, not the server broken. Requests are validated against
/// smaller limits first; this is the safety net.
const SQLITE_LIMIT_MESSAGES: [&str; 7] = [
    "Expression tree is too large",
    "too many SQL variables",
    "at most 64 tables in a join",
    "too many terms in compound SELECT",
    "parser stack overflow",
    "string or blob too big",
    "LIKE or GLOB pattern too complex",
];

impl From<crate::db::DbError> for Error {
    /// Never carries the statement's text (it can be long, and the log is no place for
    /// what a request put into it): the database's error and its message, shortened.
    fn from(e: crate::db::DbError) -> Self {
        let text = e.message();
        if SQLITE_LIMIT_MESSAGES.iter().any(|m| text.contains(m)) {
            return Error::InvalidParameter(
                "The request is too large or complex for one query: narrow the filter, \
                 order_by or id list."
                    .into(),
            );
        }
        let mut text = text;
        if let Some((cut, _)) = text.char_indices().nth(300) {
            text.truncate(cut);
        }
        Error::Internal(format!("database: {text}"))
    }
}

/// Renders an [`Error`] in the app API's shape (`api_types::ApiError`).
impl IntoResponse for Error {
    fn into_response(self) -> Response {
        self.log();
        (self.status(), Json(self.api_error())).into_response()
    }
}

/// The same error rendered in the MLflow dialect: `{"error_code", "message"}`.
#[derive(Debug)]
pub struct MlflowError(pub Error);

impl<E: Into<Error>> From<E> for MlflowError {
    fn from(e: E) -> Self {
        MlflowError(e.into())
    }
}

impl IntoResponse for MlflowError {
    fn into_response(self) -> Response {
        self.0.log();
        // MLflow clients only show `message`, so a denial names whom to ask right there.
        let message = match &self.0 {
            Error::PermissionDenied { message, grantors } if !grantors.is_empty() => {
                format!("{message} Ask {} for access.", grantors.join(" or "))
            }
            other => other.to_string(),
        };
        let body = serde_json::json!({
            "error_code": self.0.mlflow_code(),
            "message": message,
        });
        (self.0.status(), Json(body)).into_response()
    }
}
