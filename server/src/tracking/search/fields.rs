//! What a runs-search identifier refers to (metric, param, tag, attribute, dataset) and
//! which comparators and literals it accepts.

use crate::tracking::filter::{Clause, Ident, Literal, Op};
use crate::Error;

/// A searchable run attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attr {
    /// `run_id`
    RunId,
    /// `run_name`
    RunName,
    /// `user_id`
    UserId,
    /// `status`
    Status,
    /// `artifact_uri`
    ArtifactUri,
    /// `start_time`
    StartTime,
    /// `end_time`
    EndTime,
}

impl Attr {
    /// Every attribute, in MLflow's documentation order.
    pub(crate) const ALL: [Attr; 7] = [
        Attr::RunId,
        Attr::RunName,
        Attr::UserId,
        Attr::Status,
        Attr::ArtifactUri,
        Attr::StartTime,
        Attr::EndTime,
    ];

    /// The attribute's name in the grammar.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Attr::RunId => "run_id",
            Attr::RunName => "run_name",
            Attr::UserId => "user_id",
            Attr::Status => "status",
            Attr::ArtifactUri => "artifact_uri",
            Attr::StartTime => "start_time",
            Attr::EndTime => "end_time",
        }
    }

    /// The column of `runs` holding it (a fixed identifier, never user text).
    pub(crate) fn column(self) -> &'static str {
        match self {
            Attr::RunId => "run_uuid",
            Attr::RunName => "name",
            other => other.name(),
        }
    }

    /// True for the numeric (time) attributes.
    pub(crate) fn is_numeric(self) -> bool {
        matches!(self, Attr::StartTime | Attr::EndTime)
    }

    fn parse(key: &str) -> Option<Attr> {
        match key {
            "created" | "Created" => Some(Attr::StartTime),
            "run name" | "Run name" | "Run Name" => Some(Attr::RunName),
            "run_uuid" => Some(Attr::RunId),
            k => Attr::ALL.into_iter().find(|a| a.name() == k),
        }
    }
}

/// What an identifier refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Field {
    /// A metric's latest value.
    Metric(String),
    /// A param.
    Param(String),
    /// A tag.
    Tag(String),
    /// An attribute of the run.
    Attr(Attr),
    /// A dataset input field (`name`, `digest`, `context`).
    Dataset(String),
}

impl Field {
    /// Resolves `type.key` (no type = attribute) with MLflow's aliases.
    pub(crate) fn resolve(ident: &Ident) -> Result<Field, Error> {
        let key = ident.key.clone();
        match ident.kind.as_deref() {
            Some("metric" | "metrics") => Ok(Field::Metric(key)),
            Some("parameter" | "parameters" | "param" | "params") => Ok(Field::Param(key)),
            Some("tag" | "tags") => Ok(Field::Tag(key)),
            Some("dataset" | "datasets") => match key.as_str() {
                "name" | "digest" | "context" => Ok(Field::Dataset(key)),
                _ => Err(Error::InvalidParameter(format!(
                    "Invalid dataset key '{key}'. Valid keys are 'name', 'digest', 'context'."
                ))),
            },
            None | Some("attribute" | "attributes" | "attr" | "run") => {
                Attr::parse(&key).map(Field::Attr).ok_or_else(|| {
                    let valid = searchable_attributes().join("', '");
                    Error::InvalidParameter(format!(
                        "Invalid attribute key '{key}' specified. Valid keys are '{valid}'"
                    ))
                })
            }
            Some(other) => Err(Error::InvalidParameter(format!(
                "Invalid entity type '{other}'. Valid values are \
                 ['metric', 'parameter', 'tag', 'attribute', 'dataset']"
            ))),
        }
    }

    fn numeric(&self) -> bool {
        match self {
            Field::Metric(_) => true,
            Field::Attr(a) => a.is_numeric(),
            _ => false,
        }
    }

    /// Rejects comparators the field does not support.
    pub(crate) fn check_op(&self, op: Op) -> Result<(), Error> {
        let ok = if self.numeric() {
            op.is_numeric()
        } else {
            match self {
                Field::Param(_) | Field::Tag(_) => {
                    matches!(op, Op::Eq | Op::Ne | Op::Like | Op::ILike)
                }
                _ => matches!(
                    op,
                    Op::Eq | Op::Ne | Op::Like | Op::ILike | Op::In | Op::NotIn
                ),
            }
        };
        if ok {
            return Ok(());
        }
        Err(Error::InvalidParameter(format!(
            "Invalid comparator '{}' for {}",
            op.as_str(),
            self.describe()
        )))
    }

    /// Checks the literal's type against the field and returns it.
    pub(crate) fn bind_value(&self, clause: &Clause) -> Result<Literal, Error> {
        let value = clause.value.clone();
        match (&value, self.numeric()) {
            (Literal::Number(_), true) | (Literal::Str(_) | Literal::List(_), false) => Ok(value),
            (_, true) => Err(Error::InvalidParameter(format!(
                "Expected numeric value type for {}. Found {:?}",
                self.describe(),
                value
            ))),
            (_, false) => Err(Error::InvalidParameter(format!(
                "Expected a quoted string value for {}. Found {:?}",
                self.describe(),
                value
            ))),
        }
    }

    fn describe(&self) -> String {
        match self {
            Field::Metric(k) => format!("metric '{k}'"),
            Field::Param(k) => format!("param '{k}'"),
            Field::Tag(k) => format!("tag '{k}'"),
            Field::Attr(a) => format!("attribute '{}'", a.name()),
            Field::Dataset(k) => format!("dataset '{k}'"),
        }
    }
}

/// The attribute names a runs search accepts (error messages and tests).
pub(crate) fn searchable_attributes() -> Vec<&'static str> {
    Attr::ALL.iter().map(|a| a.name()).collect()
}
