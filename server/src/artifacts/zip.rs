//! A folder of artifacts as a zip, streamed: a blocking thread writes the archive (the
//! `zip` crate's streaming writer, data descriptors instead of seeks) into a bounded
//! channel that the response reads, pulling each file's bytes from the store as it goes;
//! memory stays bounded whatever the folder's size, and a client that goes away stops it.

use std::io::Write;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use futures_util::StreamExt;
use tokio::sync::mpsc;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::store::{ArtifactStore, StoreError, WalkEntry};
use super::ArtifactPath;

/// Bytes gathered before a block is sent to the response.
const BLOCK_BYTES: usize = 64 * 1024;
/// Blocks buffered between the writer and the response.
const BLOCKS_IN_FLIGHT: usize = 4;

type Block = Result<Bytes, std::io::Error>;

/// A `Write` into the response's channel, in blocks of [`BLOCK_BYTES`].
struct ChannelWriter {
    tx: mpsc::Sender<Block>,
    buf: Vec<u8>,
}

impl ChannelWriter {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let block = Bytes::from(std::mem::replace(
            &mut self.buf,
            Vec::with_capacity(BLOCK_BYTES),
        ));
        self.tx
            .blocking_send(Ok(block))
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "client went away"))
    }
}

impl Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= BLOCK_BYTES {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

/// The zip of every file under the folder `path` (entries named relative to it). Errors
/// before the first byte (no such folder) are returned; later ones abort the body, so the
/// client sees a failed download rather than a short archive.
pub async fn zip_folder(
    store: Arc<dyn ArtifactStore>,
    path: ArtifactPath,
) -> Result<Body, StoreError> {
    let files = store.walk(&path).await?;
    let (tx, rx) = mpsc::channel::<Block>(BLOCKS_IN_FLIGHT);
    let rt = tokio::runtime::Handle::current();
    let err_tx = tx.clone();
    tokio::task::spawn_blocking(move || {
        if let Err(e) = write_zip(&rt, store.as_ref(), &path, &files, tx) {
            let _ = err_tx.blocking_send(Err(e));
        }
    });
    // Fused: the compression layer polls the body once more after it has ended.
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|block| (block, rx))
    })
    .fuse();
    Ok(Body::from_stream(stream))
}

fn write_zip(
    rt: &tokio::runtime::Handle,
    store: &dyn ArtifactStore,
    base: &ArtifactPath,
    files: &[WalkEntry],
    tx: mpsc::Sender<Block>,
) -> std::io::Result<()> {
    let mut zip = ZipWriter::new_stream(ChannelWriter {
        tx,
        buf: Vec::with_capacity(BLOCK_BYTES),
    });
    for f in files {
        let path = base
            .join(&f.path)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Deflated)
            .large_file(f.size >= u64::from(u32::MAX));
        zip.start_file(f.path.as_str(), options)
            .map_err(std::io::Error::other)?;
        let obj = rt
            .block_on(store.get(&path, None))
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let mut body = obj.body;
        while let Some(chunk) = rt.block_on(body.next()) {
            zip.write_all(&chunk?)?;
        }
    }
    let mut inner = zip.finish().map_err(std::io::Error::other)?;
    inner.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifacts::LocalStore;
    use http_body_util::BodyExt;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_folder_zips_with_relative_names() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalStore::open(dir.path()).unwrap();
        let root = store.root().to_path_buf();
        std::fs::create_dir_all(root.join("1/r/m/sub")).unwrap();
        std::fs::write(root.join("1/r/m/a.txt"), b"alpha").unwrap();
        std::fs::write(root.join("1/r/m/sub/b.bin"), vec![7u8; 300_000]).unwrap();
        let body = zip_folder(Arc::new(store), ArtifactPath::parse("1/r/m").unwrap())
            .await
            .unwrap();
        let bytes = body.collect().await.unwrap().to_bytes();
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
        let mut names: Vec<String> = archive
            .file_names()
            .map(|n| n.unwrap().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a.txt", "sub/b.bin"]);
        let mut s = String::new();
        std::io::Read::read_to_string(&mut archive.by_name("a.txt").unwrap(), &mut s).unwrap();
        assert_eq!(s, "alpha");
        assert_eq!(archive.by_name("sub/b.bin").unwrap().size(), 300_000);
    }
}
