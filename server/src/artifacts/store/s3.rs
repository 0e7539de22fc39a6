//! The object-store backend (`--artifacts-url s3://bucket/prefix`) over the `object_store`
//! crate. Uploads are multipart uploads, which S3 makes visible only when completed (an
//! aborted or oversize upload is aborted, so nothing appears); "folders" are key prefixes.

use std::sync::Arc;

use futures_util::{StreamExt, TryStreamExt};
use object_store::aws::AmazonS3Builder;
use object_store::path::Path as KeyPath;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt, WriteMultipart};

use super::{
    sort_entries, Backend, ByteRange, ByteStream, Entry, Listing, Object, StoreError, WalkEntry,
};
use crate::artifacts::ArtifactPath;

/// Parts uploaded at once per upload (each [`object_store`]'s 5 MiB chunk), so an upload
/// holds at most this many chunks in memory.
const PARTS_IN_FLIGHT: usize = 4;

/// Artifacts in an S3-compatible bucket under a key prefix.
#[derive(Debug, Clone)]
pub struct ObjectStoreBackend {
    store: Arc<dyn ObjectStore>,
    prefix: String,
}

fn storage(e: object_store::Error) -> StoreError {
    match e {
        object_store::Error::NotFound { path, .. } => {
            StoreError::NotFound(format!("No such artifact: '{path}'"))
        }
        other => StoreError::Io(other.to_string()),
    }
}

impl ObjectStoreBackend {
    /// The bucket and prefix of `url` (`s3://bucket[/prefix]`); endpoint, region and
    /// credentials from the `AWS_*` environment variables (`AWS_ENDPOINT` for an
    /// S3-compatible server; plain `http://` endpoints are allowed).
    pub fn from_url(url: &str) -> Result<Self, StoreError> {
        let rest = url
            .strip_prefix("s3://")
            .ok_or_else(|| StoreError::Io(format!("artifacts URL {url:?} is not s3://...")))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(StoreError::Io(format!(
                "artifacts URL {url:?} names no bucket"
            )));
        }
        let endpoint = std::env::var("AWS_ENDPOINT")
            .or_else(|_| std::env::var("AWS_ENDPOINT_URL"))
            .unwrap_or_default();
        let mut builder = AmazonS3Builder::from_env().with_bucket_name(bucket);
        if !endpoint.is_empty() {
            builder = builder
                .with_endpoint(&endpoint)
                .with_allow_http(endpoint.starts_with("http://"));
        }
        let store = builder
            .build()
            .map_err(|e| StoreError::Io(format!("artifacts URL {url:?}: {e}")))?;
        Ok(Self::new(Arc::new(store), prefix))
    }

    /// Over any object store, under `prefix`.
    pub fn new(store: Arc<dyn ObjectStore>, prefix: &str) -> Self {
        let prefix = prefix.trim_matches('/').to_owned();
        ObjectStoreBackend { store, prefix }
    }

    /// The key of `path` (`None`: the prefix itself).
    fn key(&self, path: &ArtifactPath) -> Option<KeyPath> {
        let full = match (self.prefix.as_str(), path.as_str()) {
            ("", "") => return None,
            ("", p) => p.to_owned(),
            (pre, "") => pre.to_owned(),
            (pre, p) => format!("{pre}/{p}"),
        };
        Some(KeyPath::from(full))
    }

    /// Whether any key lies under `key/`.
    async fn has_children(&self, key: Option<&KeyPath>) -> Result<bool, StoreError> {
        let mut s = self.store.list(key);
        Ok(s.try_next().await.map_err(storage)?.is_some())
    }
}

impl Backend for ObjectStoreBackend {
    async fn put_impl(
        &self,
        path: ArtifactPath,
        mut body: ByteStream,
        limit: u64,
    ) -> Result<u64, StoreError> {
        let key = self
            .key(&path)
            .ok_or_else(|| StoreError::Conflict("Invalid path".into()))?;
        let upload = self.store.put_multipart(&key).await.map_err(storage)?;
        let mut writer = WriteMultipart::new(upload);
        let mut written: u64 = 0;
        let failure = loop {
            match body.next().await {
                None => break None,
                Some(Err(e)) => break Some(StoreError::Aborted(e.to_string())),
                Some(Ok(chunk)) => {
                    written += chunk.len() as u64;
                    if written > limit {
                        break Some(StoreError::TooLarge { limit });
                    }
                    if let Err(e) = writer.wait_for_capacity(PARTS_IN_FLIGHT).await {
                        break Some(storage(e));
                    }
                    writer.put(chunk);
                }
            }
        };
        if let Some(e) = failure {
            let _ = writer.abort().await;
            return Err(e);
        }
        writer.finish().await.map_err(storage)?;
        Ok(written)
    }

    async fn get_impl(
        &self,
        path: ArtifactPath,
        range: Option<ByteRange>,
    ) -> Result<Object, StoreError> {
        let missing = || StoreError::no_artifact(&path);
        let key = self.key(&path).ok_or_else(missing)?;
        let meta = match self.store.head(&key).await {
            Ok(m) => m,
            Err(object_store::Error::NotFound { .. }) => {
                if self.has_children(Some(&key)).await? {
                    return Err(StoreError::folder_not_file(&path));
                }
                return Err(missing());
            }
            Err(e) => return Err(storage(e)),
        };
        let size = meta.size;
        let bounds = ByteRange::bounds(range, size)?;
        let body: ByteStream = if size == 0 {
            futures_util::stream::empty().boxed()
        } else {
            let (a, b) = bounds.unwrap_or((0, size - 1));
            let opts = GetOptions {
                range: Some(GetRange::Bounded(a..b + 1)),
                ..Default::default()
            };
            let got = self.store.get_opts(&key, opts).await.map_err(storage)?;
            got.into_stream().map_err(std::io::Error::other).boxed()
        };
        Ok(Object {
            size,
            range: bounds,
            body,
        })
    }

