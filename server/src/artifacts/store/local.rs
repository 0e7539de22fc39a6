//! The local-folder backend: `<root>/<artifact path>`. Uploads stream into a temp file
//! under `<root>/.uploads/`, are fsynced and renamed into place, so a file is complete or
//! absent; temp files left by a crash are removed when the store opens. Symbolic links
//! inside the root are followed only while they stay inside it.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
use tokio_util::io::ReaderStream;

use super::{
    sort_entries, Backend, ByteRange, ByteStream, Entry, Listing, Object, StoreError, WalkEntry,
};
use crate::artifacts::path::UPLOADS_DIR;
use crate::artifacts::ArtifactPath;

/// Bytes read from disk at a time when streaming a download.
const READ_CHUNK: usize = 256 * 1024;

/// Artifacts in a local folder.
#[derive(Debug, Clone)]
pub struct LocalStore {
    /// The root, canonical.
    root: PathBuf,
    /// `<root>/.uploads`.
    uploads: PathBuf,
}

/// Removes an upload's temp file unless it was renamed into place (also when the upload's
/// future is dropped because the client went away).
struct TempFile {
    path: PathBuf,
    keep: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// A folder where the file `path` would go.
async fn folder_in_the_way(path: &ArtifactPath, target: &Path) -> Result<(), StoreError> {
    if tokio::fs::metadata(target).await.is_ok_and(|m| m.is_dir()) {
        return Err(StoreError::Conflict(format!(
            "Cannot store an artifact at '{path}': a folder is there"
        )));
    }
    Ok(())
}

/// `path` with its deepest existing ancestor canonicalized (links resolved) and the
/// missing rest appended.
fn canonical(path: &Path) -> std::io::Result<PathBuf> {
    match path.canonicalize() {
        Ok(c) => Ok(c),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let absolute = std::path::absolute(path)?;
            match (absolute.parent(), absolute.file_name()) {
                (Some(parent), Some(name)) => Ok(canonical(parent)?.join(name)),
                _ => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

fn blocking_failed(e: tokio::task::JoinError) -> StoreError {
    StoreError::Io(format!("artifact task failed: {e}"))
}

impl LocalStore {
    /// Opens (creating) the folder `root`; removes unfinished uploads left by a crash.
    pub fn open(root: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(root)
            .map_err(|e| StoreError::Io(format!("cannot create {}: {e}", root.display())))?;
        Self::at(root)
    }

    /// The store over the folder `root`, which is only created by the first upload (so a
    /// data directory without artifacts stays as it was); removes unfinished uploads left
    /// by a crash.
    pub(crate) fn at(root: &Path) -> Result<Self, StoreError> {
        let io = |what: &str, e: std::io::Error| {
            StoreError::Io(format!("{what} {}: {e}", root.display()))
        };
        let root = canonical(root).map_err(|e| io("cannot open", e))?;
        let uploads = root.join(UPLOADS_DIR);
        match std::fs::remove_dir_all(&uploads) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(io("cannot clear unfinished uploads in", e)),
        }
        Ok(LocalStore { root, uploads })
    }

    /// The root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether the canonical path `c` lies inside the root and outside the uploads folder.
    fn inside(&self, c: &Path) -> bool {
        c.starts_with(&self.root) && !c.starts_with(&self.uploads)
    }

    /// The canonical location of `path` if something is there and it stays inside the root
    /// (a link out of the root counts as nothing).
    fn resolve(&self, path: &ArtifactPath) -> Result<Option<PathBuf>, StoreError> {
        match self.root.join(path.as_str()).canonicalize() {
            Ok(c) if self.inside(&c) => Ok(Some(c)),
            Ok(_) => Ok(None),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The folder that will hold `path` (created when `create`), checked to lie inside the
    /// root: its deepest existing ancestor is resolved first, so no link can take the new
    /// folders outside.
    fn prepare_parent(&self, path: &ArtifactPath, create: bool) -> Result<PathBuf, StoreError> {
        let full = self.root.join(path.as_str());
        let parent = full.parent().unwrap_or(&self.root).to_path_buf();
        let mut existing = parent.as_path();
        let mut missing = Vec::new();
        loop {
            match std::fs::symlink_metadata(existing) {
                Ok(_) => break,
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    if let Some(name) = existing.file_name() {
                        missing.push(name.to_owned());
                    }
                    existing = existing.parent().unwrap_or(&self.root);
                }
                Err(e) => return Err(e.into()),
            }
        }
        let conflict = || StoreError::Conflict(format!("Cannot store an artifact at '{path}'"));
        let base = existing.canonicalize().map_err(|_| conflict())?;
        if !(self.inside(&base) && base.is_dir()) {
            return Err(conflict());
        }
        let mut dir = base;
        for name in missing.into_iter().rev() {
            dir.push(name);
            if !create {
                continue;
            }
            match std::fs::create_dir(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::AlreadyExists && dir.is_dir() => {}
                Err(_) => return Err(conflict()),
            }
        }
        Ok(dir)
    }

    /// [`LocalStore::prepare_parent`] on the blocking pool.
    async fn parent_blocking(
        &self,
        path: &ArtifactPath,
        create: bool,
    ) -> Result<PathBuf, StoreError> {
        let (this, p) = (self.clone(), path.clone());
        tokio::task::spawn_blocking(move || this.prepare_parent(&p, create))
            .await
            .map_err(blocking_failed)?
    }

    fn list_blocking(&self, path: &ArtifactPath) -> Result<Listing, StoreError> {
        let Some(full) = self.resolve(path)? else {
            return Ok(Listing::Missing);
        };
        let meta = std::fs::metadata(&full)?;
        if !meta.is_dir() {
            return Ok(Listing::File { size: meta.len() });
        }
        let mut entries = Vec::new();
        for e in std::fs::read_dir(&full)? {
            let e = e?;
            let Ok(name) = e.file_name().into_string() else {
                continue;
            };
            if full == self.root && name == UPLOADS_DIR {
                continue;
            }
            let Some((is_dir, size)) = self.entry_kind(&e.path())? else {
                continue;
            };
            entries.push(Entry {
                name,
                is_dir,
                size: (!is_dir).then_some(size),
            });
        }
        sort_entries(&mut entries);
        Ok(Listing::Dir(entries))
    }

    /// (is folder, size) of a folder entry; `None` for links leading out of the root,
    /// dangling links and other odd files.
    fn entry_kind(&self, p: &Path) -> Result<Option<(bool, u64)>, StoreError> {
        let meta = std::fs::symlink_metadata(p)?;
        let meta = if meta.file_type().is_symlink() {
            match p.canonicalize() {
                Ok(c) if self.inside(&c) => std::fs::metadata(&c)?,
                _ => return Ok(None),
            }
        } else {
            meta
        };
        if meta.is_dir() {
            Ok(Some((true, 0)))
        } else if meta.is_file() {
            Ok(Some((false, meta.len())))
        } else {
            Ok(None)
        }
    }

    fn delete_blocking(&self, path: &ArtifactPath) -> Result<(), StoreError> {
        let full = self.root.join(path.as_str());
        // The folder holding it must resolve inside the root (no deleting through a link).
        let parent = full.parent().unwrap_or(&self.root);
        let parent = match parent.canonicalize() {
            Ok(c) if self.inside(&c) => c,
            Ok(_) => return Ok(()),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                return Ok(())
            }
            Err(e) => return Err(e.into()),
        };
        let Some(name) = full.file_name() else {
            return Ok(());
        };
        let target = parent.join(name);
        let result = match std::fs::symlink_metadata(&target) {
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e.into()),
            // `remove_dir_all` removes links inside without following them.
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&target),
            Ok(_) => std::fs::remove_file(&target),
        };
        match result {
            Err(e) if e.kind() != ErrorKind::NotFound => Err(e.into()),
            _ => Ok(()),
        }
    }

    fn walk_blocking(&self, path: &ArtifactPath) -> Result<Vec<WalkEntry>, StoreError> {
        let missing = || StoreError::no_folder(path);
        let full = self.resolve(path)?.ok_or_else(missing)?;
        if !full.is_dir() {
            return Err(missing());
        }
        let mut out = Vec::new();
        let mut stack = vec![(full, String::new())];
        while let Some((dir, prefix)) = stack.pop() {
            for e in std::fs::read_dir(&dir)? {
                let e = e?;
                let Ok(name) = e.file_name().into_string() else {
                    continue;
                };
                if dir == self.root && name == UPLOADS_DIR {
                    continue;
                }
                let rel = if prefix.is_empty() {
                    name
                } else {
                    format!("{prefix}/{name}")
                };
                // Folders reached through links are not descended (no cycles).
                let is_link = e.file_type()?.is_symlink();
                match self.entry_kind(&e.path())? {
                    Some((true, _)) if !is_link => stack.push((e.path(), rel)),
                    Some((false, size)) => out.push(WalkEntry { path: rel, size }),
                    _ => {}
                }
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Runs `f` on a clone of the store on the blocking pool.
    async fn blocking<T: Send + 'static>(
        &self,
        path: &ArtifactPath,
        f: fn(&LocalStore, &ArtifactPath) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let (this, path) = (self.clone(), path.clone());
        tokio::task::spawn_blocking(move || f(&this, &path))
            .await
            .map_err(blocking_failed)?
    }
}

impl Backend for LocalStore {
    async fn put_impl(
        &self,
        path: ArtifactPath,
        mut body: ByteStream,
        limit: u64,
    ) -> Result<u64, StoreError> {
        let name = path
            .file_name()
            .ok_or_else(|| StoreError::Conflict("Invalid path".into()))?
            .to_owned();
        // The root (with its uploads folder) is made by the first upload.
        tokio::fs::create_dir_all(&self.uploads).await?;
        // Refused before the body is read; folders are only made once it has arrived, so a
        // failed upload leaves no empty folder behind either.
        let dir = self.parent_blocking(&path, false).await?;
        folder_in_the_way(&path, &dir.join(&name)).await?;
        let mut temp = TempFile {
            path: self
                .uploads
                .join(format!("{}.part", uuid::Uuid::new_v4().simple())),
            keep: false,
        };
        let mut file = tokio::fs::File::create(&temp.path).await?;
        let mut written: u64 = 0;
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| StoreError::Aborted(e.to_string()))?;
            written += chunk.len() as u64;
            if written > limit {
                return Err(StoreError::TooLarge { limit });
            }
            file.write_all(&chunk).await?;
        }
        file.flush().await?;
        file.sync_all().await?;
        drop(file);
        let dir = self.parent_blocking(&path, true).await?;
        let target = dir.join(&name);
        folder_in_the_way(&path, &target).await?;
        tokio::fs::rename(&temp.path, &target).await?;
        temp.keep = true;
        // The rename itself survives a crash once the folder is synced.
        let _ = tokio::task::spawn_blocking(move || {
            std::fs::File::open(&dir).and_then(|d| d.sync_all())
        })
        .await;
        Ok(written)
    }

    async fn get_impl(
        &self,
        path: ArtifactPath,
        range: Option<ByteRange>,
    ) -> Result<Object, StoreError> {
        let missing = || StoreError::no_artifact(&path);
        let full = self.resolve(&path)?.ok_or_else(missing)?;
        let meta = tokio::fs::metadata(&full).await?;
        if meta.is_dir() {
            return Err(StoreError::folder_not_file(&path));
        }
        let size = meta.len();
        let bounds = ByteRange::bounds(range, size)?;
        let mut file = tokio::fs::File::open(&full).await?;
        let (start, len) = match bounds {
            Some((a, b)) => (a, b - a + 1),
            None => (0, size),
        };
        if start > 0 {
            file.seek(std::io::SeekFrom::Start(start)).await?;
        }
        let body = ReaderStream::with_capacity(file.take(len), READ_CHUNK).boxed();
        Ok(Object {
            size,
            range: bounds,
            body,
        })
    }

    async fn list_impl(&self, path: ArtifactPath) -> Result<Listing, StoreError> {
        self.blocking(&path, LocalStore::list_blocking).await
    }

    async fn delete_impl(&self, path: ArtifactPath) -> Result<(), StoreError> {
        self.blocking(&path, LocalStore::delete_blocking).await
    }

    async fn walk_impl(&self, path: ArtifactPath) -> Result<Vec<WalkEntry>, StoreError> {
        self.blocking(&path, LocalStore::walk_blocking).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifacts::ArtifactStore;

    fn body(bytes: &'static [u8]) -> ByteStream {
        futures_util::stream::iter([Ok(axum::body::Bytes::from_static(bytes))]).boxed()
    }

    #[tokio::test]
    async fn the_folder_appears_with_the_first_upload_and_leftovers_go_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("artifacts");
        let store = LocalStore::at(&root).unwrap();
        assert!(!root.exists(), "nothing made before an upload");
        let p = ArtifactPath::parse("1/r/a.txt").unwrap();
        assert_eq!(store.list(&p).await.unwrap(), Listing::Missing);
        assert_eq!(store.put(&p, body(b"abc"), 10).await.unwrap(), 3);
        assert_eq!(std::fs::read(root.join("1/r/a.txt")).unwrap(), b"abc");
        // A crash left a temp file: the next start removes it.
        std::fs::write(root.join(UPLOADS_DIR).join("x.part"), b"half").unwrap();
        let _again = LocalStore::at(&root).unwrap();
        assert!(!root.join(UPLOADS_DIR).join("x.part").exists());
        assert_eq!(std::fs::read(root.join("1/r/a.txt")).unwrap(), b"abc");
    }
}
