//! Domain types of the tracking store, independent of any wire format.

/// An experiment with its tags.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Experiment {
    /// Numeric id (`0` is `Default`).
    pub experiment_id: i64,
    /// Unique name, e.g. `/Users/alice@example.com/sft`.
    pub name: String,
    /// Artifact root, e.g. `mlflow-artifacts:/3`.
    pub artifact_location: String,
    /// `active` or `deleted`.
    pub lifecycle_stage: String,
    /// Creation time, ms since the epoch.
    pub creation_time: i64,
    /// Last change, ms since the epoch.
    pub last_update_time: i64,
    /// Tags, sorted by key.
    pub tags: Vec<(String, String)>,
}

/// A run's lifecycle status (MLflow `RunStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunStatus {
    /// Running (1).
    Running,
    /// Scheduled (2).
    Scheduled,
    /// Finished (3).
    Finished,
    /// Failed (4).
    Failed,
    /// Killed (5).
    Killed,
}

impl RunStatus {
    /// All statuses in protobuf number order (1-based).
    pub(crate) const ALL: [RunStatus; 5] = [
        RunStatus::Running,
        RunStatus::Scheduled,
        RunStatus::Finished,
        RunStatus::Failed,
        RunStatus::Killed,
    ];

    /// The MLflow name, e.g. `FINISHED`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "RUNNING",
            RunStatus::Scheduled => "SCHEDULED",
            RunStatus::Finished => "FINISHED",
            RunStatus::Failed => "FAILED",
            RunStatus::Killed => "KILLED",
        }
    }

    /// Parses an MLflow name.
    pub(crate) fn parse(s: &str) -> Option<RunStatus> {
        Self::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

/// The scalar facts of a run (MLflow `RunInfo`).
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    /// 32 lowercase hex chars.
    pub run_id: String,
    /// Experiment id.
    pub experiment_id: i64,
    /// Run name (mirrored in tag `mlflow.runName`).
    pub run_name: String,
    /// User id.
    pub user_id: String,
    /// Status name, e.g. `RUNNING`.
    pub status: String,
    /// Start, ms since the epoch.
    pub start_time: i64,
    /// End, ms since the epoch, once set.
    pub end_time: Option<i64>,
    /// Artifact root of the run.
    pub artifact_uri: String,
    /// `active` or `deleted`.
    pub lifecycle_stage: String,
}

/// One metric point (or a run's latest value of a key).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Step.
    pub step: i64,
    /// Timestamp, ms since the epoch.
    pub timestamp: i64,
    /// Value; NaN and ±inf kept.
    pub value: f64,
}

/// A metric key with one point.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// Metric key.
    pub key: String,
    /// The point.
    pub point: Point,
}

/// A run with its params, tags and latest metrics (MLflow `Run`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Run {
    /// Scalar facts.
    pub info: RunInfo,
    /// Latest value per metric key, sorted by key.
    pub metrics: Vec<Metric>,
    /// Params, sorted by key.
    pub params: Vec<(String, String)>,
    /// Tags, sorted by key.
    pub tags: Vec<(String, String)>,
}

/// Stored representation of a metric value: SQLite turns NaN into NULL, so NaN is kept as
/// `(is_nan = 1, value = 0)`; ±inf are stored as themselves.
pub fn to_stored(value: f64) -> (bool, f64) {
    if value.is_nan() {
        (true, 0.0)
    } else {
        (false, value)
    }
}

/// Inverse of [`to_stored`].
pub(crate) fn from_stored(is_nan: bool, value: f64) -> f64 {
    if is_nan {
        f64::NAN
    } else {
        value
    }
}
