//! Artifacts: files of runs and logged models.
//!
//! - [`store`]: where they are kept, behind [`ArtifactStore`] (a local folder,
//!   [`LocalStore`], or an S3-compatible bucket, [`store::ObjectStoreBackend`]).
//! - [`path`]: [`ArtifactPath`]s, which cannot leave the artifact root;
//!   `mlflow-artifacts:/<p>` URIs map to `<root>/<p>` (`ArtifactPath::from_uri`).
//! - [`root`]: where a run's or a logged model's artifacts live (`Root`); [`listing`]: a
//!   page of a folder under it; [`mlmodel`]: the summary of an `MLmodel` file.
//! - [`http`]: serving them: the MLflow artifact proxy (`http::proxy::dialect`) and the
//!   responses that it and the app API's artifact routes (`app_api::artifacts`) send.

pub mod http;
pub mod listing;
pub mod mlmodel;
pub mod path;
pub mod root;
pub mod store;

pub(crate) use path::ArtifactPath;
pub(crate) use root::Root;
pub(crate) use store::LocalStore;
pub use store::{
    default_root, open, ArtifactStore, ByteRange, Entry, Listing, Location, Object, StoreError,
    WalkEntry, DEFAULT_MAX_UPLOAD,
};
