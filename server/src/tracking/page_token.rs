//! Opaque page tokens: base64 of `{"offset": N}`, as MLflow issues them.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use crate::Error;

/// Largest offset a token may carry; anything beyond is not a token we issued.
const MAX_OFFSET: u64 = 1 << 40;

/// Encodes a page token for the given offset.
pub(crate) fn encode(offset: usize) -> String {
    STANDARD.encode(format!("{{\"offset\": {offset}}}"))
}

/// Decodes an optional page token into an offset (absent or empty = 0).
pub(crate) fn decode(token: Option<&str>) -> Result<usize, Error> {
    let Some(token) = token.filter(|t| !t.is_empty()) else {
        return Ok(0);
    };
    let invalid = |why: &str| Error::InvalidParameter(format!("Invalid page token, {why}."));
    let bytes = STANDARD
        .decode(token.trim())
        .map_err(|_| invalid("could not base64-decode"))?;
    let json: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|_| invalid("decoded token is not JSON"))?;
    let offset = json
        .get("offset")
        .and_then(serde_json::Value::as_u64)
        .filter(|o| *o <= MAX_OFFSET)
        .ok_or_else(|| invalid("offset must be a non-negative integer"))?;
    usize::try_from(offset).map_err(|_| invalid("offset out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_matches_mlflow() {
        assert_eq!(encode(4), "eyJvZmZzZXQiOiA0fQ==");
        assert_eq!(decode(Some(&encode(1234))).unwrap(), 1234);
        assert_eq!(decode(None).unwrap(), 0);
        assert_eq!(decode(Some("")).unwrap(), 0);
    }

    #[test]
    fn rejects_garbage() {
        for bad in [
            "!!!",
            "bm90IGpzb24=",             // "not json"
            "eyJvZmZzZXQiOiAtMX0=",     // {"offset": -1}
            "eyJvZmZzZXQiOiAiYSJ9",     // {"offset": "a"}
            "eyJvZmZzZXQiOiAxZTMwMH0=", // {"offset": 1e300}
            "eyJvZmZzZXQiOiA5OTk5OTk5OTk5OTk5OTk5OTk5fQ==",
        ] {
            let e = decode(Some(bad)).unwrap_err();
            assert!(
                e.to_string().starts_with("Invalid page token"),
                "{bad}: {e}"
            );
        }
    }
}
