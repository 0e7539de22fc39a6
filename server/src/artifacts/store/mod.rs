//! Artifact storage: the [`ArtifactStore`] trait with what it hands back, and its two
//! backends, a local folder ([`LocalStore`]) and an S3-compatible bucket
//! ([`ObjectStoreBackend`]); [`open`] picks one for where `runlens serve` was told to keep
//! artifacts. Nothing here knows HTTP or permissions.

pub mod local;
pub mod s3;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Bytes;
use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use futures_util::FutureExt;

use super::ArtifactPath;
pub(crate) use local::LocalStore;
pub(crate) use s3::ObjectStoreBackend;

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

/// A stream of bytes (an upload's body, a download's content).
pub(crate) type ByteStream = BoxStream<'static, Result<Bytes, std::io::Error>>;

/// What can go wrong in an [`ArtifactStore`].
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Nothing at that path (or a folder where a file was asked for).
    #[error("{0}")]
    NotFound(String),
    /// The path conflicts with what is stored (a file where a folder is needed, a folder
    /// where a file would go) or leaves the root through a symbolic link.
    #[error("{0}")]
    Conflict(String),
    /// An upload went over the size limit; nothing was stored.
    #[error("Artifact is larger than the limit of {limit} bytes")]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The upload's body failed (the client went away); nothing was stored.
    #[error("upload interrupted: {0}")]
    Aborted(String),
    /// A byte range outside the file.
    #[error("range not satisfiable")]
    BadRange {
        /// The file's size.
        size: u64,
    },
    /// Storage failed (disk, object store).
    #[error("artifact storage: {0}")]
    Io(String),
}

impl StoreError {
    /// No file at the artifact `path`.
    pub(crate) fn no_artifact(path: &ArtifactPath) -> Self {
        StoreError::NotFound(format!("No such artifact: '{path}'"))
    }

    /// A folder at the artifact `path`, where a file was asked for.
    pub(crate) fn folder_not_file(path: &ArtifactPath) -> Self {
        StoreError::Conflict(format!(
            "Artifact path refers to a directory, not a file: '{path}'"
        ))
    }

    /// No folder at the artifact `path`.
    pub(crate) fn no_folder(path: &ArtifactPath) -> Self {
        StoreError::NotFound(format!("No such folder: '{path}'"))
    }
}

impl From<std::io::Error> for StoreError {
    fn from(e: std::io::Error) -> Self {
        StoreError::Io(e.to_string())
    }
}

impl From<StoreError> for crate::Error {
    fn from(e: StoreError) -> Self {
        use crate::Error;
        match e {
            StoreError::NotFound(m) => Error::NotFound(m),
            StoreError::Conflict(m) => Error::InvalidParameter(m),
            StoreError::TooLarge { .. } | StoreError::BadRange { .. } => {
                Error::InvalidParameter(e.to_string())
            }
            StoreError::Aborted(m) => Error::BadRequest(m),
            StoreError::Io(m) => Error::Internal(m),
        }
    }
}

/// One entry of a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its name (one segment).
    pub name: String,
    /// Whether it is a folder.
    pub is_dir: bool,
    /// Size in bytes (files only).
    pub size: Option<u64>,
}

/// What is at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listing {
    /// Nothing.
    Missing,
    /// A file of this size.
    File {
        /// Size in bytes.
        size: u64,
    },
    /// A folder with these entries: folders first, then files, each group by name.
    Dir(Vec<Entry>),
}

/// A byte range of a download: `start..=end` (`end` `None`: to the end of the file), or
/// the last `n` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteRange {
    /// From `start` to `end` inclusive.
    From {
        /// First byte.
        start: u64,
        /// Last byte (inclusive), if bounded.
        end: Option<u64>,
    },
    /// The last `n` bytes.
    Suffix(u64),
}

impl ByteRange {
    /// The bounds served of a file of `size` bytes when `range` is asked for: `None` for the
    /// whole file (no range asked), [`StoreError::BadRange`] when it is unsatisfiable.
    pub(crate) fn bounds(range: Option<Self>, size: u64) -> Result<Option<(u64, u64)>, StoreError> {
        match range {
            None => Ok(None),
            Some(r) => r
                .resolve(size)
                .map(Some)
                .ok_or(StoreError::BadRange { size }),
        }
    }

    /// The inclusive bounds within a file of `size` bytes, or `None` if unsatisfiable.
    pub(crate) fn resolve(self, size: u64) -> Option<(u64, u64)> {
        match self {
            ByteRange::From { start, end } => {
                if start >= size {
                    return None;
                }
                let end = end.map_or(size - 1, |e| e.min(size - 1));
                (end >= start).then_some((start, end))
            }
            ByteRange::Suffix(n) if n > 0 && size > 0 => Some((size.saturating_sub(n), size - 1)),
            ByteRange::Suffix(_) => None,
        }
    }
}

/// A download: the bytes asked for, streamed.
pub struct Object {
    /// Size of the whole file.
    pub size: u64,
    /// The bounds served (inclusive), when a range was asked for.
    pub range: Option<(u64, u64)>,
    /// The content.
    pub body: ByteStream,
}

