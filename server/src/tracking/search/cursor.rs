//! Keyset page tokens of a runs search: the last row's sort-key values (the run id last),
//! the match count of the first page, and a fingerprint of the query they belong to, as
//! URL-safe base64 of a JSON object.
//! Opaque to clients; a token from another query (filter, order or view changed) or one
//! that does not decode is refused with `InvalidParameter`, never a 5xx.

use crate::db::Value;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Value as Json};

use crate::Error;

/// The position after which the next page starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cursor {
    /// One value per sort key, the run id last.
    pub last: Vec<Value>,
    /// The match count read with the first page.
    pub total: Option<u64>,
}

/// FNV-1a of the query's parts: stable across builds, enough to catch a token reused with
/// another query.
pub(crate) fn fingerprint(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain([0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Encodes `last` and `total` for the query whose fingerprint is `query`.
pub(crate) fn encode(query: u64, last: &[Value], total: u64) -> String {
    let values: Vec<Json> = last
        .iter()
        .map(|v| match v {
            Value::Null => Json::Null,
            Value::Integer(i) => json!(i),
            // Infinities (a metric may be logged as one) and NaN have no JSON number form.
            Value::Real(f) => serde_json::Number::from_f64(*f)
                .map_or_else(|| json!({ "real": f.to_string() }), Json::Number),
            Value::Text(s) => json!(s),
            Value::Blob(_) => Json::Null,
        })
        .collect();
    let body = json!({ "q": format!("{query:016x}"), "v": values, "t": total });
    URL_SAFE_NO_PAD.encode(body.to_string())
}

/// Decodes a token issued by [`encode`] for the query `query`.
pub(crate) fn decode(token: &str, query: u64) -> Result<Cursor, Error> {
    let invalid = |why: &str| Error::InvalidParameter(format!("Invalid page token, {why}."));
    let bytes = URL_SAFE_NO_PAD
        .decode(token.trim())
        .map_err(|_| invalid("could not base64-decode"))?;
    let body: Json =
        serde_json::from_slice(&bytes).map_err(|_| invalid("decoded token is not JSON"))?;
    if body.get("q").and_then(Json::as_str) != Some(format!("{query:016x}").as_str()) {
        return Err(invalid(
            "it belongs to another filter, order or view; start again from the first page",
        ));
    }
    let values = body
        .get("v")
        .and_then(Json::as_array)
        .ok_or_else(|| invalid("no position"))?;
    let last = values
        .iter()
        .map(|v| match v {
            Json::Null => Ok(Value::Null),
            Json::String(s) => Ok(Value::Text(s.clone())),
            Json::Object(o) => o
                .get("real")
                .and_then(Json::as_str)
                .and_then(|r| r.parse::<f64>().ok())
                .map(Value::Real)
                .ok_or_else(|| invalid("a value is not a number, text or null")),
            Json::Number(n) => n
                .as_i64()
                .map(Value::Integer)
                .or_else(|| n.as_f64().map(Value::Real))
                .ok_or_else(|| invalid("a value is out of range")),
            _ => Err(invalid("a value is not a number, text or null")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let total = body.get("t").and_then(Json::as_u64);
    Ok(Cursor { last, total })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_values_of_every_kind() {
        let last = vec![
            Value::Integer(2),
            Value::Null,
            Value::Real(0.25),
            Value::Real(3.0),
            Value::Real(f64::INFINITY),
            Value::Real(f64::NEG_INFINITY),
            Value::Text("a\"b".into()),
        ];
        let q = fingerprint(&["metrics.loss < 1", "metrics.loss ASC"]);
        let token = encode(q, &last, 12_345);
        assert!(token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        let expected = Cursor {
            last,
            total: Some(12_345),
        };
        assert_eq!(decode(&token, q).unwrap(), expected);
    }

    #[test]
    fn refuses_garbage_and_tokens_of_another_query() {
        let q = fingerprint(&["a"]);
        let other = encode(fingerprint(&["b"]), &[Value::Integer(1)], 1);
        for bad in ["!!!", "bm90IGpzb24", other.as_str()] {
            let e = decode(bad, q).unwrap_err();
            assert!(e.to_string().contains("Invalid page token"), "{bad}: {e}");
        }
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
    }
}
