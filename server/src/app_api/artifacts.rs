//! The Artifacts tab (`api_types::artifacts`): a run's or a logged model's artifacts, one
//! folder level a page, a file (streamed, `Range`, never run as script), a folder as a
//! streamed zip, and the summary of an `MLmodel` file. Paths are relative to the run's (or
//! model's) artifact root and cannot leave it.

use api_types::artifacts::{ArtifactList, ArtifactQuery};
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::guard::{LoggedModelGuard, RunGuard, READ};
use super::query::typed_query;
use crate::artifacts::http::download::{
    attachment, requested_range, respond, safe_content_type, unsatisfiable, Raw,
};
use crate::artifacts::http::zip::zip_folder;
use crate::artifacts::listing::list_page;
use crate::artifacts::mlmodel::mlmodel_summary;
use crate::artifacts::{ArtifactPath, Root, StoreError};
use crate::auth::Caller;
use crate::{AppState, Error};

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

/// Where run `run_id`'s artifacts live.
async fn run_root(s: &AppState, run_id: String) -> Result<Root, Error> {
    s.store.call(move |c| Root::of_run(c, &run_id)).await
}

/// Where logged model `model_id`'s artifacts live.
async fn model_root(s: &AppState, model_id: String) -> Result<Root, Error> {
    s.store.call(move |c| Root::of_model(c, &model_id)).await
}

/// A folder's page as JSON.
async fn list(s: &AppState, root: Root, q: ArtifactQuery) -> Result<Json<ArtifactList>, Error> {
    Ok(Json(list_page(s.artifacts.as_ref(), root, &q).await?))
}

type Q = Result<Query<ArtifactQuery>, axum::extract::rejection::QueryRejection>;

/// `GET /runs/{id}/artifacts?path=&page_token=`.
pub(crate) async fn run_list(
    State(s): State<AppState>,
    g: RunGuard<READ>,
    q: Q,
) -> Result<Json<ArtifactList>, Error> {
    let q = typed_query(q)?;
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
    let q = typed_query(q)?;
    let root = run_root(&s, g.run_id).await?;
    file(&s, root, q, &headers).await
}

/// `GET /runs/{id}/artifacts/zip?path=`.
pub(crate) async fn run_zip(
    State(s): State<AppState>,
    g: RunGuard<READ>,
    q: Q,
) -> Result<Response, Error> {
    let q = typed_query(q)?;
    let root = run_root(&s, g.run_id).await?;
    zip(&s, &g.caller, root, q).await
}

/// `GET /runs/{id}/artifacts/mlmodel?path=`.
pub(crate) async fn run_mlmodel(
    State(s): State<AppState>,
    g: RunGuard<READ>,
    q: Q,
) -> Result<Response, Error> {
    let q = typed_query(q)?;
    let root = run_root(&s, g.run_id).await?;
    Ok(Json(mlmodel_summary(s.artifacts.as_ref(), &root, &q.path).await?).into_response())
}

/// `GET /logged-models/{id}/artifacts?path=&page_token=`.
pub(crate) async fn model_list(
    State(s): State<AppState>,
    g: LoggedModelGuard<READ>,
    q: Q,
) -> Result<Json<ArtifactList>, Error> {
    let q = typed_query(q)?;
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
    let q = typed_query(q)?;
    let root = model_root(&s, g.model_id).await?;
    file(&s, root, q, &headers).await
}

/// `GET /logged-models/{id}/artifacts/zip?path=`.
pub(crate) async fn model_zip(
    State(s): State<AppState>,
    g: LoggedModelGuard<READ>,
    q: Q,
) -> Result<Response, Error> {
    let q = typed_query(q)?;
    let root = model_root(&s, g.model_id).await?;
    zip(&s, &g.caller, root, q).await
}

/// `GET /logged-models/{id}/artifacts/mlmodel?path=`.
pub(crate) async fn model_mlmodel(
    State(s): State<AppState>,
    g: LoggedModelGuard<READ>,
    q: Q,
) -> Result<Response, Error> {
    let q = typed_query(q)?;
    let root = model_root(&s, g.model_id).await?;
    Ok(Json(mlmodel_summary(s.artifacts.as_ref(), &root, &q.path).await?).into_response())
}
