//! MLflow's validation rules for keys, values and batch sizes (`mlflow/utils/validation.py`).

use crate::Error;

/// Longest metric/param/tag key.
pub(crate) const MAX_KEY_LENGTH: usize = 250;
/// Longest param value; longer ones are truncated (MLflow's `MLFLOW_TRUNCATE_LONG_VALUES`).
pub(crate) const MAX_PARAM_VALUE_LENGTH: usize = 6000;
/// Longest run tag value; longer ones are truncated.
pub(crate) const MAX_TAG_VALUE_LENGTH: usize = 8000;
/// Longest experiment tag value.
pub(crate) const MAX_EXPERIMENT_TAG_VALUE_LENGTH: usize = 5000;
/// Longest experiment name.
pub(crate) const MAX_EXPERIMENT_NAME_LENGTH: usize = 500;
/// Longest artifact location.
pub(crate) const MAX_ARTIFACT_LOCATION_LENGTH: usize = 2048;
/// Metrics per log-batch request.
pub(crate) const MAX_METRICS_PER_BATCH: usize = 1000;
/// Params (and, separately, tags) per log-batch request.
pub(crate) const MAX_PARAMS_TAGS_PER_BATCH: usize = 100;
/// Metrics + params + tags per log-batch request.
pub(crate) const MAX_ENTITIES_PER_BATCH: usize = 1000;

const BAD_CHARACTERS: &str = "Names may only contain alphanumerics, underscores (_), dashes (-), \
     periods (.), spaces ( ), colon(:) and slashes (/).";

/// MLflow's "Invalid value X for parameter 'p' supplied" message (X JSON-encoded).
pub(crate) fn invalid_value(path: &str, value: &str, detail: &str) -> Error {
    let shown = serde_json::Value::String(value.to_string()).to_string();
    let detail = if detail.is_empty() {
        ".".to_string()
    } else {
        format!(": {detail}")
    };
    Error::InvalidParameter(format!(
        "Invalid value {shown} for parameter '{path}' supplied{detail}"
    ))
}

/// Checks a metric, param or tag key: charset `^[/\w.\- :]*$`, unchanged by
/// `posixpath.normpath`, not `.`/`..`-prefixed or absolute, at most 250 characters.
/// `path` names the request field for the message (e.g. `key`, `metrics[0].key`).
pub(crate) fn validate_key(path: &str, key: &str) -> Result<(), Error> {
    let ok_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '/' | '.' | '-' | ' ' | ':');
    if !key.chars().all(ok_char) {
        return Err(invalid_value(path, key, BAD_CHARACTERS));
    }
    if path_not_unique(key) {
        return Err(invalid_value(
            path,
            key,
            "Names may be treated as files in certain cases, and must not resolve to other \
             names when treated as such.",
        ));
    }
    let len = key.chars().count();
    if len > MAX_KEY_LENGTH {
        return Err(Error::InvalidParameter(format!(
            "'{path}' exceeds the maximum length of {MAX_KEY_LENGTH} characters \
             (got {len})"
        )));
    }
    Ok(())
}

/// True when `posixpath.normpath(name)` differs from `name`, or is `.`, `..`-prefixed or
/// absolute: i.e. some component is empty, `.` or `..`, or the name is empty/absolute.
fn path_not_unique(name: &str) -> bool {
    name.is_empty()
        || name.starts_with('/')
        || name.starts_with("..")
        || name
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
}

/// Truncates `value` to at most `max` characters (MLflow truncates long param/tag values).
pub(crate) fn truncate(value: String, max: usize) -> String {
    match value.char_indices().nth(max) {
        Some((cut, _)) => value[..cut].to_string(),
        None => value,
    }
}

/// Longest run name (MLflow's `runs.name` column).
pub(crate) const MAX_RUN_NAME_LENGTH: usize = 250;
/// Longest `user_id` of a run (MLflow's `runs.user_id` column).
pub(crate) const MAX_USER_ID_LENGTH: usize = 256;

/// Checks a run name's length.
pub(crate) fn validate_run_name(name: &str) -> Result<(), Error> {
    validate_length("Run name", name, MAX_RUN_NAME_LENGTH)
}

