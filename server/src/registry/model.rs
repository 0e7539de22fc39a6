//! The registry's domain types: a registered model, a model version, a legacy stage.

use crate::Error;

/// A model version's legacy stage (MLflow still accepts and returns them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Stage {
    /// `None`: not in any stage (the default).
    None,
    /// `Staging`.
    Staging,
    /// `Production`.
    Production,
    /// `Archived`.
    Archived,
}

impl Stage {
    /// Every stage, in MLflow's order.
    pub(crate) const ALL: [Stage; 4] = [
        Stage::None,
        Stage::Staging,
        Stage::Production,
        Stage::Archived,
    ];

    /// The stage's name as stored and sent (`None`, `Staging`, ...).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Stage::None => "None",
            Stage::Staging => "Staging",
            Stage::Production => "Production",
            Stage::Archived => "Archived",
        }
    }

    /// Parses a stage name in any case (MLflow's `get_canonical_stage`).
    pub(crate) fn parse(s: &str) -> Result<Stage, Error> {
        Stage::ALL
            .into_iter()
            .find(|st| st.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                Error::InvalidParameter(format!(
                    "Invalid Model Version stage: {s}. Value must be one of None, Staging, \
                     Production, Archived."
                ))
            })
    }

    /// Whether `archive_existing_versions` may be used with it (Staging, Production).
    pub(crate) fn is_active(self) -> bool {
        matches!(self, Stage::Staging | Stage::Production)
    }
}

/// One version of a registered model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModelVersion {
    /// Registered model name.
    pub name: String,
    /// Version number, from 1.
    pub version: i64,
    /// Source as registered (`models:/m-...`, `runs:/<id>/model`, `mlflow-artifacts:/...`).
    pub source: String,
    /// Where its files are: what `get-download-uri` answers.
    pub storage_location: String,
    /// The run it came from, if known.
    pub run_id: Option<String>,
    /// The logged model it came from, if any.
    pub model_id: Option<String>,
    /// Link to the run (as given; usually empty).
    pub run_link: String,
    /// `READY` (registration is synchronous).
    pub status: String,
    /// Legacy stage.
    pub stage: Stage,
    /// Description (empty when none).
    pub description: String,
    /// Username of who registered it.
    pub user_id: String,
    /// Created, ms since the epoch.
    pub creation_time: i64,
    /// Last change, ms since the epoch.
    pub last_updated_time: i64,
    /// Tags, by key.
    pub tags: Vec<(String, String)>,
    /// Aliases pointing at it, sorted.
    pub aliases: Vec<String>,
}

/// A registered model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RegisteredModel {
    /// Row id (stable across renames; grants refer to it).
    pub id: i64,
    /// Unique name.
    pub name: String,
    /// Description, if set.
    pub description: Option<String>,
    /// Username of its creator ('' when unknown).
    pub creator: String,
    /// Created, ms since the epoch.
    pub creation_time: i64,
    /// Last change, ms since the epoch.
    pub last_updated_time: i64,
    /// Tags, by key.
    pub tags: Vec<(String, String)>,
    /// Aliases and the versions they name, by alias.
    pub aliases: Vec<(String, i64)>,
    /// The latest version of each stage, by version (MLflow's `latest_versions`).
    pub latest_versions: Vec<ModelVersion>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_parse_in_any_case() {
        assert_eq!(Stage::parse("production").unwrap(), Stage::Production);
        assert_eq!(Stage::parse("NONE").unwrap(), Stage::None);
        let e = Stage::parse("bogus").unwrap_err().to_string();
        assert!(e.starts_with("Invalid Model Version stage: bogus."), "{e}");
        assert!(Stage::Staging.is_active() && !Stage::Archived.is_active());
    }
}
