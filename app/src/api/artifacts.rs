//! Artifact calls of the Artifacts tab, for runs and logged models alike: one folder level,
//! the `MLmodel` summary, byte ranges of a file (text previews are paged), and the links
//! of a file, its download and a folder's zip.

use api_types::artifacts::{ArtifactList, MlModelSummary};
use gloo_net::http::{Method, RequestBuilder};

use super::http::{get, send_with, ApiError, ErrorCode, On401};
use crate::query::{encode_component, Query};

/// Whose artifacts: a run's or a logged model's (same routes under another prefix).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ArtifactOwner {
    /// A run, by id.
    Run(String),
    /// A logged model, by model id.
    LoggedModel(String),
}

impl ArtifactOwner {
    /// `/api/v1/runs/{id}/artifacts` or `/api/v1/logged-models/{id}/artifacts`, then `tail`.
    fn route(&self, tail: &str) -> String {
        let (kind, id) = match self {
            ArtifactOwner::Run(id) => ("runs", id),
            ArtifactOwner::LoggedModel(id) => ("logged-models", id),
        };
        format!("/api/v1/{kind}/{}/artifacts{tail}", encode_component(id))
    }

    /// The URL of `tail` with `?path=` (and more pairs).
    fn url(&self, tail: &str, path: &str, more: &[(&'static str, &str)]) -> String {
        more.iter()
            .fold(Query::new().with("path", path), |q, (k, v)| q.with(k, *v))
            .url(&self.route(tail))
    }

    /// The file's bytes, as the preview's `<img>` loads them.
    pub fn file_url(&self, path: &str) -> String {
        self.url("/file", path, &[])
    }

    /// The file as an attachment (the browser saves it).
    pub fn download_url(&self, path: &str) -> String {
        self.url("/file", path, &[("download", "1")])
    }

    /// A folder as a streamed zip (`""`: everything).
    pub fn zip_url(&self, path: &str) -> String {
        self.url("/zip", path, &[])
    }
}

/// `GET .../artifacts?path=&page_token=`: one folder level.
pub async fn list_artifacts(
    owner: ArtifactOwner,
    path: String,
    page_token: Option<String>,
) -> Result<ArtifactList, ApiError> {
    let token = page_token.as_deref().map(|t| ("page_token", t));
    get(&owner.url("", &path, token.as_slice())).await
}

/// `GET .../artifacts/mlmodel?path=`: what the `MLmodel` file at `path` says.
pub async fn get_mlmodel(owner: ArtifactOwner, path: String) -> Result<MlModelSummary, ApiError> {
    get(&owner.url("/mlmodel", &path, &[])).await
}

/// A byte range of a file, as [`get_artifact_range`] returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteRange {
    /// Offset of the first byte.
    pub start: u64,
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Size of the whole file, when the server said it.
    pub total: Option<u64>,
}

/// The file size in a `Content-Range: bytes a-b/total` header (`*` or junk: `None`).
pub fn content_range_total(header: &str) -> Option<u64> {
    header.rsplit_once('/')?.1.trim().parse().ok()
}

/// `GET .../artifacts/file?path=` with `Range: bytes=start-(start+len-1)`: up to `len`
/// bytes from `start` (a server ignoring the range answers 200 with the whole file, whose
/// length is then the total; an offset past the end gives no bytes).
pub async fn get_artifact_range(
    owner: ArtifactOwner,
    path: String,
    start: u64,
    len: u64,
) -> Result<ByteRange, ApiError> {
    let range = format!("bytes={start}-{}", start + len.max(1) - 1);
    let req = RequestBuilder::new(&owner.file_url(&path)).header("Range", &range);
    let resp = send_with(req, Method::GET, None, On401::Redirect).await?;
    let total = resp
        .headers()
        .get("content-range")
        .and_then(|h| content_range_total(&h));
    match resp.status() {
        416 => Ok(ByteRange {
            start,
            bytes: Vec::new(),
            total: total.or(Some(start)),
        }),
        206 => Ok(ByteRange {
            start,
            bytes: read_bytes(resp).await?,
            total,
        }),
        _ => {
            let all = read_bytes(resp).await?;
            let from = usize::try_from(start).unwrap_or(usize::MAX).min(all.len());
            let to = from
                .saturating_add(usize::try_from(len).unwrap_or(usize::MAX))
                .min(all.len());
            Ok(ByteRange {
                start,
                bytes: all[from..to].to_vec(),
                total: Some(all.len() as u64),
            })
        }
    }
}

async fn read_bytes(resp: gloo_net::http::Response) -> Result<Vec<u8>, ApiError> {
    resp.binary().await.map_err(|e| ApiError {
        code: ErrorCode::Network,
        message: format!("The file could not be read: {e}"),
        grantors: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_cover_runs_and_logged_models() {
        let run = ArtifactOwner::Run("abc".into());
        assert_eq!(
            run.file_url("a b/c.txt"),
            "/api/v1/runs/abc/artifacts/file?path=a+b/c.txt"
        );
        assert_eq!(
            run.download_url("x&y"),
            "/api/v1/runs/abc/artifacts/file?path=x%26y&download=1"
        );
        let m = ArtifactOwner::LoggedModel("m-1".into());
        assert_eq!(
            m.zip_url(""),
            "/api/v1/logged-models/m-1/artifacts/zip?path="
        );
        assert_eq!(
            m.url("/mlmodel", "model", &[]),
            "/api/v1/logged-models/m-1/artifacts/mlmodel?path=model"
        );
    }

    #[test]
    fn content_range_gives_the_total() {
        assert_eq!(content_range_total("bytes 0-9/1234"), Some(1234));
        assert_eq!(content_range_total("bytes 0-9/*"), None);
        assert_eq!(content_range_total("junk"), None);
    }
}
