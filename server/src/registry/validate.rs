//! MLflow's rules for registry names, versions, aliases and tags, with its messages.

use crate::tracking::validation::{invalid_value, validate_key};
use crate::Error;

/// Longest registered-model or model-version tag value.
pub(crate) const MAX_TAG_VALUE_LENGTH: usize = 100_000;
/// Longest alias.
pub(crate) const MAX_ALIAS_LENGTH: usize = 255;
/// Longest registered-model name (MLflow's column).
pub(crate) const MAX_NAME_LENGTH: usize = 256;
/// Longest description (MLflow's column).
pub(crate) const MAX_DESCRIPTION_LENGTH: usize = 5000;

fn missing(field: &str) -> Error {
    Error::InvalidParameter(format!("Missing value for required parameter '{field}'."))
}

fn too_long(what: &str, max: usize) -> Error {
    Error::InvalidParameter(format!(
        "'{what}' exceeds the maximum length of {max} characters"
    ))
}

/// True when `posixpath.normpath(name)` would differ from `name` (empty, `.` or `..`
/// components, a leading or doubled slash): MLflow's `path_not_unique`.
fn path_not_unique(name: &str) -> bool {
    name.starts_with('/')
        || name
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
}

/// A registered model name (`field` names the request field: `name`, `new_name`):
/// non-blank, without `/` or `:`, not a path that resolves to another name.
pub(crate) fn model_name(field: &str, name: &str) -> Result<(), Error> {
    if name.trim().is_empty() {
        return Err(missing(field));
    }
    if name.contains('/') || name.contains(':') {
        return Err(Error::InvalidParameter(format!(
            "Invalid model name '{name}'. Names cannot contain '/' or ':'."
        )));
    }
    if path_not_unique(name) {
        return Err(invalid_value(
            field,
            name,
            "Names may be treated as files in certain cases, and must not resolve to other \
             names when treated as such.",
        ));
    }
    if name.chars().count() > MAX_NAME_LENGTH {
        return Err(too_long(field, MAX_NAME_LENGTH));
    }
    Ok(())
}

/// A version number as sent (a decimal string or number): MLflow's `int(version)`.
pub(crate) fn version(raw: &str) -> Result<i64, Error> {
    raw.trim().parse::<i64>().map_err(|_| {
        Error::InvalidParameter(format!(
            "Parameter 'version' must be an integer, got '{raw}'."
        ))
    })
}

/// An alias name: non-empty, `[\w-]*`, at most 255 characters.
pub(crate) fn alias(alias: &str) -> Result<(), Error> {
    if alias.is_empty() {
        return Err(Error::InvalidParameter(
            "Registered model alias name cannot be empty.".into(),
        ));
    }
    if !alias
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
    {
        return Err(Error::InvalidParameter(format!(
            "Invalid alias name: '{alias}'. Names may only contain alphanumerics, \
             underscores (_), and dashes (-)."
        )));
    }
    if alias.chars().count() > MAX_ALIAS_LENGTH {
        return Err(too_long("Registered model alias name", MAX_ALIAS_LENGTH));
    }
    Ok(())
}

/// An alias that may be set: valid, and neither `latest` (any case) nor `v<digits>`.
pub(crate) fn settable_alias(name: &str) -> Result<(), Error> {
    alias(name)?;
    if name.eq_ignore_ascii_case("latest") {
        return Err(Error::InvalidParameter(
            "'latest' alias name (case insensitive) is reserved.".into(),
        ));
    }
    let mut chars = name.chars();
    if matches!(chars.next(), Some('v' | 'V'))
        && name.len() > 1
        && chars.all(|c| c.is_ascii_digit())
    {
        return Err(Error::InvalidParameter(format!(
            "Version alias name '{name}' is reserved."
        )));
    }
    Ok(())
}

/// A tag of a registered model or model version.
pub(crate) fn tag(key: &str, value: &str) -> Result<(), Error> {
    validate_key("key", key)?;
    if value.chars().count() > MAX_TAG_VALUE_LENGTH {
        return Err(too_long("value", MAX_TAG_VALUE_LENGTH));
    }
    Ok(())
}

/// A description (registered model or version).
pub(crate) fn description(text: &str) -> Result<(), Error> {
    if text.chars().count() > MAX_DESCRIPTION_LENGTH {
        return Err(too_long("description", MAX_DESCRIPTION_LENGTH));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_mlflow() {
        assert!(model_name("name", "my-model v2").is_ok());
        for bad in ["", "  ", "a/b", "x:y", "..", "."] {
            assert!(model_name("name", bad).is_err(), "{bad:?}");
        }
        let e = model_name("new_name", "").unwrap_err().to_string();
        assert_eq!(e, "Missing value for required parameter 'new_name'.");
    }

    #[test]
    fn aliases_and_versions() {
        assert!(settable_alias("champion").is_ok());
        assert!(settable_alias("v1x").is_ok());
        for bad in ["", "a b", "latest", "LATEST", "v3", "V12"] {
            assert!(settable_alias(bad).is_err(), "{bad:?}");
        }
        assert_eq!(version("7").unwrap(), 7);
        let e = version("x").unwrap_err().to_string();
        assert_eq!(e, "Parameter 'version' must be an integer, got 'x'.");
    }
}
