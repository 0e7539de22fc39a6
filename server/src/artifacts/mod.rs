//! Artifacts: files of runs and logged models, stored behind [`ArtifactStore`] (a local
//! folder, [`LocalStore`], or an S3-compatible bucket, [`ObjectStoreBackend`]) and named by
//! [`ArtifactPath`]s, which cannot leave the artifact root. `mlflow-artifacts:/<p>` URIs
//! map to `<root>/<p>` ([`ArtifactPath::from_uri`]). The MLflow artifact proxy
//! ([`proxy::dialect`]) and the app API's artifact routes serve them.

pub mod access;
pub mod download;
pub mod local;
pub mod path;
pub mod proxy;
pub mod s3;
pub mod store;
pub mod zip;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) use local::LocalStore;
pub(crate) use path::ArtifactPath;
pub(crate) use s3::ObjectStoreBackend;
pub use store::{ArtifactStore, ByteRange, Entry, Listing, Object, StoreError, WalkEntry};

/// Default cap of one upload: 50 GiB.
pub const DEFAULT_MAX_UPLOAD: u64 = 50 * 1024 * 1024 * 1024;

/// The folder `artifacts` beside the database file `db`: the default artifact root.
pub fn default_root(db: &Path) -> PathBuf {
    db.parent().unwrap_or(Path::new(".")).join("artifacts")
}

/// Where artifacts go, as `runlens serve` was told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A local folder.
    Dir(PathBuf),
    /// An `s3://bucket/prefix` URL.
    Url(String),
}

/// Opens the store at `location`.
pub fn open(location: &Location) -> Result<Arc<dyn ArtifactStore>, StoreError> {
    Ok(match location {
        Location::Dir(dir) => Arc::new(LocalStore::open(dir)?),
        Location::Url(url) => Arc::new(ObjectStoreBackend::from_url(url)?),
    })
}
