//! Typed access to a request message's fields with protobuf-JSON leniency (int64 as number
//! or string, doubles as number or "NaN"/"Infinity"/"-Infinity", enums by name or number,
//! null = unset, unknown fields ignored) and MLflow's error messages.

use serde_json::{Map, Value};

use crate::Error;

/// The fields of one (possibly nested) request message.
pub(crate) struct Fields {
    map: Map<String, Value>,
    /// Path prefix for error messages, e.g. `metrics[3].`.
    prefix: String,
    /// Whether values came from a query string (all strings; repeated keys as arrays).
    query: bool,
}

/// Python's name for a JSON value's type, as MLflow's messages show it.
pub(crate) fn py_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

impl Fields {
    /// Wraps a decoded message.
    pub(crate) fn new(map: Map<String, Value>, query: bool) -> Self {
        Fields {
            map,
            prefix: String::new(),
            query,
        }
    }

    fn path(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// MLflow's message for a value of the wrong type.
    pub(crate) fn invalid(&self, name: &str, v: &Value) -> Error {
        Error::InvalidParameter(format!(
            "Invalid value {v} for parameter '{}' supplied:  Hint: Value was of type '{}'. \
             See the API docs for more information about request parameters.",
            self.path(name),
            py_type(v)
        ))
    }

    /// MLflow's message for a missing required field.
    pub(crate) fn missing(&self, name: &str) -> Error {
        Error::InvalidParameter(format!(
            "Missing value for required parameter '{}'.",
            self.path(name)
        ))
    }

    /// The raw value of a scalar field (`None` if absent or null). For query strings a
    /// repeated key yields its first value.
    fn scalar(&self, name: &str) -> Option<&Value> {
        match self.map.get(name) {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) if self.query => items.first(),
            Some(v) => Some(v),
        }
    }

    /// An optional string field.
    pub(crate) fn opt_str(&self, name: &str) -> Result<Option<String>, Error> {
        match self.scalar(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(self.invalid(name, v)),
        }
    }

    /// A required string field.
    pub(crate) fn req_str(&self, name: &str) -> Result<String, Error> {
        self.opt_str(name)?.ok_or_else(|| self.missing(name))
    }

    /// The run id: `run_id`, falling back to the legacy `run_uuid`; required.
    pub(crate) fn run_id(&self) -> Result<String, Error> {
        match self.opt_str("run_id")?.filter(|s| !s.is_empty()) {
            Some(id) => Ok(id),
            None => self
                .opt_str("run_uuid")?
                .filter(|s| !s.is_empty())
                .ok_or_else(|| self.missing("run_id")),
        }
    }

    /// An optional boolean field (JSON boolean, or `"true"` / `"false"` in any case).
    pub(crate) fn opt_bool(&self, name: &str) -> Result<Option<bool>, Error> {
        match self.scalar(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(Some(true)),
            Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(Some(false)),
            Some(v) => Err(self.invalid(name, v)),
        }
    }

    /// An optional int64 field (JSON number or decimal string).
    pub(crate) fn opt_i64(&self, name: &str) -> Result<Option<i64>, Error> {
        let Some(v) = self.scalar(name) else {
            return Ok(None);
        };
        let parsed = match v {
            Value::Number(n) => n.as_i64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18)
                    .map(|f| f as i64)
            }),
            Value::String(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        parsed.map(Some).ok_or_else(|| self.invalid(name, v))
    }

    /// An optional double field (number, numeric string, or "NaN"/"Infinity"/"-Infinity").
    pub(crate) fn opt_f64(&self, name: &str) -> Result<Option<f64>, Error> {
        let Some(v) = self.scalar(name) else {
            return Ok(None);
        };
        let parsed = match v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => match s.as_str() {
                "NaN" => Some(f64::NAN),
                "Infinity" => Some(f64::INFINITY),
                "-Infinity" => Some(f64::NEG_INFINITY),
                other => other.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
            },
            _ => None,
        };
        parsed.map(Some).ok_or_else(|| self.invalid(name, v))
    }

    /// An optional enum field given by name or protobuf number; `parse` maps the text.
    pub(crate) fn opt_enum<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<T>, Error> {
        let Some(v) = self.scalar(name) else {
            return Ok(None);
        };
        let parsed = match v {
            Value::String(s) => parse(s),
            Value::Number(n) => n.as_i64().and_then(|i| parse(&i.to_string())),
            _ => None,
        };
        parsed.map(Some).ok_or_else(|| self.invalid(name, v))
    }

    /// A repeated string field (a JSON array; from a query string also a single value).
    pub(crate) fn str_list(&self, name: &str) -> Result<Vec<String>, Error> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::String(s)) if self.query => Ok(vec![s.clone()]),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(self.invalid(name, other)),
                })
                .collect(),
            Some(v) => Err(self.invalid(name, v)),
        }
    }

    /// A repeated message field, each element with its own path prefix (`name[i].`).
    pub(crate) fn msg_list(&self, name: &str) -> Result<Vec<Fields>, Error> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Object(m) => Ok(Fields {
                        map: m.clone(),
                        prefix: format!("{}{name}[{i}].", self.prefix),
                        query: false,
                    }),
                    other => Err(self.invalid(&format!("{name}[{i}]"), other)),
                })
                .collect(),
            Some(v) => Err(self.invalid(name, v)),
        }
    }

    /// An optional nested message field.
    pub(crate) fn msg(&self, name: &str) -> Result<Option<Fields>, Error> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(m)) => Ok(Some(Fields {
                map: m.clone(),
                prefix: format!("{}{name}.", self.prefix),
                query: false,
            })),
            Some(v) => Err(self.invalid(name, v)),
        }
    }

    /// A list of `{key, value}` messages (tags, params); both required strings.
    pub(crate) fn key_values(&self, name: &str) -> Result<Vec<(String, String)>, Error> {
        self.msg_list(name)?
            .iter()
            .map(|kv| Ok((kv.req_str("key")?, kv.req_str("value")?)))
            .collect()
    }
}

#[cfg(test)]
mod tests;