/// A file found by [`ArtifactStore::walk`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkEntry {
    /// Path relative to the folder walked.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
}

/// Where artifacts are stored: a local folder ([`LocalStore`]) or an object store
/// ([`ObjectStoreBackend`]). Every path is an [`ArtifactPath`], so nothing outside
/// the root can be named.
pub trait ArtifactStore: Send + Sync + 'static {
    /// Stores `body` at `path`, atomically: the file appears complete or not at all (a
    /// failed body or more than `limit` bytes store nothing). Replaces a file already there.
    /// Returns the bytes stored.
    fn put(
        &self,
        path: &ArtifactPath,
        body: ByteStream,
        limit: u64,
    ) -> BoxFuture<'_, Result<u64, StoreError>>;

    /// The file at `path` (or the `range` of it), streamed.
    fn get(
        &self,
        path: &ArtifactPath,
        range: Option<ByteRange>,
    ) -> BoxFuture<'_, Result<Object, StoreError>>;

    /// What is at `path`: one folder level, a file, or nothing.
    fn list(&self, path: &ArtifactPath) -> BoxFuture<'_, Result<Listing, StoreError>>;

    /// Deletes the file or folder at `path` (nothing there is not an error).
    fn delete(&self, path: &ArtifactPath) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Every file under the folder `path`, recursively, sorted by path (NotFound when
    /// `path` is no folder).
    fn walk(&self, path: &ArtifactPath) -> BoxFuture<'_, Result<Vec<WalkEntry>, StoreError>>;
}

/// A backend's side of [`ArtifactStore`]: the same operations as `async fn`s over owned
/// paths. Every `Backend` is an [`ArtifactStore`]: the boxing that `dyn ArtifactStore`
/// needs is done once, by the blanket implementation below.
pub(crate) trait Backend: Send + Sync + 'static {
    /// [`ArtifactStore::put`].
    fn put_impl(
        &self,
        path: ArtifactPath,
        body: ByteStream,
        limit: u64,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;

    /// [`ArtifactStore::get`].
    fn get_impl(
        &self,
        path: ArtifactPath,
        range: Option<ByteRange>,
    ) -> impl Future<Output = Result<Object, StoreError>> + Send;

    /// [`ArtifactStore::list`].
    fn list_impl(
        &self,
        path: ArtifactPath,
    ) -> impl Future<Output = Result<Listing, StoreError>> + Send;

    /// [`ArtifactStore::delete`].
    fn delete_impl(
        &self,
        path: ArtifactPath,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// [`ArtifactStore::walk`].
    fn walk_impl(
        &self,
        path: ArtifactPath,
    ) -> impl Future<Output = Result<Vec<WalkEntry>, StoreError>> + Send;
}

impl<B: Backend> ArtifactStore for B {
    fn put(
        &self,
        path: &ArtifactPath,
        body: ByteStream,
        limit: u64,
    ) -> BoxFuture<'_, Result<u64, StoreError>> {
        self.put_impl(path.clone(), body, limit).boxed()
    }

    fn get(
        &self,
        path: &ArtifactPath,
        range: Option<ByteRange>,
    ) -> BoxFuture<'_, Result<Object, StoreError>> {
        self.get_impl(path.clone(), range).boxed()
    }

    fn list(&self, path: &ArtifactPath) -> BoxFuture<'_, Result<Listing, StoreError>> {
        self.list_impl(path.clone()).boxed()
    }

    fn delete(&self, path: &ArtifactPath) -> BoxFuture<'_, Result<(), StoreError>> {
        self.delete_impl(path.clone()).boxed()
    }

    fn walk(&self, path: &ArtifactPath) -> BoxFuture<'_, Result<Vec<WalkEntry>, StoreError>> {
        self.walk_impl(path.clone()).boxed()
    }
}

/// Sorts entries as [`Listing::Dir`] promises: folders first, then files, by name.
pub(crate) fn sort_entries(entries: &mut [Entry]) {
    entries.sort_by(|a, b| b.is_dir.cmp(&a.is_dir).then_with(|| a.name.cmp(&b.name)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_resolve_within_the_file() {
        let r = |start, end| ByteRange::From { start, end };
        assert_eq!(r(0, Some(9)).resolve(100), Some((0, 9)));
        assert_eq!(r(90, None).resolve(100), Some((90, 99)));
        assert_eq!(r(90, Some(500)).resolve(100), Some((90, 99)));
        assert_eq!(r(100, None).resolve(100), None);
        assert_eq!(r(5, Some(4)).resolve(100), None);
        assert_eq!(ByteRange::Suffix(10).resolve(100), Some((90, 99)));
        assert_eq!(ByteRange::Suffix(1000).resolve(100), Some((0, 99)));
        assert_eq!(ByteRange::Suffix(0).resolve(100), None);
        assert_eq!(ByteRange::Suffix(5).resolve(0), None);
    }
}
