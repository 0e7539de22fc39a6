//! The Models pages: registered models the caller may read (`GET /registered-models`) and
//! one model with every version (`GET /registered-models/{name}`)
//! ([`crate::registry::pages`]).

use api_types::models::{RegisteredModelDetail, RegisteredModelList};
use axum::extract::State;
use axum::Json;

use super::guard::{RegisteredModelGuard, READ};
use super::query::QueryParams;
use crate::auth::Caller;
use crate::registry::pages;
use crate::tracking::page_token;
use crate::{AppState, Error};

/// `GET /api/v1/registered-models?q=&page_token=`: the models the caller may read whose
/// name contains `q` (case-insensitive), by name, [`pages::PAGE_SIZE`] per page.
pub(crate) async fn list_registered_models(
    State(state): State<AppState>,
    caller: Caller,
    query: QueryParams,
) -> Result<Json<RegisteredModelList>, Error> {
    let needle = query.get("q").unwrap_or("").to_string();
    let offset = page_token::decode(query.get("page_token"))?;
    let list = state
        .store
        .call(move |c| pages::list_page(c, &caller, &needle, offset))
        .await?;
    Ok(Json(list))
}

/// `GET /api/v1/registered-models/{name}`: the model and every version, newest first.
pub(crate) async fn get_registered_model(
    State(state): State<AppState>,
    guard: RegisteredModelGuard<READ>,
) -> Result<Json<RegisteredModelDetail>, Error> {
    let (name, id, level) = (guard.name, guard.id, guard.level);
    let detail = state
        .store
        .call(move |c| pages::detail(c, &name, id, level))
        .await?;
    Ok(Json(detail))
}
