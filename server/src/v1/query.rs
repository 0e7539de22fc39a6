//! Query strings of the app API: repeated keys kept in order, typed values, and every
//! malformed value answered with a 400 `ApiError` that names the parameter.

use std::str::FromStr;

use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;

use crate::Error;

/// All `key=value` pairs of the query string, decoded, in order (repeats kept).
#[derive(Debug, Clone, Default)]
pub struct QueryParams(Vec<(String, String)>);

impl<S: Send + Sync> FromRequestParts<S> for QueryParams {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Query(pairs) = Query::<Vec<(String, String)>>::from_request_parts(parts, state)
            .await
            .map_err(|e| Error::BadRequest(format!("malformed query string: {}", e.body_text())))?;
        Ok(QueryParams(pairs))
    }
}

impl QueryParams {
    /// Builds from decoded pairs (tests).
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Self {
        QueryParams(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    /// The last non-empty value of `key` (an empty value counts as absent).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, v)| k == key && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `key`, in order, empty ones included.
    pub fn all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.0
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `key` parsed as `T`; `None` when absent; 400 naming `key` and `expected` when malformed.
    pub fn parse<T: FromStr>(&self, key: &str, expected: &str) -> Result<Option<T>, Error> {
        self.get(key)
            .map(|v| {
                v.trim().parse::<T>().map_err(|_| {
                    Error::InvalidParameter(format!("{key} must be {expected}, got '{v}'"))
                })
            })
            .transpose()
    }

    /// A finite float, or `None` when absent.
    pub fn finite(&self, key: &str) -> Result<Option<f64>, Error> {
        match self.parse::<f64>(key, "a finite number")? {
            Some(v) if !v.is_finite() => Err(Error::InvalidParameter(format!(
                "{key} must be a finite number, got '{v}'"
            ))),
            other => Ok(other),
        }
    }

    /// `true`/`false` (also `1`/`0`), or `None` when absent.
    pub fn flag(&self, key: &str) -> Result<Option<bool>, Error> {
        self.get(key)
            .map(|v| match v {
                "true" | "1" => Ok(true),
                "false" | "0" => Ok(false),
                _ => Err(Error::InvalidParameter(format!(
                    "{key} must be true or false, got '{v}'"
                ))),
            })
            .transpose()
    }

    /// A key list: every `list` value split on commas, plus every `single` value taken
    /// verbatim (for keys that contain commas), in order of appearance, without blanks or
    /// repeats.
    pub fn key_list(&self, list: &str, single: &str) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for (k, v) in &self.0 {
            let parts: Vec<&str> = if k == list {
                v.split(',').collect()
            } else if k == single {
                vec![v.as_str()]
            } else {
                continue;
            };
            for part in parts {
                let part = part.trim();
                if !part.is_empty() && !keys.iter().any(|k| k == part) {
                    keys.push(part.to_string());
                }
            }
        }
        keys
    }
}

/// Parses an experiment id from a path segment (MLflow ids are decimal integers).
pub fn experiment_id(raw: &str) -> Result<i64, Error> {
    raw.parse::<i64>().map_err(|_| {
        Error::NotFound(format!(
            "experiment '{raw}' does not exist (experiment ids are integers)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::QueryParams;

    #[test]
    fn key_lists_split_commas_and_keep_verbatim_singles() {
        let q = QueryParams::from_pairs(&[
            ("params", "lr, batch_size"),
            ("param", "a,b"),
            ("params", "lr,,optimizer"),
            ("metrics", "loss"),
        ]);
        assert_eq!(
            q.key_list("params", "param"),
            vec!["lr", "batch_size", "a,b", "optimizer"]
        );
        assert_eq!(q.key_list("tags", "tag"), Vec::<String>::new());
    }

    #[test]
    fn typed_values_and_errors() {
        let q = QueryParams::from_pairs(&[("w", "12"), ("x", "abc"), ("f", "inf"), ("e", "")]);
        assert_eq!(q.parse::<u32>("w", "an integer").unwrap(), Some(12));
        assert!(q.parse::<u32>("x", "an integer").is_err());
        assert!(q.finite("f").is_err());
        assert_eq!(q.parse::<u32>("e", "an integer").unwrap(), None);
        assert_eq!(q.flag("missing").unwrap(), None);
    }
}
