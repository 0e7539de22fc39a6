//! Request input of the app API, checked in one place: query strings (repeated keys kept
//! in order, typed values, every malformed value answered with a 400 `ApiError` that names
//! the parameter) and JSON bodies ([`json_body`]). Each request's
//! query parses into its type from `api_types` (`ExperimentListQuery`, `RunTableQuery`, ...),
//! which the app uses to build the same query strings.

use std::str::FromStr;

use api_types as json;
use api_types::logs::{LevelMode, LogLevel, LogQuery, MAX_PAGE};
use api_types::workspace as ws;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;

use serde::de::DeserializeOwned;

use crate::jobs::{JobRunFilter, DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT};
use crate::logs::page::MAX_SEARCH_BYTES;
use crate::logs::query::LineKey;
use crate::Error;

/// All `key=value` pairs of the query string, decoded, in order (repeats kept).
#[derive(Debug, Clone, Default)]
pub struct QueryParams(Vec<(String, String)>);

impl<S: Send + Sync> FromRequestParts<S> for QueryParams {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let pairs = typed_query(Query::from_request_parts(parts, state).await)?;
        Ok(QueryParams(pairs))
    }
}

impl QueryParams {
    /// Builds from decoded pairs (tests).
    #[cfg(test)]
    pub(crate) fn from_pairs(pairs: &[(&str, &str)]) -> Self {
        QueryParams(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    /// The last non-empty value of `key` (an empty value counts as absent).
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, v)| k == key && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `key`, in order, empty ones included.
    pub(crate) fn all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.0
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `key` parsed as `T`; `None` when absent; 400 naming `key` and `expected` when malformed.
    pub(crate) fn parse<T: FromStr>(&self, key: &str, expected: &str) -> Result<Option<T>, Error> {
        self.get(key)
            .map(|v| {
                v.trim().parse::<T>().map_err(|_| {
                    Error::InvalidParameter(format!("{key} must be {expected}, got '{v}'"))
                })
            })
            .transpose()
    }

    /// `limit`, an integer from 1 to `max`; `None` when absent; 400 otherwise (every page
    /// size of the app API is checked here, with one message).
    pub(crate) fn limit(&self, max: u32) -> Result<Option<u32>, Error> {
        let expected = format!("an integer from 1 to {max}");
        match self.parse::<u32>("limit", &expected)? {
            Some(n) if n == 0 || n > max => Err(Error::InvalidParameter(format!(
                "limit must be {expected}, got '{n}'"
            ))),
            limit => Ok(limit),
        }
    }

    /// A finite float, or `None` when absent.
    pub(crate) fn finite(&self, key: &str) -> Result<Option<f64>, Error> {
        match self.parse::<f64>(key, "a finite number")? {
            Some(v) if !v.is_finite() => Err(Error::InvalidParameter(format!(
                "{key} must be a finite number, got '{v}'"
            ))),
            other => Ok(other),
        }
    }

    /// `true`/`false` (also `1`/`0`), or `None` when absent.
    pub(crate) fn flag(&self, key: &str) -> Result<Option<bool>, Error> {
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
    pub(crate) fn key_list(&self, list: &str, single: &str) -> Vec<String> {
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

/// A JSON body of type `T`; 400 `BAD_REQUEST` showing the `expected` shape otherwise.
pub(crate) fn json_body<T: DeserializeOwned>(body: &[u8], expected: &str) -> Result<T, Error> {
    serde_json::from_slice(body).map_err(|e| Error::BadRequest(format!("expected {expected}: {e}")))
}

/// A typed query string (`axum`'s [`Query`]); 400 `BAD_REQUEST` when it does not parse, as
/// for [`QueryParams`].
pub(crate) fn typed_query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, Error> {
    q.map(|Query(q)| q).map_err(malformed)
}

/// The 400 of a query string that does not parse.
fn malformed(e: QueryRejection) -> Error {
    Error::BadRequest(format!("malformed query string: {}", e.body_text()))
}

/// A runs-table request: its query, and whether it asks for the default columns instead
/// of naming them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunTableRequest {
    /// The table's query (filter, order, view, named columns, page).
    pub query: json::RunTableQuery,
    /// `columns=default`: the columns a table shows when none are chosen
    /// ([`json::RunTableColumns::defaults`] of the experiment's keys).
    pub default_columns: bool,
}

/// The typed queries of the app API's requests (`api_types::query`), with a 400 naming the
/// parameter for every malformed value.
impl QueryParams {
    /// `GET /experiments`.
    pub(crate) fn experiment_list(&self) -> Result<json::ExperimentListQuery, Error> {
        let sort = match self.get("sort") {
            None => None,
            Some(s) => Some(
                serde_json::from_value(serde_json::Value::String(s.to_string())).map_err(|_| {
                    Error::InvalidParameter(format!(
                        "sort must be one of name, last_update, created, runs; got '{s}'"
                    ))
                })?,
            ),
        };
        Ok(json::ExperimentListQuery {
            q: self.get("q").map(str::to_string),
            sort,
            desc: self.flag("desc")?,
            offset: self.parse::<u64>("offset", "a non-negative integer")?,
            limit: self
                .limit(crate::tracking::overview::MAX_LIMIT)?
                .map(u64::from),
        })
    }

    /// `GET /experiments/{id}/runs` (and its CSV export): the table's query and whether it
    /// asks for the default columns (`columns=default`; 400 for another value, or beside
    /// named columns).
    pub(crate) fn run_table(&self) -> Result<RunTableRequest, Error> {
        let view = match self.get("view") {
            None => json::RunView::Active,
            Some(v) => json::RunView::parse(v).ok_or_else(|| {
                Error::InvalidParameter(format!("view must be active, deleted or all; got '{v}'"))
            })?,
        };
        let order_by: Vec<String> = self
            .all("order_by")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect();
        crate::tracking::filter::check_order_by_len(&order_by)?;
        let query = json::RunTableQuery {
            filter: self.get("filter").map(str::to_string),
            order_by,
            view,
            columns: json::RunTableColumns {
                params: self.key_list("params", "param"),
                metrics: self.key_list("metrics", "metric"),
                tags: self.key_list("tags", "tag"),
            },
            limit: self.limit(json::RUN_PAGE_MAX)?,
            page_token: self.get("page_token").map(str::to_string),
        };
        let default_columns = match self.get("columns") {
            None => false,
            Some("default") if query.columns == json::RunTableColumns::default() => true,
            Some("default") => {
                return Err(Error::InvalidParameter(
                    "columns=default cannot be combined with params, metrics or tags".into(),
                ))
            }
            Some(other) => {
                return Err(Error::InvalidParameter(format!(
                    "columns must be 'default' (or left out and the columns named); got '{other}'"
                )))
            }
        };
        Ok(RunTableRequest {
            query,
            default_columns,
        })
    }

    /// `GET /runs/{id}/logs` (and its stream and download): every malformed value a 400
    /// naming its parameter (empty values count as absent).
    pub(crate) fn log_query(&self) -> Result<LogQuery, Error> {
        let bad = |m: String| Error::InvalidParameter(m);
        let level = self
            .get("level")
            .map(|v| {
                LogLevel::parse(v.trim()).ok_or_else(|| {
                    bad(format!(
                        "level must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL; got '{v}'"
                    ))
                })
            })
            .transpose()?;
        let level_mode = self
            .get("level_mode")
            .map(|v| match v.trim() {
                "at_least" => Ok(LevelMode::AtLeast),
                "exactly" => Ok(LevelMode::Exactly),
                _ => Err(bad(format!(
                    "level_mode must be at_least or exactly; got '{v}'"
                ))),
            })
            .transpose()?;
        let q = self.get("q").map(str::to_owned);
        if let Some(q) = &q {
            if q.len() > MAX_SEARCH_BYTES || q.contains(['\n', '\r']) {
                return Err(bad(format!(
                    "q must be 1 to {MAX_SEARCH_BYTES} bytes of one line"
                )));
            }
        }
        let ms = "a time in ms since the epoch";
        let since = self.parse::<i64>("since", ms)?;
        let until = self.parse::<i64>("until", ms)?;
        if let (Some(s), Some(u)) = (since, until) {
            if u <= s {
                return Err(bad(format!("until ({u}) must be after since ({s})")));
            }
        }
        let cursor = |key: &str| -> Result<Option<String>, Error> {
            match self.get(key) {
                None => Ok(None),
                Some(c) => LineKey::from_cursor(c)
                    .map(|_| Some(c.to_owned()))
                    .map_err(|_| {
                        bad(format!(
                            "{key} must be a cursor from a log page (older/newer); got '{c}'"
                        ))
                    }),
            }
        };
        let limit = self.limit(MAX_PAGE as u32)?;
        Ok(LogQuery {
            node: self.get("node").map(str::to_owned),
            level,
            level_mode,
            q,
            since,
            until,
            before: cursor("before")?,
            after: cursor("after")?,
            at: self.parse::<i64>("at", ms)?,
            earliest: self.flag("earliest")?,
            limit,
        })
    }

    /// `GET /job-runs?all_status=&limit=`.
    pub(crate) fn job_runs(&self) -> Result<JobRunFilter, Error> {
        let limit = self.limit(MAX_LIST_LIMIT)?.unwrap_or(DEFAULT_LIST_LIMIT);
        Ok(JobRunFilter {
            all_status: self.flag("all_status")?.unwrap_or(false),
            limit,
        })
    }

    /// `GET /runs/{id}/series`.
    pub(crate) fn series(&self) -> Result<json::SeriesQuery, Error> {
        let key = self
            .get("key")
            .ok_or_else(|| Error::InvalidParameter("key (the metric key) is required".into()))?
            .to_string();
        Ok(json::SeriesQuery {
            key,
            x: self.x_axis()?,
            width: self.parse::<u32>("width", "an integer from 1 to 10000")?,
            x_min: self.finite("x_min")?,
            x_max: self.finite("x_max")?,
        })
    }

    /// `x=step|wall|relative` (step when absent).
    fn x_axis(&self) -> Result<json::XAxis, Error> {
        match self.get("x") {
            None | Some("step") => Ok(json::XAxis::Step),
            Some("wall") => Ok(json::XAxis::Wall),
            Some("relative") => Ok(json::XAxis::Relative),
            Some(other) => Err(Error::InvalidParameter(format!(
                "x must be step, wall or relative; got '{other}'"
            ))),
        }
    }

    /// Every non-empty value of the repeated `key`, verbatim, in order, without repeats;
    /// at most `max` (400 naming `key` beyond).
    fn repeated(&self, key: &str, max: usize) -> Result<Vec<String>, Error> {
        let mut out: Vec<String> = Vec::new();
        for v in self.all(key).filter(|v| !v.is_empty()) {
            if !out.iter().any(|o| o == v) {
                out.push(v.to_string());
            }
        }
        if out.len() > max {
            return Err(Error::InvalidParameter(format!(
                "{key} may be given at most {max} times, got {}",
                out.len()
            )));
        }
        Ok(out)
    }

    /// `GET /experiments/{id}/series` (see [`ws::SeriesBatchQuery`] for the limits).
    pub(crate) fn series_batch(&self) -> Result<ws::SeriesBatchQuery, Error> {
        use ws::{MAX_BATCH_KEYS, MAX_BATCH_RUNS, MAX_BATCH_SERIES};
        let runs = self.repeated("run", MAX_BATCH_RUNS)?;
        let keys = self.repeated("key", MAX_BATCH_KEYS)?;
        if runs.is_empty() {
            return Err(Error::InvalidParameter(
                "run (a run id, repeated for each run) is required".into(),
            ));
        }
        if keys.is_empty() {
            return Err(Error::InvalidParameter(
                "key (a metric key, repeated for each key) is required".into(),
            ));
        }
        if runs.len() * keys.len() > MAX_BATCH_SERIES {
            return Err(Error::InvalidParameter(format!(
                "run and key name {} series ({} runs x {} keys); at most {MAX_BATCH_SERIES}",
                runs.len() * keys.len(),
                runs.len(),
                keys.len()
            )));
        }
        Ok(ws::SeriesBatchQuery {
            runs,
            keys,
            x: self.x_axis()?,
            x_key: self.get("x_key").map(str::to_string),
            width: self.parse::<u32>("width", "an integer from 1 to 10000")?,
            x_min: self.finite("x_min")?,
            x_max: self.finite("x_max")?,
        })
    }

    /// `GET /experiments/{id}/live`: at most [`ws::MAX_BATCH_RUNS`] runs.
    pub(crate) fn live(&self) -> Result<ws::LiveQuery, Error> {
        Ok(ws::LiveQuery {
            runs: self.repeated("run", ws::MAX_BATCH_RUNS)?,
        })
    }

    /// `GET /principals`.
    pub(crate) fn principals(&self) -> json::PrincipalQuery {
        json::PrincipalQuery {
            q: self.get("q").map(str::to_string),
        }
    }

    /// `DELETE /experiments/{id}/access`.
    pub(crate) fn revoke(&self) -> Result<json::RevokeQuery, Error> {
        let kind = match self.get("kind") {
            Some("user") => json::PrincipalKind::User,
            Some("group") => json::PrincipalKind::Group,
            _ => return Err(Error::InvalidParameter("kind must be user or group".into())),
        };
        let name = self
            .get("name")
            .ok_or_else(|| {
                Error::InvalidParameter("name (of the user or group) is required".into())
            })?
            .to_string();
        Ok(json::RevokeQuery { kind, name })
    }
}

/// Parses an experiment id from a path segment (MLflow ids are decimal integers).
pub(crate) fn experiment_id(raw: &str) -> Result<i64, Error> {
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
    fn batch_runs_and_keys_repeat_verbatim_within_limits() {
        let q = QueryParams::from_pairs(&[
            ("run", "a"),
            ("key", "loss,x"),
            ("run", "b"),
            ("run", "a"),
            ("key", ""),
            ("x_key", "epoch"),
        ]);
        let b = q.series_batch().unwrap();
        assert_eq!(b.runs, ["a", "b"]);
        assert_eq!(b.keys, ["loss,x"]);
        assert_eq!(b.x_key.as_deref(), Some("epoch"));
        let message = |pairs: &[(&str, &str)]| match QueryParams::from_pairs(pairs).series_batch() {
            Err(crate::Error::InvalidParameter(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(message(&[("key", "k")]).starts_with("run "));
        assert!(message(&[("run", "r")]).starts_with("key "));
        assert!(message(&[("run", "r"), ("key", "k"), ("x", "epoch")]).starts_with("x "));
        let many: Vec<String> = (0..101).map(|i| format!("r{i}")).collect();
        let mut pairs: Vec<(&str, &str)> = many.iter().map(|r| ("run", r.as_str())).collect();
        pairs.push(("key", "k"));
        assert!(message(&pairs).starts_with("run "));
        let keys: Vec<String> = (0..11).map(|i| format!("k{i}")).collect();
        let mut pairs: Vec<(&str, &str)> =
            many[..100].iter().map(|r| ("run", r.as_str())).collect();
        pairs.extend(keys.iter().map(|k| ("key", k.as_str())));
        assert!(message(&pairs).contains("1100 series"));
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

    #[test]
    fn every_page_size_is_checked_with_one_message() {
        let limit = |v: &str| QueryParams::from_pairs(&[("limit", v)]).limit(500);
        assert_eq!(limit("1").unwrap(), Some(1));
        assert_eq!(limit("500").unwrap(), Some(500));
        assert_eq!(QueryParams::from_pairs(&[]).limit(500).unwrap(), None);
        for (v, got) in [("0", "0"), ("501", "501"), ("x", "x"), ("-1", "-1")] {
            match limit(v) {
                Err(crate::Error::InvalidParameter(m)) => {
                    assert_eq!(
                        m,
                        format!("limit must be an integer from 1 to 500, got '{got}'")
                    )
                }
                other => panic!("limit={v}: {other:?}"),
            }
        }
    }
}
