//! A page of a folder's listing under a run's or a logged model's artifact root (the
//! Artifacts tab): one folder level, [`ARTIFACT_PAGE`] entries a page.

use api_types::artifacts::{ArtifactEntry, ArtifactList, ArtifactQuery, ARTIFACT_PAGE};

use super::{ArtifactPath, ArtifactStore, Listing, Root};
use crate::Error;

/// The page of `q.path` (relative to `root`) that `q.page_token` names: a file lists as
/// itself. Only the root itself may be missing (nothing logged yet): it lists as empty.
pub(crate) async fn list_page(
    store: &dyn ArtifactStore,
    root: Root,
    q: &ArtifactQuery,
) -> Result<ArtifactList, Error> {
    let rel = ArtifactPath::parse_or_root(&q.path)?;
    let offset = match q.page_token.as_deref().filter(|t| !t.is_empty()) {
        None => 0,
        Some(t) => t
            .parse::<usize>()
            .map_err(|_| Error::InvalidParameter(format!("invalid page_token '{t}'")))?,
    };
    let listing = match &root.path {
        Some(_) => store.list(&root.resolve(&rel)?).await?,
        None => Listing::Missing,
    };
    let entries: Vec<ArtifactEntry> = match listing {
        Listing::Missing if rel.is_root() => Vec::new(),
        Listing::Missing => {
            return Err(Error::NotFound(format!("no artifact at '{rel}'")));
        }
        Listing::File { size } => vec![ArtifactEntry {
            path: rel.to_string(),
            is_dir: false,
            size: Some(size),
        }],
        Listing::Dir(entries) => entries
            .into_iter()
            .map(|e| ArtifactEntry {
                path: rel.join(&e.name).map(|p| p.to_string()).unwrap_or(e.name),
                is_dir: e.is_dir,
                size: e.size,
            })
            .collect(),
    };
    let total = entries.len();
    let page: Vec<ArtifactEntry> = entries
        .into_iter()
        .skip(offset)
        .take(ARTIFACT_PAGE)
        .collect();
    let next = offset + page.len();
    Ok(ArtifactList {
        root_uri: root.uri,
        path: rel.to_string(),
        entries: page,
        next_page_token: (next < total).then(|| next.to_string()),
    })
}