    async fn list_impl(&self, path: ArtifactPath) -> Result<Listing, StoreError> {
        let key = self.key(&path);
        let listed = self
            .store
            .list_with_delimiter(key.as_ref())
            .await
            .map_err(storage)?;
        let name = |p: &KeyPath| p.filename().map(str::to_owned);
        let mut entries: Vec<Entry> = Vec::new();
        for p in &listed.common_prefixes {
            if let Some(n) = name(p) {
                entries.push(Entry {
                    name: n,
                    is_dir: true,
                    size: None,
                });
            }
        }
        for o in &listed.objects {
            if let Some(n) = name(&o.location) {
                entries.push(Entry {
                    name: n,
                    is_dir: false,
                    size: Some(o.size),
                });
            }
        }
        if !entries.is_empty() {
            sort_entries(&mut entries);
            return Ok(Listing::Dir(entries));
        }
        let Some(key) = key else {
            return Ok(Listing::Dir(Vec::new()));
        };
        match self.store.head(&key).await {
            Ok(m) => Ok(Listing::File { size: m.size }),
            Err(object_store::Error::NotFound { .. }) => Ok(Listing::Missing),
            Err(e) => Err(storage(e)),
        }
    }

    async fn delete_impl(&self, path: ArtifactPath) -> Result<(), StoreError> {
        let Some(key) = self.key(&path) else {
            return Ok(());
        };
        match self.store.delete(&key).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(storage(e)),
        }
        let under = self.store.list(Some(&key)).map_ok(|m| m.location).boxed();
        let mut deleted = self.store.delete_stream(under);
        while let Some(r) = deleted.next().await {
            match r {
                Ok(_) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(storage(e)),
            }
        }
        Ok(())
    }

    async fn walk_impl(&self, path: ArtifactPath) -> Result<Vec<WalkEntry>, StoreError> {
        let key = self.key(&path);
        let base: Vec<String> = key
            .as_ref()
            .map(|k| k.parts().map(|p| p.as_ref().to_owned()).collect())
            .unwrap_or_default();
        let mut out = Vec::new();
        let mut s = self.store.list(key.as_ref());
        while let Some(m) = s.try_next().await.map_err(storage)? {
            let parts: Vec<String> = m.location.parts().map(|p| p.as_ref().to_owned()).collect();
            if parts.len() > base.len() && parts[..base.len()] == base[..] {
                out.push(WalkEntry {
                    path: parts[base.len()..].join("/"),
                    size: m.size,
                });
            }
        }
        if out.is_empty() {
            return Err(StoreError::no_folder(&path));
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifacts::ArtifactStore;
    use object_store::memory::InMemory;

    fn body(parts: &[&'static [u8]]) -> ByteStream {
        let chunks: Vec<Result<axum::body::Bytes, std::io::Error>> = parts
            .iter()
            .map(|p| Ok(axum::body::Bytes::from_static(p)))
            .collect();
        futures_util::stream::iter(chunks).boxed()
    }

    #[tokio::test]
    async fn round_trip_list_walk_and_delete_over_an_object_store() {
        let s = ObjectStoreBackend::new(Arc::new(InMemory::new()), "pre/fix");
        let p = |s: &str| ArtifactPath::parse(s).unwrap();
        assert_eq!(
            s.put(&p("1/r/a.txt"), body(&[b"he", b"llo"]), 100)
                .await
                .unwrap(),
            5
        );
        s.put(&p("1/r/d/b.bin"), body(&[b"xyz"]), 100)
            .await
            .unwrap();
        let got = s.get(&p("1/r/a.txt"), None).await.unwrap();
        let bytes: Vec<_> = got.body.try_collect::<Vec<_>>().await.unwrap().concat();
        assert_eq!(bytes, b"hello");
        let part = s
            .get(
                &p("1/r/a.txt"),
                Some(ByteRange::From {
                    start: 1,
                    end: Some(2),
                }),
            )
            .await
            .unwrap();
        assert_eq!(part.range, Some((1, 2)));
        let bytes: Vec<_> = part.body.try_collect::<Vec<_>>().await.unwrap().concat();
        assert_eq!(bytes, b"el");
        let Listing::Dir(entries) = s.list(&p("1/r")).await.unwrap() else {
            panic!("not a dir")
        };
        let names: Vec<_> = entries
            .iter()
            .map(|e| (e.name.as_str(), e.is_dir))
            .collect();
        assert_eq!(names, [("d", true), ("a.txt", false)]);
        assert_eq!(
            s.list(&p("1/r/a.txt")).await.unwrap(),
            Listing::File { size: 5 }
        );
        assert_eq!(s.list(&p("1/nope")).await.unwrap(), Listing::Missing);
        let walked: Vec<_> = s
            .walk(&p("1/r"))
            .await
            .unwrap()
            .into_iter()
            .map(|w| w.path)
            .collect();
        assert_eq!(walked, ["a.txt", "d/b.bin"]);
        assert!(matches!(
            s.get(&p("1/r/d"), None).await,
            Err(StoreError::Conflict(_))
        ));
        // Over the limit: nothing stored.
        let e = s.put(&p("1/r/big"), body(&[b"0123456789"]), 4).await;
        assert!(matches!(e, Err(StoreError::TooLarge { limit: 4 })));
        assert_eq!(s.list(&p("1/r/big")).await.unwrap(), Listing::Missing);
        s.delete(&p("1/r/d")).await.unwrap();
        assert_eq!(s.list(&p("1/r/d")).await.unwrap(), Listing::Missing);
        s.delete(&p("1/r/missing")).await.unwrap();
    }
}
