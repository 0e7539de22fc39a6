//! MLflow's error body (`{"error_code", "message"}`), as the `/ajax-api/` writes answer, read
//! as the app's [`ApiError`].

use api_types as json;
use serde::Deserialize;

use json::{ApiError, ErrorCode};

/// MLflow's error body.
#[derive(Debug, Deserialize)]
struct MlflowErrorBody {
    error_code: String,
    #[serde(default)]
    message: String,
}

/// Reads an MLflow error body (`{"error_code", "message"}`) as an [`ApiError`], its code
/// mapped to the app's codes (an unknown one is kept as [`ErrorCode::Other`]); `None` when
/// `body` is not one.
pub fn mlflow_error(body: &str) -> Option<ApiError> {
    let e: MlflowErrorBody = serde_json::from_str(body).ok()?;
    let code = match e.error_code.as_str() {
        "INVALID_PARAMETER_VALUE" => ErrorCode::InvalidParameter,
        "BAD_REQUEST" => ErrorCode::BadRequest,
        "RESOURCE_DOES_NOT_EXIST" | "ENDPOINT_NOT_FOUND" => ErrorCode::NotFound,
        "RESOURCE_ALREADY_EXISTS" => ErrorCode::AlreadyExists,
        "UNAUTHENTICATED" => ErrorCode::Unauthenticated,
        "PERMISSION_DENIED" => ErrorCode::PermissionDenied,
        "REQUEST_LIMIT_EXCEEDED" => ErrorCode::TooManyRequests,
        "INTERNAL_ERROR" => ErrorCode::Internal,
        other => ErrorCode::Other(other.to_owned()),
    };
    let message = if e.message.is_empty() {
        format!("The server refused the change ({}).", e.error_code)
    } else {
        e.message
    };
    Some(json::ApiError {
        code,
        message,
        grantors: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mlflow_errors() {
        let e = mlflow_error(
            r#"{"error_code":"PERMISSION_DENIED","message":"Permission denied. Ask alice for access."}"#,
        )
        .unwrap();
        assert_eq!(e.code, ErrorCode::PermissionDenied);
        assert_eq!(e.message, "Permission denied. Ask alice for access.");
        let e = mlflow_error(r#"{"error_code":"RESOURCE_ALREADY_EXISTS","message":"Experiment 'x' already exists."}"#)
            .unwrap();
        assert_eq!(e.code, ErrorCode::AlreadyExists);
        let e =
            mlflow_error(r#"{"error_code":"INVALID_PARAMETER_VALUE","message":"bad"}"#).unwrap();
        assert_eq!(e.code, ErrorCode::InvalidParameter);
        let e = mlflow_error(r#"{"error_code":"SOMETHING_NEW"}"#).unwrap();
        assert_eq!(e.code, ErrorCode::Other("SOMETHING_NEW".into()));
        assert!(e.message.contains("SOMETHING_NEW"));
        let e = mlflow_error(r#"{"error_code":"UNAUTHENTICATED","message":"sign in"}"#).unwrap();
        assert_eq!(e.code, ErrorCode::Unauthenticated);
    }

    #[test]
    fn other_bodies_are_not_mlflow_errors() {
        assert!(mlflow_error(r#"{"code":"NOT_FOUND","message":"x"}"#).is_none());
        assert!(mlflow_error("<html>502</html>").is_none());
        assert!(mlflow_error("").is_none());
    }
}
