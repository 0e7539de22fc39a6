//! The Artifacts tab (`api_types::artifacts`): a run's or a logged model's artifacts, one
//! folder level a page, a file (streamed, `Range`, never run as script), a folder as a
//! streamed zip, and the summary of an `MLmodel` file. Paths are relative to the run's (or
//! model's) artifact root and cannot leave it.

use api_types::artifacts::{ArtifactEntry, ArtifactList, ArtifactQuery, ARTIFACT_PAGE};
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::artifact_root::Root;
use super::artifacts_mlmodel::mlmodel_summary;
use super::guard::{LoggedModelGuard, RunGuard, READ};
use crate::artifacts::download::{
    attachment, mlflow_mime_type, requested_range, respond, unsatisfiable, Raw,
};
use crate::artifacts::zip::zip_folder;
use crate::artifacts::{ArtifactPath, Listing, StoreError};
use crate::auth::Caller;
use crate::models::logged;
use crate::tracking::runs;
use crate::{AppState, Error};

fn bad_query(e: axum::extract::rejection::QueryRejection) -> Error {
    Error::BadRequest(format!("malformed query string: {}", e.body_text()))
}

fn query(
    q: Result<Query<ArtifactQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<ArtifactQuery, Error> {
    q.map(|Query(q)| q).map_err(bad_query)
}

async fn run_root(s: &AppState, run_id: String) -> Result<Root, Error> {
    let uri = s
        .store
        .call(move |c| Ok(runs::get_info(c, &run_id)?.artifact_uri))
        .await?;
    Ok(Root::of(uri))
}

async fn model_root(s: &AppState, model_id: String) -> Result<Root, Error> {
    let uri = s
        .store
        .call(move |c| Ok(logged::get(c, &model_id)?.artifact_uri))
        .await?;
    Ok(Root::of(uri))
}

/// Only the root itself may be missing (nothing logged yet): it lists as empty.
async fn list(s: &AppState, root: Root, q: ArtifactQuery) -> Result<Json<ArtifactList>, Error> {
    let rel = ArtifactPath::parse_or_root(&q.path)?;
    let offset = match q.page_token.as_deref().filter(|t| !t.is_empty()) {
        None => 0,
        Some(t) => t
            .parse::<usize>()
            .map_err(|_| Error::InvalidParameter(format!("invalid page_token '{t}'")))?,
    };
    let listing = match &root.path {
        Some(_) => s.artifacts.list(&root.resolve(&rel)?).await?,
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
    Ok(Json(ArtifactList {
        root_uri: root.uri,
        path: rel.to_string(),
        entries: page,
        next_page_token: (next < total).then(|| next.to_string()),
    }))
}

/// The content type of the app's file route: MLflow's guess, except that HTML (which
/// would run in a browser) is plain text, and text is UTF-8.
pub(crate) fn safe_content_type(name: &str) -> String {
    let t = mlflow_mime_type(name);
    let html = t == "text/html" || t == "application/xhtml+xml";
    if html || t == "text/plain" {
        "text/plain; charset=utf-8".into()
    } else {
        t
    }
}

async fn file(
    s: &AppState,
    root: Root,
    q: ArtifactQuery,
    headers: &HeaderMap,
) -> Result<Response, Error> {
    let rel = ArtifactPath::parse(&q.path)?;
    let name = rel.file_name().unwrap_or("artifact").to_owned();
    match s
        .artifacts
        .get(&root.resolve(&rel)?, requested_range(headers))
        .await
    {
        Ok(obj) => {
            let disposition = q.download.filter(|d| *d != 0).map(|_| attachment(&name));
            Ok(respond(obj, &safe_content_type(&name), disposition))
        }
        Err(StoreError::BadRange { size }) => Ok(unsatisfiable(size)),
        Err(e) => Err(e.into()),
    }
}

/// A folder as a streamed zip; one of `caller`'s download slots while it is sent.
async fn zip(
    s: &AppState,
    caller: &Caller,
    root: Root,
    q: ArtifactQuery,
) -> Result<Response, Error> {
    let rel = ArtifactPath::parse_or_root(&q.path)?;
    let name = rel.file_name().unwrap_or("artifacts").to_owned();
    let slot = s.downloads.acquire(caller)?;
    let body = zip_folder(s.artifacts.clone(), root.resolve(&rel)?, slot.steps()).await?;
    let mut r = slot.hold(body).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/zip"),
    );
    h.insert(
        header::CONTENT_DISPOSITION,
        attachment(&format!("{name}.zip")),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // Already deflated: gzip on top would only cost CPU.
    r.extensions_mut().insert(Raw);
    Ok(r)
}

type Q = Result<Query<ArtifactQuery>, axum::extract::rejection::QueryRejection>;

/// `GET /runs/{id}/artifacts?path=&page_token=`.
pub(crate) async fn run_list(
    State(s): State<AppState>,
    g: RunGuard<READ>,
    q: Q,
) -> Result<Json<ArtifactList>, Error> {
    let q = query(q)?;
    let root = run_root(&s, g.run_id).await?;
    list(&s, root, q).await
}

/// `GET /runs/{id}/artifacts/file?path=[&download=1]`.
pub(crate) async fn run_file(
    State(s): State<AppState>,
    g: RunGuard<READ>,
    headers: HeaderMap,
    q: Q,
) -> Result<Response, Error> {
    let q = query(q)?;
    let root = run_root(&s, g.run_id).await?;
    file(&s, root, q, &headers).await
}

/// `GET /runs/{id}/artifacts/zip?path=`.
pub(crate) async fn run_zip(
    State(s): State<AppState>,
    g: RunGuard<READ>,
    q: Q,
) -> Result<Response, Error> {
    let q = query(q)?;
    let root = run_root(&s, g.run_id).await?;
    zip(&s, &g.caller, root, q).await
}

/// `GET /runs/{id}/artifacts/mlmodel?path=`.
pub(crate) async fn run_mlmodel(
    State(s): State<AppState>,
    g: RunGuard<READ>,
    q: Q,
) -> Result<Response, Error> {
    let q = query(q)?;
    let root = run_root(&s, g.run_id).await?;
    Ok(Json(mlmodel_summary(&s, &root, &q.path).await?).into_response())
}

/// `GET /logged-models/{id}/artifacts?path=&page_token=`.
pub(crate) async fn model_list(
    State(s): State<AppState>,
    g: LoggedModelGuard<READ>,
    q: Q,
) -> Result<Json<ArtifactList>, Error> {
    let q = query(q)?;
    let root = model_root(&s, g.model_id).await?;
    list(&s, root, q).await
}

/// `GET /logged-models/{id}/artifacts/file?path=[&download=1]`.
pub(crate) async fn model_file(
    State(s): State<AppState>,
    g: LoggedModelGuard<READ>,
    headers: HeaderMap,
    q: Q,
) -> Result<Response, Error> {
    let q = query(q)?;
    let root = model_root(&s, g.model_id).await?;
    file(&s, root, q, &headers).await
}

/// `GET /logged-models/{id}/artifacts/zip?path=`.
pub(crate) async fn model_zip(
    State(s): State<AppState>,
    g: LoggedModelGuard<READ>,
    q: Q,
) -> Result<Response, Error> {
    let q = query(q)?;
    let root = model_root(&s, g.model_id).await?;
    zip(&s, &g.caller, root, q).await
}

/// `GET /logged-models/{id}/artifacts/mlmodel?path=`.
pub(crate) async fn model_mlmodel(
    State(s): State<AppState>,
    g: LoggedModelGuard<READ>,
    q: Q,
) -> Result<Response, Error> {
    let q = query(q)?;
    let root = model_root(&s, g.model_id).await?;
    Ok(Json(mlmodel_summary(&s, &root, &q.path).await?).into_response())
}