/// Checks a run's `user_id` length.
pub(crate) fn validate_user_id(user_id: &str) -> Result<(), Error> {
    validate_length("user_id", user_id, MAX_USER_ID_LENGTH)
}

/// Checks that `value` has at most `max` characters.
pub(crate) fn validate_length(what: &str, value: &str, max: usize) -> Result<(), Error> {
    let len = value.chars().count();
    if len > max {
        return Err(Error::InvalidParameter(format!(
            "{what} had length {len}, which exceeded length limit of {max}"
        )));
    }
    Ok(())
}

/// Checks the sizes of a log-batch request.
pub(crate) fn validate_batch_sizes(
    metrics: usize,
    params: usize,
    tags: usize,
) -> Result<(), Error> {
    let over = |what: &str, got: usize, max: usize| {
        Error::InvalidParameter(format!(
            "A batch logging request can contain at most {max} {what}. Got {got} {what}. \
             Please split up {what} across multiple requests and try again."
        ))
    };
    if metrics > MAX_METRICS_PER_BATCH {
        return Err(over("metrics", metrics, MAX_METRICS_PER_BATCH));
    }
    if params > MAX_PARAMS_TAGS_PER_BATCH {
        return Err(over("params", params, MAX_PARAMS_TAGS_PER_BATCH));
    }
    if tags > MAX_PARAMS_TAGS_PER_BATCH {
        return Err(over("tags", tags, MAX_PARAMS_TAGS_PER_BATCH));
    }
    let total = metrics + params + tags;
    if total > MAX_ENTITIES_PER_BATCH {
        return Err(over(
            "metrics, params, and tags",
            total,
            MAX_ENTITIES_PER_BATCH,
        ));
    }
    Ok(())
}

/// Checks an experiment name: non-empty, at most 500 characters.
pub(crate) fn validate_experiment_name(name: &str) -> Result<(), Error> {
    if name.is_empty() {
        return Err(Error::InvalidParameter(
            "Invalid experiment name: ''".to_string(),
        ));
    }
    validate_length("Experiment name", name, MAX_EXPERIMENT_NAME_LENGTH)
}

/// Checks a user-supplied artifact location.
pub(crate) fn validate_artifact_location(loc: &str) -> Result<(), Error> {
    validate_length("artifact_location", loc, MAX_ARTIFACT_LOCATION_LENGTH)?;
    if loc.starts_with("runs:") {
        return Err(Error::InvalidParameter(
            "Artifact location cannot be a runs:/ URI.".to_string(),
        ));
    }
    if loc.contains('#') {
        return Err(Error::InvalidParameter(
            "'artifact_location' URL can't include fragments or params.".to_string(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_mlflow_charset_and_normpath() {
        for ok in [
            "loss",
            "system/gpu_0_util",
            "a b:c-d.e",
            "ünï_cödé",
            "a/b/c",
            "x..y",
        ] {
            assert!(validate_key("key", ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "/abs", "a//b", "a/", "./a", "a/./b", "a/../b", "..a", ".", "a$b", "a\\b",
        ] {
            assert!(validate_key("key", bad).is_err(), "{bad:?}");
        }
        assert!(validate_key("key", &"k".repeat(250)).is_ok());
        assert!(validate_key("key", &"k".repeat(251)).is_err());
    }

    #[test]
    fn bad_charset_message_is_mlflows() {
        let e = validate_key("metrics[0].key", "a$b")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("Invalid value \"a$b\" for parameter 'metrics[0].key' supplied"));
        assert!(e.contains("Names may only contain alphanumerics"));
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate("héllo".into(), 2), "hé");
        assert_eq!(truncate("abc".into(), 5), "abc");
        assert_eq!(truncate("é".repeat(6001), 6000).chars().count(), 6000);
    }

    #[test]
    fn batch_limits() {
        assert!(validate_batch_sizes(1000, 0, 0).is_ok());
        assert!(validate_batch_sizes(1001, 0, 0).is_err());
        assert!(validate_batch_sizes(0, 101, 0).is_err());
        assert!(validate_batch_sizes(0, 0, 101).is_err());
        assert!(validate_batch_sizes(900, 100, 1).is_err());
        assert!(validate_batch_sizes(800, 100, 100).is_ok());
    }
}
