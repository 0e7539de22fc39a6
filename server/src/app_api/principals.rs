//! The Share dialog's picker (`GET /principals?q=`): users and groups whose name contains
//! `q`; any signed-in user may ask.

use api_types as json;
use axum::extract::State;
use axum::Json;

use super::query::QueryParams;
use crate::auth::Caller;
use crate::{AppState, Error};

const MAX_PRINCIPALS: usize = 20;

/// `GET /principals?q=`
pub(crate) async fn list_principals(
    State(state): State<AppState>,
    _caller: Caller,
    query: QueryParams,
) -> Result<Json<Vec<json::Principal>>, Error> {
    let q = query.principals().q.unwrap_or_default();
    let found = state
        .store
        .call(move |c| crate::permissions::search_principals(c, &q, MAX_PRINCIPALS))
        .await?;
    Ok(Json(found))
}
