//! Where the artifacts of a run or logged model live, for the artifact routes.

use crate::artifacts::ArtifactPath;
use crate::Error;

/// Where the artifacts of a run or logged model live.
pub(crate) struct Root {
    /// As MLflow names it (`mlflow-artifacts:/1/<run>/artifacts`).
    pub uri: String,
    /// Its path in the store; `None` when this server does not store them (another scheme).
    pub path: Option<ArtifactPath>,
}

impl Root {
    /// The root named by `uri`.
    pub(crate) fn of(uri: String) -> Root {
        let path = ArtifactPath::from_uri(&uri).ok();
        Root { uri, path }
    }

    /// The store path of `rel` (relative to the root); 404 when the root is elsewhere.
    pub(crate) fn resolve(&self, rel: &ArtifactPath) -> Result<ArtifactPath, Error> {
        match &self.path {
            Some(root) => root.join_path(rel),
            None => Err(Error::NotFound(format!(
                "artifacts at '{}' are not stored by this server",
                self.uri
            ))),
        }
    }
}
