//! A folder of artifacts as a zip, streamed (the `zip` crate's streaming writer, data
//! descriptors instead of seeks). The archive is made a block at a time, only when the
//! response asks for the next one: the files' bytes are read from the store without
//! blocking, and each block's compression is one short step on the blocking pool
//! (`Steps`). Between blocks nothing waits: a client that reads slowly or not at all
//! holds no thread, only the paused writer (its compressor's state and at most one block);
//! memory stays bounded whatever the folder's size, and a client that goes away drops it.

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::{Body, Bytes};
use futures_util::StreamExt;
use zip::write::{SimpleFileOptions, StreamWriter};
use zip::{CompressionMethod, ZipWriter};

use crate::artifacts::store::ByteStream;
use crate::artifacts::{ArtifactPath, ArtifactStore, StoreError, WalkEntry};
use crate::downloads::Steps;

/// Bytes of a file compressed in one call, and about the size of a block of the body.
const BLOCK_BYTES: usize = 64 * 1024;

/// Where the writer puts the archive's bytes until they are sent: shared between the
/// writer (which owns one handle, inside the `ZipWriter`) and the stream that takes them.
#[derive(Clone, Default)]
struct Output(Arc<Mutex<Vec<u8>>>);

impl Output {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn len(&self) -> usize {
        self.lock().len()
    }

    fn take(&self) -> Bytes {
        Bytes::from(std::mem::take(&mut *self.lock()))
    }
}

impl Write for Output {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.lock().extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

type Writer = ZipWriter<StreamWriter<Output>>;

/// The archive being made: the writer (lent to the blocking pool for each step), the files
/// still to add and the one being read.
struct Zipper {
    store: Arc<dyn ArtifactStore>,
    base: ArtifactPath,
    files: std::vec::IntoIter<WalkEntry>,
    reading: Option<ByteStream>,
    writer: Option<Writer>,
    out: Output,
    steps: Steps,
}

/// The zip of every file under the folder `path` (entries named relative to it). Errors
/// before the first byte (no such folder) are returned; later ones abort the body, so the
/// client sees a failed download rather than a short archive. Compression takes `steps`'
/// turns.
pub(crate) async fn zip_folder(
    store: Arc<dyn ArtifactStore>,
    path: ArtifactPath,
    steps: Steps,
) -> Result<Body, StoreError> {
    let files = store.walk(&path).await?;
    let out = Output::default();
    let zipper = Zipper {
        store,
        base: path,
        files: files.into_iter(),
        reading: None,
        writer: Some(ZipWriter::new_stream(out.clone())),
        out,
        steps,
    };
    let blocks = futures_util::stream::try_unfold(zipper, |mut z| async move {
        Ok::<_, std::io::Error>(z.next_block().await?.map(|block| (block, z)))
    });
    // Fused: the compression layer polls the body once more after it has ended.
    Ok(Body::from_stream(blocks.fuse()))
}

impl Zipper {
    /// The next block of the archive; `None` once it has all been sent.
    async fn next_block(&mut self) -> std::io::Result<Option<Bytes>> {
        while self.out.len() < BLOCK_BYTES {
            if let Some(body) = &mut self.reading {
                let data = read_up_to(body, BLOCK_BYTES).await?;
                if data.is_empty() {
                    self.reading = None;
                } else {
                    self.step(move |w| data.iter().try_for_each(|d| w.write_all(d)))
                        .await?;
                }
                continue;
            }
            let Some(file) = self.files.next() else {
                if self.writer.is_some() {
                    self.finish().await?;
                }
                break;
            };
            let path = self
                .base
                .join(&file.path)
                .map_err(|e| std::io::Error::other(e.to_string()))?;
            let options = SimpleFileOptions::default()
                .compression_method(CompressionMethod::Deflated)
                .large_file(file.size >= u64::from(u32::MAX));
            // Ends the previous entry (its compressor's last bytes) and starts this one.
            self.step(move |w| {
                w.start_file(file.path.as_str(), options)
                    .map_err(std::io::Error::other)
            })
            .await?;
            let obj = self
                .store
                .get(&path, None)
                .await
                .map_err(|e| std::io::Error::other(e.to_string()))?;
            self.reading = Some(obj.body);
        }
        let block = self.out.take();
        Ok((!block.is_empty()).then_some(block))
    }

    /// Runs `f` on the writer, a step on the blocking pool (compression is CPU work).
    async fn step<F>(&mut self, f: F) -> std::io::Result<()>
    where
        F: FnOnce(&mut Writer) -> std::io::Result<()> + Send + 'static,
    {
        let mut w = self
            .writer
            .take()
            .ok_or_else(|| std::io::Error::other("zip writer already finished"))?;
        let w = self
            .steps
            .run(move || f(&mut w).map(|()| w))
            .await
            .map_err(|e| std::io::Error::other(e.to_string()))??;
        self.writer = Some(w);
        Ok(())
    }

    /// Writes the central directory (the last entry's end first).
    async fn finish(&mut self) -> std::io::Result<()> {
        let Some(w) = self.writer.take() else {
            return Ok(());
        };
        self.steps
            .run(move || w.finish().map(drop).map_err(std::io::Error::other))
            .await
            .map_err(|e| std::io::Error::other(e.to_string()))?
    }
}

/// Up to about `limit` bytes of `body` (whole chunks, so possibly a little more); empty at
/// its end.
async fn read_up_to(body: &mut ByteStream, limit: usize) -> std::io::Result<Vec<Bytes>> {
    let mut data = Vec::new();
    let mut len = 0;
    while len < limit {
        let Some(chunk) = body.next().await else {
            break;
        };
        let chunk = chunk?;
        len += chunk.len();
        data.push(chunk);
    }
    Ok(data)
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
        let body = zip_folder(
            Arc::new(store),
            ArtifactPath::parse("1/r/m").unwrap(),
            Steps::new(1),
        )
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
