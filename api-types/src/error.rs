//! The app API's error body and its machine-readable codes.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Declares [`ErrorCode`]'s known variants with their wire spellings, once.
macro_rules! error_codes {
    ($( $(#[$doc:meta])* $variant:ident = $wire:literal, )*) => {
        /// The machine-readable `code` of an [`ApiError`], spelled on the wire in
        /// SCREAMING_SNAKE_CASE (e.g. `"NOT_FOUND"`). A code this version does not know
        /// still decodes, as [`ErrorCode::Other`], and encodes back to the same string.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $( $(#[$doc])* $variant, )*
            /// A code this version does not know, kept as sent.
            Other(String),
        }

        impl ErrorCode {
            /// Every known code (not [`ErrorCode::Other`]).
            pub const KNOWN: &'static [ErrorCode] = &[$( ErrorCode::$variant, )*];

            /// The code as spelled on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $( ErrorCode::$variant => $wire, )*
                    ErrorCode::Other(code) => code,
                }
            }
        }

        impl From<&str> for ErrorCode {
            fn from(code: &str) -> Self {
                match code {
                    $( $wire => ErrorCode::$variant, )*
                    other => ErrorCode::Other(other.to_owned()),
                }
            }
        }
    };
}

error_codes! {
    /// A request field or filter is malformed or out of range (400).
    InvalidParameter = "INVALID_PARAMETER",
    /// The request body or query cannot be decoded at all (400).
    BadRequest = "BAD_REQUEST",
    /// No such resource or route (404).
    NotFound = "NOT_FOUND",
    /// The resource already exists (400).
    AlreadyExists = "ALREADY_EXISTS",
    /// No valid credential came with the request (401).
    Unauthenticated = "UNAUTHENTICATED",
    /// The caller is known but may not do this (403); see [`ApiError::grantors`].
    PermissionDenied = "PERMISSION_DENIED",
    /// Too many attempts, e.g. sign-in rate limiting (429).
    TooManyRequests = "TOO_MANY_REQUESTS",
    /// A server bug or I/O failure (500).
    Internal = "INTERNAL",
    /// Made by the client, never sent: the server could not be reached.
    Network = "NETWORK",
    /// Made by the client, never sent: an answer without an error body (the HTTP status
    /// is in the message).
    Http = "HTTP",
    /// Made by the client, never sent: the request could not be encoded.
    Encode = "ENCODE",
    /// Made by the client, never sent: the server's answer could not be decoded.
    Decode = "DECODE",
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|code| ErrorCode::from(code.as_str()))
    }
}

/// Error body of every non-2xx `/api/v1` answer: a stable machine code and a sentence a
/// person can act on. `Clone` so that resources can hold it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiError {
    /// Machine-readable code, e.g. [`ErrorCode::NotFound`].
    pub code: ErrorCode,
    /// Human-readable explanation.
    pub message: String,
    /// For `PERMISSION_DENIED`: the users who can grant access (managers of the resource,
    /// then administrators), so the page can say whom to ask.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grantors: Vec<String>,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ApiError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_codes_keep_their_wire_spelling() {
        let wire = [
            "INVALID_PARAMETER",
            "BAD_REQUEST",
            "NOT_FOUND",
            "ALREADY_EXISTS",
            "UNAUTHENTICATED",
            "PERMISSION_DENIED",
            "TOO_MANY_REQUESTS",
            "INTERNAL",
            "NETWORK",
            "HTTP",
            "ENCODE",
            "DECODE",
        ];
        assert_eq!(ErrorCode::KNOWN.len(), wire.len());
        for (code, spelled) in ErrorCode::KNOWN.iter().zip(wire) {
            assert_eq!(
                serde_json::to_string(code).unwrap(),
                format!("\"{spelled}\"")
            );
            assert_eq!(ErrorCode::from(spelled), *code);
            assert!(!matches!(code, ErrorCode::Other(_)));
        }
    }

    #[test]
    fn unknown_codes_decode_and_encode_back_unchanged() {
        let body = r#"{"code":"SOMETHING_NEW","message":"m"}"#;
        let e: ApiError = serde_json::from_str(body).unwrap();
        assert_eq!(e.code, ErrorCode::Other("SOMETHING_NEW".into()));
        assert_eq!(serde_json::to_string(&e).unwrap(), body);
    }

    #[test]
    fn the_body_is_unchanged_on_the_wire() {
        let e = ApiError {
            code: ErrorCode::PermissionDenied,
            message: "no".into(),
            grantors: vec!["alice".into()],
        };
        let body = r#"{"code":"PERMISSION_DENIED","message":"no","grantors":["alice"]}"#;
        assert_eq!(serde_json::to_string(&e).unwrap(), body);
        assert_eq!(serde_json::from_str::<ApiError>(body).unwrap(), e);
        let plain: ApiError =
            serde_json::from_str(r#"{"code":"NOT_FOUND","message":"gone"}"#).unwrap();
        assert_eq!(plain.code, ErrorCode::NotFound);
        assert!(plain.grantors.is_empty());
        assert!(serde_json::from_str::<ApiError>(r#"{"code":7,"message":"m"}"#).is_err());
    }
}
