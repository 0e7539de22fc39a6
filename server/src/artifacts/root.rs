//! Where the artifacts of a run or logged model live: its artifact URI, and its path in
//! this server's store when it keeps them.

use super::ArtifactPath;
use crate::db::Conn;
use crate::models::logged;
use crate::tracking::runs;
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

    /// Where run `run_id`'s artifacts live (404 for an unknown run).
    pub(crate) fn of_run(c: &Conn, run_id: &str) -> Result<Root, Error> {
        Ok(Root::of(runs::get_info(c, run_id)?.artifact_uri))
    }

    /// Where logged model `model_id`'s artifacts live (404 for an unknown model).
    pub(crate) fn of_model(c: &Conn, model_id: &str) -> Result<Root, Error> {
        Ok(Root::of(logged::get(c, model_id)?.artifact_uri))
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
